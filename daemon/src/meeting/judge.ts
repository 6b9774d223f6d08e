export interface JudgeVerdict {
  /** The judge's text, trimmed; empty when the round was clean. */
  text: string;
  /** Reason given with `CONVERGED:`, if the judge declared convergence. */
  converged?: string;
  corrections: { worker: string; text: string }[];
}

const CLEAN_RE = /^\s*(\[?(CLEAN|NO ISSUES|NOTHING TO CORRECT)\]?\.?)?\s*$/i;

/**
 * Reads the judge's own reply. `CONVERGED: <reason>` at the start of a line ends the meeting;
 * lines `@worker: problem — what is needed` (or `worker: ...`) are corrections to named workers;
 * an empty reply or `[CLEAN]` is silence.
 */
export function parseJudge(reply: string, workers: string[]): JudgeVerdict {
  const text = reply.trim();
  if (CLEAN_RE.test(text)) return { text: '', corrections: [] };
  const verdict: JudgeVerdict = { text, corrections: [] };
  const conv = /^\s*CONVERGED:\s*(.+)$/im.exec(text);
  if (conv?.[1]) verdict.converged = conv[1].trim();
  const byName = new Map(workers.map((w) => [w.toLowerCase(), w]));
  for (const line of text.split('\n')) {
    const m = /^\s*[-*]?\s*@?([A-Za-z][A-Za-z0-9_-]*)\s*:\s*(.+)$/.exec(line);
    const worker = m?.[1] ? byName.get(m[1].toLowerCase()) : undefined;
    if (worker && m?.[2]) verdict.corrections.push({ worker, text: m[2].trim() });
  }
  return verdict;
}
