/**
 * Reviewers with known behaviour on the loopback OpenAI-compatible server, for the review eval: a
 * test computes from a set's labels what each system must score.
 *
 * The server recognises the case under review from the diff its prompt carries (the added lines
 * of each case's change), then answers as the model named:
 * - `right` proposes exactly the case's labels (blocking, each in its own words);
 * - `noisy` proposes the labels and, on a clean control, one false blocking finding at line 1 of
 *   the first changed file, citing decision 0001;
 * - `misses` proposes every label of the set whose position in the set (counted from 0, in set
 *   order) is even: it misses every second one.
 * On a ballot, `noisy` accepts every finding; the others accept a finding that is one of the case's
 * labels (same file, overlapping lines, same decision or defect) and reject the rest, citing the
 * finding's file. Anything else (a briefing, a digest) gets a plain consensus line.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { ReviewCase } from '../../eval/src/review/cases';
import type { ChatBody, Reply } from './openaiServer';
import { reviewerResponder } from './reviewers';

export const KNOWN_REVIEWERS = ['right', 'noisy', 'misses'] as const;

/** The added lines of a case's change (`+line`), long enough to tell one case from another. */
function signature(c: ReviewCase): string[] {
  return Object.entries(c.change).flatMap(([file, text]) => {
    const before = new Set((c.base[file] ?? '').split('\n'));
    return text
      .split('\n')
      .filter((l) => l.trim().length >= 8 && !before.has(l))
      .map((l) => `+${l}`);
  });
}

/** The case whose every added line the prompt shows (the one with the most, when several fit). */
export function caseInPrompt(cases: readonly ReviewCase[], prompt: string): ReviewCase | undefined {
  let best: { c: ReviewCase; n: number } | undefined;
  for (const c of cases) {
    const sig = signature(c);
    if (sig.length > 0 && sig.every((l) => prompt.includes(l)) && (!best || sig.length > best.n))
      best = { c, n: sig.length };
  }
  return best?.c;
}

/** A ballot option's label as the prompt shows it: `src/a.ts lines 3-4, severity blocking, breaks decision 0001`. */
function optionFinding(label: string): { file: string; start: number; end: number; subject: string } | undefined {
  const m = /^(.+) lines (\d+)(?:-(\d+))?, severity \w+, (?:breaks decision (\S+)|defect: (\S+))/.exec(label);
  if (!m) return undefined;
  return { file: m[1]!, start: Number(m[2]), end: Number(m[3] ?? m[2]), subject: (m[4] ?? m[5] ?? '').toLowerCase() };
}

/** The loopback responder for `cases` (in set order: `misses` counts labels in that order). */
export function knownReviewers(cases: readonly ReviewCase[]): (body: ChatBody) => Reply {
  const position = new Map<object, number>();
  let k = 0;
  for (const c of cases) for (const l of c.labels) position.set(l, k++);
  return (body) => {
    const prompt = (body.messages ?? []).map((m) => m.content).join('\n');
    const c = caseInPrompt(cases, prompt);
    const model = body.model ?? '';
    const findings = () => {
      if (!c) return [];
      const labels = model === 'misses' ? c.labels.filter((l) => (position.get(l) ?? 1) % 2 === 0) : c.labels;
      const found = labels.map((l) => ({
        file: l.file,
        lines: l.lines,
        severity: 'blocking' as const,
        ...(l.decision ? { decision: l.decision } : { defect: l.defect ?? 'correctness' }),
        claim: `${model}: lines ${l.lines.start}-${l.lines.end} of ${l.file} break ${l.decision ?? l.defect}.`,
      }));
      const first = Object.keys(c.change).sort()[0];
      if (model === 'noisy' && c.labels.length === 0 && first)
        found.push({
          file: first,
          lines: { start: 1, end: 1 },
          severity: 'blocking',
          decision: '0001',
          claim: 'noisy: this line breaks decision 0001 (it does not).',
        });
      return found;
    };
    return reviewerResponder({
      findings,
      vote: (_me, label) => {
        const f = optionFinding(label);
        const holds =
          model === 'noisy' ||
          (!!f &&
            !!c?.labels.some(
              (l) =>
                l.file === f.file &&
                l.lines.start <= f.end &&
                f.start <= l.lines.end &&
                [l.decision, l.defect].some((s) => s?.toLowerCase() === f.subject),
            ));
        return { vote: holds ? 'accept' : 'reject', confidence: 0.9, evidence: f ? [f.file] : [] };
      },
    })(body);
  };
}

/** Writes a case in the folder format a team writes (docs/eval.md): case.json, base/, change/. */
export async function writeCaseFolder(set: string, c: ReviewCase): Promise<string> {
  const dir = path.join(set, c.id);
  const put = async (rel: string, text: string) => {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  };
  for (const [p, text] of Object.entries(c.base)) await put(`base/${p}`, text);
  for (const [p, text] of Object.entries(c.change)) await put(`change/${p}`, text);
  const labels = c.labels.map((l) => ({
    file: l.file,
    lines: l.lines.start === l.lines.end ? `${l.lines.start}` : `${l.lines.start}-${l.lines.end}`,
    ...(l.decision ? { decision: l.decision } : {}),
    ...(l.defect ? { defect: l.defect } : {}),
  }));
  await put(
    'case.json',
    `${JSON.stringify({ title: c.title, labels, ...(c.deleted.length ? { deleted: c.deleted } : {}), ...(c.note ? { note: c.note } : {}) }, null, 2)}\n`,
  );
  return dir;
}
