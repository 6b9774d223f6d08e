/**
 * What a meeting waits for from the person, and which decisions on its digest are refused: one rule
 * for the daemon (which refuses the command) and the extension (which offers only what is allowed).
 */
import type { DecisionKind } from './consensus';
import type { MeetingState } from './state';

/** Why a review's digest takes no decision (Accept, Reject or another round), in one line. */
export const REVIEW_IS_NO_DECISION =
  'A review is not a decision to accept or reject: its upheld findings are in the Problems panel and its report; change the code and review again.';

/** What a meeting waits for from the human. */
export type Need = 'review' | 'escalation' | 'failed';

/**
 * A meeting that produced no decision (its digest says why: no stance, no statement) is offered
 * Retry like a failed one: there is nothing to accept. A review waits for no one: its findings are
 * its outcome (the Problems panel, its report), not a decision to accept.
 */
export function needOf(
  s: Pick<MeetingState, 'status' | 'digest' | 'decision' | 'closed' | 'config'>,
): Need | undefined {
  if (s.config.review) return undefined;
  if (s.status === 'awaiting_human') return 'escalation';
  if (s.status !== 'closed' || s.decision) return undefined;
  if (s.closed?.reason === 'error' || s.digest?.digest.noDecision) return 'failed';
  return s.digest ? 'review' : undefined;
}

/**
 * Why a decision on the digest is refused, in one line, or undefined when it may be taken. Checked
 * wherever a decision is made (the review, a command invoked directly), not only by hiding buttons.
 */
export function decisionRefusal(
  s: Pick<MeetingState, 'status' | 'digest' | 'decision' | 'closed' | 'config'>,
  decision: DecisionKind,
): string | undefined {
  if (s.config.review) return REVIEW_IS_NO_DECISION;
  const noDecision = s.digest?.digest.noDecision?.split('\n')[0];
  // A meeting that failed outright says so first, with what failed.
  if (decision === 'accepted' && s.closed?.reason === 'error')
    return `This meeting failed${noDecision ? ` (${noDecision})` : ''}: retry it or discard it.`;
  // Nothing to accept, nor to reject as a decision: the meeting is retried instead.
  if (noDecision && decision !== 'another_round')
    return `No decision to accept: ${noDecision} Retry the meeting instead.`;
  if (decision === 'accepted' && needOf(s) === 'failed') return 'This meeting failed: retry it or discard it.';
  return undefined;
}
