/**
 * Roundtable mode's planner. Order within a round: every worker speaks, stances are recorded,
 * consensus is evaluated, then — at once, since neither needs the other — the judge reviews the
 * round (only when there is no consensus) and, only when a compaction is due, the assistant folds
 * the rounds before this one into the rolling summary; then the meeting ends or the next round
 * starts.
 *
 * Prompts grow by appending (see prompts.ts), so no summary is written until the transcript the
 * next round would be shown passes the meeting's threshold (`compactionDue`): then every round
 * but the last is folded in, and the last stays verbatim. The last round of a meeting is never
 * summarised (the digest reads the transcript).
 */
import type { MeetingState } from '@roundtable/protocol';
import { currentRound, workersOf } from '@roundtable/protocol';
import type { Step } from '../../steps';
import { compactionDue } from '../../prompts';

function allPassed(s: MeetingState): boolean {
  return workersOf(s).every((w) => s.passed.includes(w.name));
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
  if (!r.consensus) return { kind: 'consensus', round: r };
  const judge = s.participants.find((p) => p.role === 'judge');
  const judging = judge !== undefined && r.consensus.level === 'NONE' && !r.judge;
  const before = s.rounds.find((x) => x.round === r.round - 1);
  // A meeting that ends after this round needs no compaction; a judge's CONVERGED is not known yet.
  const continues = !r.final && r.consensus.level === 'NONE' && r.round < s.config.maxRounds;
  const summarize = before && continues && !r.judge?.converged && compactionDue(s, r) ? before : undefined;
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
  const next = r.round + 1;
  return { kind: 'start_round', round: next, final: next >= s.config.maxRounds || s.finalRound === next };
}
