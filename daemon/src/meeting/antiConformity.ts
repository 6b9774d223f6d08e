/**
 * Anti-conformity by design (seed rules for the judge; Du et al. 2023 and later work find panels
 * talk right answers into wrong ones to agree). Kept here so the prompts and their tests share them.
 */

/** Added to every worker's system prompt. */
export const WORKER_ANTI_CONFORMITY =
  'Change your stance only for an argument or evidence, never because others hold a position; ' +
  'say what would change your mind (the evidence or argument that would make you take another stance).';

/** Added to the judge's rules. */
export const JUDGE_ANTI_CONFORMITY: readonly string[] = [
  'Protect dissent: never press a worker to join the majority; a minority position backed by an argument stays on the record until it is answered.',
  'When two workers are deadlocked, name a third worker and demand that it engage the disagreement directly: "@name: engage the deadlock between X and Y — say which argument holds and why".',
  'Never argue a position yourself, and never tell a worker which stance to take.',
];
