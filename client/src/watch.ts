/** Follows a meeting and waits for what the caller cares about (the CLI waits for the digest). */
import type { MeetingEvent } from '../../protocol/src';
import type { DaemonConnection } from './connection';

export interface MeetingWatch {
  /** The log so far, contiguous from seq 1. */
  readonly events: MeetingEvent[];
  /**
   * Resolves at the first event after `afterSeq` that matches, including events already here.
   * Rejects when the connection closes first.
   */
  waitFor(pred: (e: MeetingEvent) => boolean, afterSeq: number): Promise<void>;
}

export async function watchMeeting(
  conn: DaemonConnection,
  meetingId: string,
  onEvent: (e: MeetingEvent) => void = () => undefined,
): Promise<MeetingWatch> {
  const events: MeetingEvent[] = [];
  let waiter: { pred: (e: MeetingEvent) => boolean; afterSeq: number; resolve: () => void } | undefined;
  await conn.follow(meetingId, {
    deliver: (e) => {
      events.push(e);
      onEvent(e);
      if (waiter && e.seq > waiter.afterSeq && waiter.pred(e)) {
        waiter.resolve();
        waiter = undefined;
      }
    },
  });
  return {
    events,
    waitFor: (pred, afterSeq) => {
      if (events.some((e) => e.seq > afterSeq && pred(e))) return Promise.resolve();
      return Promise.race([
        new Promise<void>((resolve) => (waiter = { pred, afterSeq, resolve })),
        conn.closed.then((reason) => Promise.reject(new Error(`${reason} before the meeting ended`))),
      ]);
    },
  };
}
