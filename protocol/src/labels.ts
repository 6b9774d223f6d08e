/** Words a person reads for the protocol's enums: one definition for the room, the review, the minutes and the CLI. */
import type { TerminationReason } from './domain';
import { currentRound, roundLimit, type MeetingState } from './state';

const TERMINATION_LABELS: Record<TerminationReason, string> = {
  verdict_reached: 'The vote settled it',
  human_decided: 'You decided',
  deferred: 'Decision deferred',
  all_passed: 'Everyone passed',
  consensus_full: 'Full consensus',
  consensus_majority: 'Majority consensus',
  judge_converged: 'The judge saw convergence',
  stable: 'Positions stopped moving',
  max_rounds: 'Round limit reached',
  budget_exhausted: 'Token budget used up',
  time_limit: 'Time limit reached',
  cut: 'Cut',
  error: 'Failed',
};

/** "Full consensus", "Token budget used up", … for a termination reason. */
export function terminationLabel(reason: TerminationReason): string {
  return TERMINATION_LABELS[reason];
}

/**
 * Where a running meeting is, in a few words: "Round 2 of 10". A consensus meeting's rounds are
 * votes, counted against its vote and challenge rounds (not `maxRounds`): "Vote, round 1 of 3",
 * then "Challenge, round 2 of 3". Before the first round, what happens meanwhile: the briefing,
 * the options being proposed, the change being reviewed.
 */
export function roundLabel(s: MeetingState): string {
  const r = currentRound(s);
  if (!r) {
    if (s.mode === 'roundtable') return 'Briefing';
    if (s.config.review) return 'Reviewing the change';
    return s.options.length === 0 ? 'Proposing options' : 'Opening the vote';
  }
  const limit = roundLimit(s);
  if (s.mode === 'roundtable') return `Round ${r.round} of ${limit}`;
  return `${r.round === 1 ? 'Vote' : 'Challenge'}, round ${r.round} of ${limit}`;
}
