/**
 * Reviewers on the loopback OpenAI-compatible server, as models answer a review meeting: asked
 * for findings (the prompt's `{"findings": [` format), each replies with its own; asked for a
 * ballot (the `{"votes": [` format), a vote on every finding put to it (the ballot's findings
 * read from the prompt, as a model reads them: `ballotFindings`, the one reader of a ballot
 * prompt in the fakes); anything else a consensus statement. `reviewCallKind` says which a call was.
 *
 * `realReviewers` answers in the shapes real models use. Copied from the recorded replies in
 * test/fixtures/real-replies/review: nested locations, absolute paths, P0–P3, cut and clean replies
 * (Codex); severities out of 10 under `review` (Llama 3.1, Claude 3, GPT-4o: `kaizen`); a report
 * grouped by file with 1 = Critical and `affected_lines` (Qwen3.6 under Gito: `gito`); a bare list
 * with no severity (`no-severity`). From the issue's account of them only (issue 39; searched for,
 * no recorded reply found, see the README): a model's own grouping by file, SARIF, Windows paths,
 * emoji severities in a field, and votes as booleans and out of 10.
 */
import type { Finding } from '@roundtable/protocol';
import { lastUserMessage, seatOf, type Behaviour, type ChatBody } from './openaiServer';

/** A finding as the ballot prompt quotes it (daemon/src/meeting/reviewPrompts.ts), or a decision's option. */
export interface BallotFinding {
  id: string;
  /** The option's text up to the next option: for a finding, its head line and `claim:` lines. */
  label: string;
  file?: string;
  lines?: string;
  severity?: string;
  decision?: string;
  defect?: string;
}

/** `O1: src/db.ts lines 6-7, severity blocking, breaks decision 0001` (or `defect: naming`). */
const FINDING_HEAD = /^(\S+) lines ([\d-]+), severity (\w+), (?:breaks decision (\S+)|defect: (\S+))/;

/**
 * The options of a ballot prompt in order, each once: `O1: …` lines quoted in the envelope
 * (`| O1: src/db.ts lines 1-3, …` then `| claim: …`), as the consensus prompts list them.
 */
export function ballotFindings(prompt: string): BallotFinding[] {
  const out: BallotFinding[] = [];
  for (const line of prompt.split('\n')) {
    const body = line.replace(/^\| ?/, '');
    const head = /^(O\d+): (.*)$/.exec(body);
    if (head && !out.some((o) => o.id === head[1])) {
      const [, file, lines, severity, decision, defect] = FINDING_HEAD.exec(head[2] ?? '') ?? [];
      out.push({
        id: head[1] ?? '',
        label: head[2] ?? '',
        ...(file ? { file, lines, severity } : {}),
        ...(decision ? { decision } : {}),
        ...(defect ? { defect } : {}),
      });
    } else if (out.length && line.startsWith('|') && !head) out[out.length - 1]!.label += `\n${body}`;
  }
  return out;
}

/** What a review's call asks, as the server sees it: by the last user message, as a model reads its prompt. */
export type ReviewCallKind = 'proposal' | 'proposal retry' | 'ballot' | 'ballot retry' | 'other';

export function reviewCallKind(body: ChatBody): ReviewCallKind {
  const last = lastUserMessage(body);
  if (last.includes('could not be read as a review')) return 'proposal retry';
  if (last.startsWith('That ballot is invalid')) return 'ballot retry';
  if (last.includes('{"votes": [')) return 'ballot';
  if (last.includes('{"findings": [')) return 'proposal';
  return 'other';
}

export interface ReviewerScript {
  /** The findings `me` (the seat's name) proposes. */
  findings: (me: string) => Omit<Finding, 'proposedBy' | 'refuted'>[];
  /**
   * How `me` votes on the finding shown as `label`, the workspace files it cites and why (default:
   * accept at 0.9 — the finding holds — citing nothing, "`me`: accept — read the diff lines it quotes").
   */
  vote?: (
    me: string,
    label: string,
  ) => { vote: 'accept' | 'reject' | 'abstain'; confidence: number; evidence?: string[]; rationale?: string };
  /** Added to every reply (e.g. a pace, or `chunkSize`). */
  extra?: Behaviour;
}

export function reviewerResponder(script: ReviewerScript): (body: ChatBody) => Behaviour {
  return (body) => {
    const { me } = seatOf(body);
    const user = lastUserMessage(body);
    const reply = (text: string): Behaviour => ({ ...script.extra, text });
    // A ballot is what the prompt asks for: a reply in the votes format.
    if (user.includes('{"votes": [')) {
      const votes = ballotFindings(user).map((o) => {
        const {
          evidence = [],
          rationale,
          ...v
        } = script.vote?.(me, o.label) ?? {
          vote: 'accept' as const,
          confidence: 0.9,
        };
        return {
          option: o.id,
          ...v,
          rationale: rationale ?? `${me}: ${v.vote} — read the diff lines it quotes`,
          evidence: evidence.map((file) => ({ file })),
        };
      });
      return reply(JSON.stringify({ votes }));
    }
    if (user.includes('{"findings": [')) return reply(JSON.stringify({ findings: script.findings(me) }));
    return reply('CONSENSUS_STATEMENT: the panel reviewed the change');
  };
}

