/** Helpers of the server's agent/* handlers: who may see what, and one join at a time. */
import type { MeetingState } from '@roundtable/protocol';
import { RpcError } from '@roundtable/protocol';
import type { Connection } from './connection';

/**
 * Ending a meeting (cut, close), deleting it or posting as the person belongs to the one who opened
 * it and to the person — the seed's rule: the one who opens a roundtable closes it. A connection
 * that took a seat in the meeting without opening it only speaks, passes or leaves (also after it
 * left, so leaving grants nothing); an agent's connection (`initialize` with `agent`, as `roundtable
 * mcp` connects) may end only the meetings it opened; and deciding or resolving (`personOnly`) is
 * never an agent's. Identity is the connection: no argument names who asks. Throws the one-line refusal.
 */
export function refuseNotOwner(conn: Connection, meetingId: string, what: string, personOnly = false): void {
  if (personOnly && conn.agent) {
    throw new RpcError('forbidden', `an agent cannot ${what}: the decision is the person's, in VS Code`);
  }
  if (conn.opened.has(meetingId)) return;
  if (conn.seated.has(meetingId)) {
    const seat = conn.agents.get(meetingId)?.name;
    throw new RpcError(
      'forbidden',
      `${seat ? `${seat} sits` : 'this connection sat'} in the meeting but did not open it, and a seat cannot ${what}: only the one who opened the meeting or the person can; a seat may pass or leave`,
    );
  }
  if (conn.agent) {
    throw new RpcError(
      'forbidden',
      `this agent session did not open meeting ${meetingId}, so it cannot ${what}: only the one who opened the meeting or the person can`,
    );
  }
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
