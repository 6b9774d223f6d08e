/**
 * Consensus mode's planner: options (given, or proposed and deduplicated), a first vote, then
 * challenge rounds while the votes do not settle the question, then the verdict or an escalation.
 */
import type { MeetingState } from '@roundtable/protocol';
import { currentRound, workersOf } from '@roundtable/protocol';
import type { Step } from '../../steps';
import { planReview } from './review';

export function planConsensus(s: MeetingState): Step {
  const workers = workersOf(s).map((w) => w.name);
  const review = s.config.review ? planReview(s, currentRound(s)) : undefined;
  if (review) return review;
  if (s.options.length === 0) {
    if (s.requestedOptions && s.requestedOptions.length > 0) return { kind: 'set_options' };
    const pending = workers.filter((w) => !s.proposals[w]);
    return pending.length > 0 ? { kind: 'propose', pending } : { kind: 'set_options' };
  }
  const r = currentRound(s);
  if (!r) return { kind: 'start_round', round: 1, final: s.config.challengeRounds === 0 };
  const pending = r.speakers.filter((w) => !r.ballots[w]);
  if (pending.length > 0) return { kind: 'ballots', round: r, pending };
  if (!r.verdict) return { kind: 'verdict', round: r };
  // Another round asked for on the digest (after a pick, a deferral or a verdict): it runs,
  // whatever closed the meeting before; the round after it is final.
  if (s.reopenedAfterRound === r.round) return { kind: 'start_round', round: r.round + 1, final: true };
  if (r.resolution) {
    if (r.resolution.action === 'pick') {
      return { kind: 'close', reason: 'human_decided', detail: `the human picked ${r.resolution.option ?? '?'}` };
    }
    if (r.resolution.action === 'defer') {
      return { kind: 'close', reason: 'deferred', detail: 'the human deferred the decision' };
    }
    return { kind: 'start_round', round: r.round + 1, final: true };
  }
  if (r.verdict.reasons.length === 0) {
    return { kind: 'close', reason: 'verdict_reached', detail: `decided for ${r.verdict.decision ?? '?'}` };
  }
  if (r.verdict.final) return r.escalated ? { kind: 'await_human' } : { kind: 'escalate', round: r };
  return { kind: 'start_round', round: r.round + 1, final: r.round >= s.config.challengeRounds };
}