/** The breach a real-shaped reviewer reports: where it is, and the decision it breaks. */
export interface Breach {
  file: string;
  line: number;
  decision: string;
  /** The absolute root of the repository, for the shapes that write absolute paths. */
  root: string;
}

/** How a reviewer writes its findings, each copied from recorded replies (see the module comment). */
export type FindingsShape =
  | 'ours'
  | 'ours-clean'
  | 'codex'
  | 'grouped'
  | 'bare-list'
  | 'windows'
  | 'diff-side'
  | 'sarif'
  | 'answer-tags'
  | 'comments-beside'
  | 'p1'
  | 'cut-then-whole'
  | 'always-cut'
  | 'lgtm'
  | 'bare-empty'
  | 'no-issues'
  | 'unreadable-items'
  | 'kaizen'
  | 'gito'
  | 'no-severity';

/** How a reviewer writes its ballot. */
export type VoteShape = 'ours' | 'boolean-out-of-10' | 'unreadable';

const claimOf = (b: Breach) =>
  `A MySQL pool in the orders service, where decision ${b.decision} says Postgres for every service.`;

/** The findings reply of one shape (`again`: the reviewer was asked once more). */
function findingsReply(shape: FindingsShape, b: Breach, again: boolean): Behaviour {
  const claim = claimOf(b);
  const json = (v: unknown): Behaviour => ({ text: JSON.stringify(v, null, 2) });
  // Codex's /review format (codex-udemy-017-nested-absolute): nested location, absolute path,
  // integer priority and a [P0] title, the decision named only in the prose.
  const codex = (extra: object[] = []) => ({
    findings: [
      {
        title: '[P0] MySQL pool breaks the Postgres decision',
        body: claim,
        confidence_score: 0.9,
        priority: 0,
        code_location: { absolute_file_path: `${b.root}/${b.file}`, line_range: { start: b.line, end: b.line } },
      },
      ...extra,
    ],
    overall_correctness: 'patch is incorrect',
    overall_explanation: 'The change adds a second database engine.',
    overall_confidence_score: 0.9,
  });
  switch (shape) {
    case 'ours':
      return json({
        findings: [
          { file: b.file, lines: { start: b.line, end: b.line }, severity: 'blocking', decision: b.decision, claim },
        ],
      });
    case 'ours-clean':
      return json({ findings: [] });
    case 'codex':
      return json(codex());
    case 'grouped':
      return json({
        [b.file]: [{ line: b.line, severity: '🔴 Critical', issue: `Breaks ADR-${b.decision}: ${claim}` }],
      });
    case 'bare-list':
      return json([
        {
          path: `./${b.file}`,
          line_start: b.line,
          line_end: b.line,
          severity: 'P0',
          rule_id: `ADR-${b.decision}`,
          description: claim,
        },
      ]);
    case 'windows':
      return json({
        issues: [
          {
            filename: b.file.replace(/\//g, '\\'),
            lines: `L${b.line}`,
            severity: 'CRITICAL',
            decision: b.decision,
            message: claim,
          },
        ],
      });
    case 'diff-side':
      return json({
        comments: [
          { path: `b/${b.file}`, line: String(b.line), severity: 'error', adr: `ADR-${b.decision}`, body: claim },
        ],
      });
    case 'sarif':
      return json({
        runs: [
          {
            results: [
              {
                ruleId: `decision/${b.decision}`,
                level: 'error',
                message: { text: claim },
                locations: [
                  {
                    physicalLocation: {
                      artifactLocation: { uri: `file://${b.root}/${b.file}` },
                      region: { startLine: b.line, endLine: b.line },
                    },
                  },
                ],
              },
            ],
          },
        ],
      });
    case 'answer-tags':
      return {
        text: `<think>The pool on line ${b.line} is MySQL.</think>\n<answer>\n${JSON.stringify({ findings: [{ file: b.file, lines: `${b.line}-${b.line}`, severity: 'blocking', decision: b.decision, claim }] })}\n</answer>`,
      };
    case 'comments-beside':
      return json({
        findings: [],
        comments: [{ path: b.file, line: b.line, severity: '🔴', body: `${claim} (ADR ${b.decision})` }],
      });
    case 'p1':
      return json({ findings: [{ file: b.file, line: b.line, priority: 'P1', decision: b.decision, claim }] });
    case 'cut-then-whole':
    case 'always-cut': {
      if (again && shape === 'cut-then-whole') return json(codex());
      // A second finding the token cap stops in the middle of (codex-udemy-008-cut-by-the-cap).
      const text = JSON.stringify(
        codex([
          {
            title: '[P2] Close the pool on shutdown',
            body: 'The pool is never ended, so a redeploy leaks connections'.repeat(3),
          },
        ]),
        null,
        2,
      );
      return { text: text.slice(0, text.indexOf('so a redeploy')), finishReason: 'length' };
    }
    case 'lgtm':
      return { text: 'LGTM' };
    case 'bare-empty':
      return { text: '[]' };
    case 'no-issues':
      return { text: "Codex Review: Didn't find any major issues. 🎉" };
    case 'kaizen':
      // kaizen's prompt and its recorded replies (kaizen-llama-405b-pr335-severity-of-10): a list
      // under "review", the file under file_name, severity_level out of 10 beside a word.
      return json({
        code_quality_percentage: 40,
        review: [
          {
            topic: 'Database',
            comment: claim,
            confidence: 'critical',
            reason: 'The decision records Postgres for every service.',
            solution: 'Use the pg pool.',
            actual_code: "export const pool = mysql.createPool({ host: 'db' });",
            fixed_code: '',
            file_name: b.file,
            start_line: b.line,
            end_line: b.line,
            side: 'RIGHT',
            sentiment: 'negative',
            severity_level: 9,
          },
        ],
      });
    case 'gito':
      // A Gito report (gito-qwen3.6-grouped-by-file-severity-1-is-critical): grouped by file,
      // severity 1 = Critical, the lines in affected_lines.
      return json({
        issues: {
          [b.file]: [
            {
              title: 'MySQL pool where the decision says Postgres',
              details: claim,
              severity: 1,
              confidence: 1,
              tags: ['architecture'],
              affected_lines: [{ start_line: b.line, end_line: b.line, proposal: '' }],
              id: 1,
              file: b.file,
            },
          ],
        },
      });
    case 'no-severity':
      // A bare list with no severity at all (claude-code-bare-list-no-severity).
      return json([{ file: b.file, line: b.line, summary: claim, failure_scenario: 'Every deploy opens MySQL.' }]);
    case 'unreadable-items':
      // A list whose items name neither a file nor a line: nothing in it can be checked.
      return json({ findings: [{ where: 'the database module', what: claim }] });
  }
}

/** The ballot reply of one shape on the findings the prompt lists. */
function ballotReply(shape: VoteShape, prompt: string, b: Breach): Behaviour {
  const on = ballotFindings(prompt);
  if (shape === 'unreadable')
    return { text: JSON.stringify({ votes: on.map((f) => ({ option: f.label.slice(0, 20), verdict: 'maybe' })) }) };
  const holds = (f: BallotFinding) => f.file === b.file;
  if (shape === 'boolean-out-of-10')
    return {
      text: JSON.stringify({
        votes: Object.fromEntries(
          on.map((f) => [
            f.id.slice(1),
            {
              accept: holds(f),
              score: 9,
              reasoning: holds(f)
                ? `Line ${b.line} creates a MySQL pool; ${b.decision} says Postgres.`
                : 'Not in this change.',
              evidence: { path: b.file, line: b.line },
            },
          ]),
        ),
      }),
    };
  return {
    text: JSON.stringify({
      votes: on.map((f) => ({
        option: f.id,
        vote: holds(f) ? 'accept' : 'reject',
        confidence: 0.9,
        rationale: `Line ${b.line} creates a MySQL pool; decision ${b.decision} chose Postgres.`,
        evidence: [{ file: b.file, section: `lines ${b.line}`, type: 'code' }],
      })),
    }),
  };
}

/**
 * A panel of real-shaped reviewers keyed by model: each writes its findings in its own shape and
 * votes in its own; a reviewer asked once more (its reply could not be read) answers in the same
 * shape unless the shape says otherwise (`cut-then-whole`).
 */
export function realReviewers(
  breach: Breach,
  panel: Record<string, { findings: FindingsShape; votes: VoteShape }>,
): (body: ChatBody) => Behaviour {
  return (body) => {
    const seat = panel[body.model ?? ''];
    const user = lastUserMessage(body);
    if (!seat) return { text: 'The panel reviewed the change.' };
    // A ballot, or the ballot asked once more: the ballot prompt is in the conversation.
    const ballot = (body.messages ?? []).find((m) => m.role === 'user' && m.content.includes('{"votes": ['));
    if (ballot) return ballotReply(seat.votes, ballot.content, breach);
    if (user.includes('could not be read as a review')) return findingsReply(seat.findings, breach, true);
    if (user.includes('{"findings": [')) return findingsReply(seat.findings, breach, false);
    return { text: 'The panel reviewed the change. [STANCE: AGREE]' };
  };
}
