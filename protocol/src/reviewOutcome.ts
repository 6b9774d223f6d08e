/**
 * PLACEHOLDER of the review engine's `reviewOutcome` (branch rv-engine owns this file): the
 * contract's signature, so the MCP tool type-checks before the engine lands. Replaced by the
 * engine's file at the merge; nothing here is meant to survive it.
 */
import type { OptionVote, Verdict } from './consensus';
import type { Finding, FailOn, ReviewScope } from './review';
import type { MeetingState } from './state';

export type ReviewedFinding = Finding & {
  id: string;
  verdict: Verdict;
  votes: { worker: string; vote: OptionVote['vote']; confidence: number; rationale: string }[];
};

export interface ReviewOutcome {
  findings: ReviewedFinding[];
  exit: 0 | 1 | 3;
  why?: string;
  scope?: ReviewScope;
}

export function reviewOutcome(state: MeetingState, failOn: FailOn): ReviewOutcome {
  void failOn;
  if (state.closed?.reason !== 'verdict_reached' && state.closed?.reason !== 'max_rounds')
    return { findings: [], exit: 3, why: `the review did not finish: ${state.closed?.reason ?? 'still running'}` };
  return { findings: [], exit: 0 };
}
