import type { CallPurpose } from './domain';

/**
 * The id of the message a call writes: its live deltas are keyed by it and its `message_posted`
 * carries it. A worker's turn is `r<round>-<name>` (the stance follow-up continues that post);
 * the other calls are `<purpose>-<name>`, one per seat, so the round tells them apart.
 */
export function messageIdOf(purpose: CallPurpose, round: number, name: string): string {
  return purpose === 'turn' || purpose === 'followup' ? `r${round}-${name}` : `${purpose}-${name}`;
}
