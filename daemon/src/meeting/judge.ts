export interface JudgeVerdict {
  /** The judge's text, trimmed; empty when the round was clean. */
  text: string;
  /** Reason given with `CONVERGED:`, if the judge declared convergence. */
  converged?: string;
  corrections: { worker: string; text: string }[];
}

const CLEAN_RE = /^\s*(\[?(CLEAN|NO ISSUES|NOTHING TO CORRECT)\]?\.?)?\s*$/i;

/**
 * Reads the judge's own reply. `CONVERGED: <reason>` at the start of a line of its own (not a
 * line addressed to a worker) ends the meeting;
 * lines `@worker: problem — what is needed` (or `worker: ...`) are corrections to named workers;
 * an empty reply or `[CLEAN]` is silence.
 */
export function parseJudge(reply: string, workers: string[]): JudgeVerdict {
  const text = reply.trim();
  if (CLEAN_RE.test(text)) return { text: '', corrections: [] };
  const verdict: JudgeVerdict = { text, corrections: [] };
  const byName = new Map(workers.map((w) => [w.toLowerCase(), w]));
  for (const line of text.split('\n')) {
    const m = /^\s*[-*]?\s*(@?)([A-Za-z][A-Za-z0-9_-]*)\s*:\s*(.+)$/.exec(line);
    const worker = m?.[2] ? byName.get(m[2].toLowerCase()) : undefined;
    // `@name:` is always a correction and `CONVERGED:` in capitals always the judge's own word;
    // between them a bare `name:` goes to the worker so called. A seat named "Converged" (refused
    // today, possible in an older log) can never turn the judge's note to it into the meeting's end.
    const keyword = /^\s*CONVERGED:\s*(.+)$/.exec(line) ?? (worker ? null : /^\s*CONVERGED:\s*(.+)$/i.exec(line));
    if (worker && m?.[3] && (m[1] === '@' || !keyword)) {
      verdict.corrections.push({ worker, text: m[3].trim() });
    } else if (keyword?.[1] && verdict.converged === undefined) {
      verdict.converged = keyword[1].trim();
    }
  }
  return verdict;
}
