/** Helpers of the server's agent/* handlers: who may see what, and one join at a time. */
import type { MeetingState } from '@roundtable/protocol';
import { RpcError } from '@roundtable/protocol';
import type { Connection } from './connection';

/**
 * Ending a meeting (cut, close), deciding it, resolving it, deleting it or posting as the person
 * belongs to the person, the one who opened it, the judge and the assistant. A connection that
 * took a worker's seat in the meeting (and did not open it) only speaks, passes or leaves — also
 * after it left, so leaving grants nothing. Throws the one-line refusal.
 */
export function refuseWorkerSeat(conn: Connection, meetingId: string, what: string): void {
  if (conn.opened.has(meetingId) || !conn.workerSeats.has(meetingId)) return;
  const seat = conn.agents.get(meetingId)?.name;
  throw new RpcError(
    'forbidden',
    `${seat ? `${seat} sits` : 'this connection sat'} in the meeting as a worker, and a worker cannot ${what}: only the person, the one who opened the meeting, the judge or the assistant can; a worker may pass or leave`,
  );
}

/**
 * The round whose other contributions `name` may not see yet: in parallel order every worker
 * answers the same room, so until its own contribution (or failure) is recorded, the posts of
 * the round it is speaking in stay back. Undefined when nothing is held.
 */
export function heldRound(state: MeetingState, name: string): number | undefined {
  if (state.config.order !== 'parallel') return undefined;
  const r = state.rounds[state.rounds.length - 1];
  if (!r || !r.speakers.includes(name) || r.stances[name]) return undefined;
  return r.round;
}

/** Runs the tasks given for one key one after another (tasks of different keys run freely). */
export function serialized(): <T>(key: string, task: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, task: () => Promise<T>): Promise<T> => {
    const run = (tails.get(key) ?? Promise.resolve()).then(task, task);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}
