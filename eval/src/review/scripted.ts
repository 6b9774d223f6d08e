/**
 * Scripted reviewers for `roundtable eval --review SET --provider scripted`: no model, no server.
 * They answer from each case's labels, with behaviour known in advance, so the report shows what
 * a panel of three known reviewers implies and a reader learns how to read it. They measure no
 * model, and the report says so.
 *
 * - `right` reports exactly the labels, and votes for a finding when it hits a label, against it otherwise;
 * - `noisy` reports the labels and, on every clean control, one false blocking finding on the
 *   first changed line, citing the case's first record; it votes for every finding;
 * - `misses` leaves out every second label of the set (the 2nd, 4th, … in set order) and votes as `right`.
 *
 * Each case's script travels with its meeting (`providers.script`), so the cases can run at once.
 */
import type { ChatMessage, Finding, Participant, ProviderConfig } from '@roundtable/protocol';
import { isRecord, lineNumbers } from '@roundtable/protocol';
import { countPromptTokens, countTokens } from '../../../daemon/src/providers/tokens';
import type { ChatProvider, ChatRequest, ChatResult } from '../../../daemon/src/providers/types';
import type { Label, ReviewCase } from './cases';
import { hits } from './match';

export const SCRIPTED_REVIEWERS = ['right', 'noisy', 'misses'] as const;
export type ScriptedReviewer = (typeof SCRIPTED_REVIEWERS)[number];

/** What the scripted reviewers are told about one case: its labels and what each proposes. */
export interface CaseScript {
  labels: Label[];
  findings: Record<string, Omit<Finding, 'proposedBy' | 'refuted'>[]>;
  /** Seats that vote for every finding (the others vote by the labels). */
  acceptAll: string[];
}

/** The first changed file of a case (by path) and its first line that differs from the base. */
export function firstChangedLine(c: ReviewCase): { file: string; line: number } | undefined {
  for (const file of Object.keys(c.change).sort()) {
    const now = (c.change[file] ?? '').split('\n');
    const before = c.base[file]?.split('\n') ?? [];
    if (c.base[file] === c.change[file]) continue;
    let i = 0;
    while (i < now.length && now[i] === before[i]) i++;
    return { file, line: Math.max(1, Math.min(i + 1, now.length - (now.at(-1) === '' ? 1 : 0))) };
  }
  return undefined;
}

