/**
 * Browser side of the room view. Talks only to the extension through postMessage; it folds the
 * same meeting events as the daemon, with the shared reducer, so what it shows is the log.
 */
import { initialState, reduce, type MeetingEvent } from '../../protocol/src';

const state = initialState();

export function apply(e: MeetingEvent): void {
  if (e.seq <= state.lastSeq) return;
  reduce(state, e);
}
