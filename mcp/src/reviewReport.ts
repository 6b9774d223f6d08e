/**
 * What `review` answers: the findings with their verdicts and votes, and the exit code the CLI
 * would give, as structured content (its `outputSchema`) for the agent to act on, and a short
 * Markdown summary for it to read. Findings are the reviewers' text: shown as data in the
 * structured content (bidi controls made visible), escaped in the Markdown (no raw HTML, no
 * autolink, no entity).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import {
  SeveritySchema,
  VerdictSchema,
  VoteKindSchema,
  invisibleNote,
  pathForPeople,
  shownPath,
  visibleText,
  waiverText,
} from '@roundtable/protocol';
import { codeSpan, inline } from '@roundtable/protocol/markdown';
import type { ReviewedFinding, reviewOutcome } from '@roundtable/protocol/reviewOutcome';
import type { ConveneResult } from '@roundtable/client';
import { DELIBERATE_OUTPUT } from './deliberateReport';

const FINDING = z.object({
  id: z.string().describe('The finding in the meeting (O1, …): the votes in the progress and the minutes name it so'),
  file: z.string().describe('Workspace-relative path of the changed file'),
  lines: z.object({ start: z.number(), end: z.number() }).describe("Line range on the change's new side (1-based)"),
  severity: SeveritySchema.describe('blocking, major, minor or note'),
  decision: z.string().optional().describe('The decision record it breaks (its id), when it cites one'),
  defect: z.string().optional().describe('Or the defect class (correctness, security, ...)'),
  claim: z.string().describe('What is wrong, as the reviewers stated it'),
  verdict: VerdictSchema.describe(
    'PROVEN: the panel holds it; REFUTED: it does not (or it was refuted before the vote, see refuted); CONTESTED: split; INSUFFICIENT_EVIDENCE',
  ),
  refuted: z.string().optional().describe('Why it was refuted mechanically, before any vote'),
  waived: z
    .object({ reason: z.string(), from: z.string() })
    .optional()
    .describe(
      'An exception of the change (a Decision-Exception trailer, the pull request) waives it: it fails nothing; the verdict is the panel’s',
    ),
  votes: z
    .array(
      z.object({
        worker: z.string(),
        vote: VoteKindSchema.describe('accept: the finding holds'),
        confidence: z.number().min(0).max(1),
        rationale: z.string(),
      }),
    )
    .describe("Each reviewer's vote on it"),
});

/** The structured result; every field is described because agents read the schema, not this file. */
export const REVIEW_OUTPUT = {
  exit: z
    .union([z.literal(0), z.literal(1), z.literal(3)])
    .describe(
      '0: no finding at the failOn bar holds; 1: at least one does (fix it first); 3: the review could not be done (see why) — not a verdict on the change',
    ),
  why: z.string().optional().describe('One line: why the review failed (exit 1) or could not be done (exit 3)'),
  findings: z.array(FINDING).describe('Every finding, most severe first, then by file and line'),
  unread: z
    .array(z.object({ file: z.string(), reason: z.string() }))
    .optional()
    .describe('Files of the change the panel did not read (budget, workspace gate)'),
  meetingId: DELIBERATE_OUTPUT.meetingId
    .optional()
    .describe('The meeting id (absent when the change was empty: nothing was reviewed): `roundtable minutes <id>`'),
  minutes: DELIBERATE_OUTPUT.minutes.optional(),
};

type Output = z.infer<z.ZodObject<typeof REVIEW_OUTPUT>>;
type Minutes = NonNullable<Output['minutes']>;
type ReviewOutcome = ReturnType<typeof reviewOutcome>;

const EXIT_LABEL = { 0: 'clean', 1: 'failed', 3: 'could not review' } as const;

/** A reviewer's finding as data for the agent: its text shown as it is, bidi controls made visible. */
function findingOut(f: ReviewedFinding): Output['findings'][number] {
  return {
    id: f.id,
    // A name holding invisible characters is shown escaped and says what it holds, never cleaned
    // into another file's name (docs/review.md, "File names are data").
    file: pathForPeople(f.file),
    lines: { start: f.lines.start, end: f.lines.end },
    severity: f.severity,
    ...(f.decision ? { decision: visibleText(f.decision) } : {}),
    ...(f.defect ? { defect: visibleText(f.defect) } : {}),
    claim: visibleText(f.claim),
    verdict: f.verdict,
    ...(f.refuted ? { refuted: visibleText(f.refuted) } : {}),
    ...(f.waived ? { waived: { reason: visibleText(f.waived.reason), from: visibleText(f.waived.from) } } : {}),
    votes: f.votes.map((v) => ({
      worker: v.worker,
      vote: v.vote,
      confidence: v.confidence,
      rationale: visibleText(v.rationale),
    })),
  };
}

/** One Markdown line per finding: verdict, severity, where, what it breaks, the claim, the tally. */
function findingLine(f: ReviewedFinding): string {
  const note = invisibleNote(f.file).trim();
  const where = `${codeSpan(`${shownPath(f.file) ?? f.file}:${f.lines.start}${f.lines.end === f.lines.start ? '' : `-${f.lines.end}`}`)}${note ? ` ${inline(note)}` : ''}`;
  const what = f.decision ? ` breaks decision ${inline(f.decision)}` : f.defect ? ` (${inline(f.defect)})` : '';
  const tally = (['accept', 'reject', 'abstain'] as const)
    .map((k) => `${f.votes.filter((v) => v.vote === k).length} ${k}`)
    .join(', ');
  const waived = f.waived ? ` — ${inline(waiverText(f.waived))}` : '';
  const why = f.refuted ? ` — refuted before the vote: ${inline(f.refuted)}` : ` (${tally})${waived}`;
  return `- **${f.verdict}** ${f.severity} ${where}${what}: ${inline(f.claim)}${why}`;
}

/** An empty change: nothing to review is a clean review (exit 0), as `roundtable review` says it; no meeting was held. */
export function nothingToReview(line: string): CallToolResult {
  const out: Output = { exit: 0, why: visibleText(line), findings: [] };
  return {
    content: [{ type: 'text', text: `Roundtable review: exit 0 (clean) — ${inline(line)}` }],
    structuredContent: out,
  };
}

export function reviewReport(r: ConveneResult, o: ReviewOutcome, minutes: Minutes): CallToolResult {
  const out: Output = {
    exit: o.exit,
    ...(o.why ? { why: visibleText(o.why) } : {}),
    findings: o.findings.map(findingOut),
    ...(o.scope?.unread?.length
      ? { unread: o.scope.unread.map((u) => ({ file: pathForPeople(u.file), reason: visibleText(u.reason) })) }
      : {}),
    meetingId: r.meetingId,
    minutes,
  };
  const held = o.findings.filter((f) => f.verdict === 'PROVEN').length;
  const head =
    `Roundtable review ${r.meetingId}: exit ${o.exit} (${EXIT_LABEL[o.exit]})` +
    `${o.why ? ` — ${inline(o.why)}` : ''}; ${o.findings.length} finding${o.findings.length === 1 ? '' : 's'}, ${held} PROVEN`;
  const unread = out.unread?.length
    ? `Not read: ${out.unread.map((u) => `${codeSpan(u.file)} (${inline(u.reason)})`).join(', ')}`
    : '';
  const where = minutes.written ? `Minutes: ${minutes.path}` : `Minutes not written: ${minutes.path}`;
  const text = [head, o.findings.map(findingLine).join('\n'), unread, where].filter(Boolean).join('\n\n');
  return { content: [{ type: 'text', text }], structuredContent: out };
}
