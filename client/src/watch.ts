/** Follows a meeting and waits for what the caller cares about (the CLI waits for the digest). */
import type { MeetingEvent, MeetingState } from '@roundtable/protocol';
import type { DaemonConnection } from './connection';
import type { LogFollower } from './follower';
import type { MeetingMirror } from './mirror';

export interface MeetingWatch {
  readonly mirror: MeetingMirror;
  /** The log so far, contiguous from seq 1. */
  readonly events: readonly MeetingEvent[];
  /** The state after the last event, folded one event at a time. */
  readonly state: MeetingState;
  /**
   * Resolves at the first event after `afterSeq` that matches, including events already here.
   * Rejects when the connection closes first.
   */
  waitFor(pred: (e: MeetingEvent) => boolean, afterSeq: number): Promise<void>;
}

/** A watch over what a follower has applied and will apply. */
export function watchOf(follower: LogFollower): MeetingWatch {
  const { mirror } = follower;
  return {
    mirror,
    get events() {
      return mirror.events;
    },
    get state() {
      return mirror.state;
    },
    waitFor: async (pred, afterSeq) => {
      await mirror.waitForEvent(pred, afterSeq);
    },
  };
}

export async function watchMeeting(
  conn: DaemonConnection,
  meetingId: string,
  onEvent: (e: MeetingEvent) => void = () => undefined,
): Promise<MeetingWatch> {
  return watchOf(await conn.follow(meetingId, { deliver: onEvent }));
}
