/** Words a person reads for the protocol's enums: one definition for the room, the review, the minutes and the CLI. */
import type { TerminationReason } from './domain';

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