/** The id of the first decision record in a case's base (its number, as the rulebook lists it). */
function firstRecordId(c: ReviewCase): string | undefined {
  const rec = Object.keys(c.base)
    .filter((p) => p.startsWith('docs/decisions/'))
    .sort()[0];
  return rec ? (/(\d{4})-/.exec(rec)?.[1] ?? rec.replace(/^.*\//, '').replace(/\.md$/, '')) : undefined;
}

const asFinding = (l: Label, claim: string): Omit<Finding, 'proposedBy' | 'refuted'> => ({
  file: l.file,
  lines: l.lines,
  severity: 'blocking',
  ...(l.decision ? { decision: l.decision } : { defect: l.defect ?? 'correctness' }),
  claim,
});

/** Each case's script for the three scripted reviewers seated as `seats` (right, noisy, misses). */
export function scriptsFor(cases: readonly ReviewCase[], seats: readonly string[]): Map<string, CaseScript> {
  const [right = 'right', noisy = 'noisy', misses = 'misses'] = seats;
  const out = new Map<string, CaseScript>();
  let k = 0;
  for (const c of cases) {
    const found = c.labels.map((l) => asFinding(l, `Breaks ${l.decision ?? l.defect}.`));
    const kept = found.filter(() => k++ % 2 === 0);
    const where = firstChangedLine(c);
    const cite = firstRecordId(c);
    const decoy =
      c.labels.length === 0 && where
        ? [
            {
              file: where.file,
              lines: { start: where.line, end: where.line },
              severity: 'blocking' as const,
              ...(cite ? { decision: cite } : { defect: 'style' }),
              claim:
                'This line breaks the record (a false finding: the scripted noisy reviewer adds one to every clean control).',
            },
          ]
        : [];
    out.set(c.id, {
      labels: c.labels,
      findings: { [right]: found, [noisy]: [...found, ...decoy], [misses]: kept },
      acceptAll: [noisy],
    });
  }
  return out;
}

/** A ballot's findings as the prompt lists them: `| O1: src/a.ts lines 3-4, severity blocking, breaks decision 0001`. */
export function ballotFindings(
  prompt: string,
): { id: string; finding: Pick<Finding, 'file' | 'lines' | 'decision' | 'defect'> }[] {
  const out: { id: string; finding: Pick<Finding, 'file' | 'lines' | 'decision' | 'defect'> }[] = [];
  const head = /^\| ?(O\d+): (.+) lines (\d+)(?:-(\d+))?, severity \w+, (?:breaks decision (.+)|defect: (.+))$/;
  for (const line of prompt.split('\n')) {
    const m = head.exec(line);
    if (!m) continue;
    const start = Number(m[3]);
    out.push({
      id: m[1] as string,
      finding: {
        file: m[2] as string,
        lines: { start, end: m[4] === undefined ? start : Number(m[4]) },
        ...(m[5] !== undefined ? { decision: m[5].trim() } : { defect: (m[6] ?? '').trim() }),
      },
    });
  }
  return out;
}

function ballot(script: CaseScript, me: string, prompt: string): string {
  const votes = ballotFindings(prompt).map(({ id, finding }) => {
    const holds = script.acceptAll.includes(me) || script.labels.some((l) => hits(finding, l));
    const where = lineNumbers(finding.lines);
    return {
      option: id,
      vote: holds ? 'accept' : 'reject',
      confidence: 0.9,
      rationale: holds
        ? `The case's label names ${finding.file}:${where}.`
        : `No label of the case names ${finding.file}:${where}.`,
      evidence: [{ file: finding.file, section: `lines ${where}`, type: 'code' }],
    };
  });
  return JSON.stringify({ votes });
}

const isCaseScript = (v: unknown): v is CaseScript =>
  isRecord(v) && Array.isArray(v.labels) && isRecord(v.findings) && Array.isArray(v.acceptAll);

/** The provider of one meeting: its case's script from the meeting's providers config. */
export class ScriptedReviewers implements ChatProvider {
  readonly id = 'scripted';
  constructor(private readonly script: CaseScript) {}

  static of(config: ProviderConfig | undefined): ScriptedReviewers {
    const s = isRecord(config?.script) ? config.script.reviewEval : undefined;
    if (!isCaseScript(s)) throw new Error('a scripted review eval meeting carries no case script');
    return new ScriptedReviewers(s);
  }

  chat(req: ChatRequest): Promise<ChatResult> {
    const { participant, role, round } = req.meta;
    const prompt = req.messages.map((m: ChatMessage) => m.content).join('\n');
    const text =
      role === 'worker' && round === 0
        ? JSON.stringify({ findings: this.script.findings[participant] ?? [] })
        : role === 'worker'
          ? ballot(this.script, participant, prompt)
          : 'CONSENSUS_STATEMENT: the scripted panel reviewed the change (scripted reviewers: no model was asked).';
    return Promise.resolve({
      text,
      usage: { promptTokens: countPromptTokens(req.messages), completionTokens: countTokens(text), source: 'estimate' },
    });
  }
}

/** The scripted panel: a chair and the three reviewers, scripted. */
export function scriptedParticipants(seatName: (i: number, model: string) => string): Participant[] {
  return [
    { name: 'chair', role: 'assistant', provider: 'scripted', model: 'scripted-chair' },
    ...SCRIPTED_REVIEWERS.map((r, i): Participant => ({
      name: seatName(i, r),
      role: 'worker',
      provider: 'scripted',
      model: `scripted-${r}`,
    })),
  ];
}
