/**
 * Roundtable mode's planner. Order within a round: every worker speaks, stances are recorded,
 * consensus is evaluated, then — at once, since neither needs the other — the judge reviews the
 * round (only when there is no consensus and another round follows) and, only when a compaction is due, the assistant folds
 * the rounds before this one into the rolling summary; then the meeting ends or the next round
 * starts.
 *
 * Prompts grow by appending (see prompts.ts), so no summary is written until the transcript the
 * next round would be shown passes the meeting's threshold (`compactionDue`): then every round
 * but the last is folded in, and the last stays verbatim. The last round of a meeting is never
 * summarised (the digest reads the transcript).
 */
import type { MeetingState, RoundState } from '@roundtable/protocol';
import { currentRound, remainingWorkers, whyLeft, workersOf } from '@roundtable/protocol';
import type { Step } from '../../steps';
import { compactionDue } from '../../prompts';

function allPassed(s: MeetingState): boolean {
  return remainingWorkers(s).every((w) => s.passed.includes(w.name));
}

/** Fewer than two workers left (the others' models failed for good): no panel is left to decide. */
function tooFewLeft(s: MeetingState): Step | undefined {
  const left = s.left ? Object.keys(s.left).length : 0;
  const remaining = remainingWorkers(s).length;
  if (left === 0 || remaining >= 2) return undefined;
  const all = workersOf(s).length;
  return {
    kind: 'close',
    reason: 'error',
    detail: `only ${remaining} of ${all} workers remain: ${whyLeft(s)}`,
  };
}

/**
 * The round is the meeting's last for a reason known before it is reviewed: max rounds, the
 * final round after the 80% budget mark, the extra round a human asked for, a close asked for.
 */
function isLastRound(s: MeetingState, r: RoundState): boolean {
  return (
    r.final ||
    s.closeRequest !== undefined ||
    r.round >= s.config.maxRounds ||
    (s.finalRound !== undefined && r.round >= s.finalRound) ||
    (s.reopenedAfterRound !== undefined && r.round > s.reopenedAfterRound)
  );
}

/** A stance that is a position: not a failure to say one (UNKNOWN, TIMEOUT). */
const POSITIONS: ReadonlySet<string> = new Set(['AGREE', 'DISAGREE', 'NEUTRAL', 'PASS']);

/** Each speaker's position in a round ("ada=AGREE grace=DISAGREE"); undefined when one has none. */
function positionsOf(r: RoundState | undefined): string | undefined {
  if (!r) return undefined;
  const cells = r.speakers.map((w) => [w, r.stances[w]?.stance ?? 'UNKNOWN'] as const);
  if (cells.some(([, stance]) => !POSITIONS.has(stance))) return undefined;
  return cells
    .map(([w, stance]) => `${w}=${stance}`)
    .sort()
    .join(' ');
}

/**
 * Stop when stable: every worker's position the same for the last three rounds (unchanged for two
 * rounds running), and nothing the workers have not answered — no human post during this round
 * (the judge's corrections are checked once the review is in). The next round could only repeat.
 */
function settled(s: MeetingState, r: RoundState): boolean {
  if (s.config.stopWhenStable !== true || r.humanPosts.length > 0) return false;
  const i = s.rounds.indexOf(r);
  const now = positionsOf(r);
  return now !== undefined && positionsOf(s.rounds[i - 1]) === now && positionsOf(s.rounds[i - 2]) === now;
}

export function planRoundtable(s: MeetingState): Step {
  const r = currentRound(s);
  if (!r) return { kind: 'start_round', round: 1, final: s.config.maxRounds === 1 || s.finalRound === 1 };
  for (const w of r.speakers) {
    if (r.contributions[w] && !r.stances[w]) return { kind: 'stance', round: r, worker: w };
  }
  const pending = r.speakers.filter((w) => !r.stances[w]);
  if (pending.length > 0) return { kind: 'turns', round: r, pending };
  if (r.speakers.length > 0 && r.speakers.every((w) => r.failures[w]?.reason === 'error')) {
    const detail = Object.values(r.failures)[0]?.detail ?? 'every worker failed';
    return { kind: 'close', reason: 'error', detail: `every worker's turn failed in round ${r.round}: ${detail}` };
  }
  const few = tooFewLeft(s);
  if (few) return few;
  if (!r.consensus) return { kind: 'consensus', round: r };
  const judge = s.participants.find((p) => p.role === 'judge');
  // A meeting that ends after this round needs no compaction, and no review: its corrections
  // would reach nobody. A judge's CONVERGED is not known yet.
  const continues = r.consensus.level === 'NONE' && !isLastRound(s, r);
  const judging = judge !== undefined && continues && !r.judge;
  const before = s.rounds.find((x) => x.round === r.round - 1);
  // Stable and reviewed with no correction: ends after this round. Stable and not yet reviewed:
  // the review decides whether a compaction is needed.
  const stable = continues && settled(s, r) && (judge === undefined || (r.judge?.corrections.length ?? 1) === 0);
  const waits = continues && settled(s, r) && judging;
  const summarize =
    before && continues && !stable && !waits && !r.judge?.converged && compactionDue(s, r) ? before : undefined;
  if (judging && summarize) return { kind: 'judge_and_summary', round: r, summarize };
  if (judging) return { kind: 'judge', round: r };
  if (summarize) return { kind: 'summary', round: summarize };
  if (s.reopenedAfterRound === r.round) return { kind: 'start_round', round: r.round + 1, final: true };
  if (r.consensus.level === 'FULL') return { kind: 'close', reason: 'consensus_full' };
  if (r.consensus.level === 'MAJORITY') return { kind: 'close', reason: 'consensus_majority' };
  if (r.judge?.converged) return { kind: 'close', reason: 'judge_converged', detail: r.judge.converged };
  if (allPassed(s)) return { kind: 'close', reason: 'all_passed' };
  if (s.finalRound !== undefined && r.round >= s.finalRound) {
    return { kind: 'close', reason: 'budget_exhausted', detail: 'final round after the 80% budget mark' };
  }
  if (s.reopenedAfterRound !== undefined && r.round > s.reopenedAfterRound) {
    return { kind: 'close', reason: 'max_rounds', detail: 'the extra round the human asked for is done' };
  }
  if (r.round >= s.config.maxRounds) return { kind: 'close', reason: 'max_rounds' };
  if (stable) return { kind: 'close', reason: 'stable', detail: `positions unchanged since round ${r.round - 2}` };
  const next = r.round + 1;
  return { kind: 'start_round', round: next, final: next >= s.config.maxRounds || s.finalRound === next };
}
