import type { EventBody, MeetingEvent } from '@roundtable/protocol';
import { checkEvent } from '@roundtable/protocol';

/**
 * Where meeting logs live. The store is the single writer: it assigns each event its `seq`
 * and time, and `append` resolves only once the event is durable.
 */
export interface EventStore {
  append(meetingId: string, body: EventBody): Promise<MeetingEvent>;
  /** Events of a meeting with `seq > sinceSeq`, in order. */
  load(meetingId: string, sinceSeq?: number): Promise<MeetingEvent[]>;
  /** Ids of all meetings, oldest first. */
  meetings(): Promise<string[]>;
  /** Forgets a meeting's whole log; resolves once no copy on disk holds it any more. */
  remove(meetingId: string): Promise<void>;
  /** Meetings set aside at start-up (kept on disk, not loaded), each with where and why in one line. */
  quarantined?(): QuarantinedMeeting[];
}

export interface QuarantinedMeeting {
  meetingId: string;
  /** "journal.3.ndjson line 5: event 5 (usage_recorded): …" */
  why: string;
  /** From its opening record, where that one was readable. */
  topic?: string;
  createdAt?: number;
}

/**
 * An event the reader would refuse (a figure that is not a whole number, a field of the wrong
 * shape): the store never writes it, so a log is always readable back. Nothing was appended.
 */
export class StoreRecordError extends Error {
  override name = 'StoreRecordError';
}

/** The meeting was quarantined at start-up: it is kept on disk, and neither loaded nor appended to. */
export class StoreQuarantinedError extends Error {
  override name = 'StoreQuarantinedError';
}

/** The event the store would write, or the one-line error that refuses it (checked by the reader's own rules). */
export function checkAppend(event: MeetingEvent): StoreRecordError | undefined {
  const c = checkEvent(event);
  return c.ok
    ? undefined
    : new StoreRecordError(`the store refused an event of meeting ${event.meetingId}: ${c.error}`);
}

/**
 * An append the store could not write (the disk is full, an I/O error): nothing of it was
 * acknowledged, and the store stays open, so the same append may succeed later.
 */
export class StoreWriteError extends Error {
  override name = 'StoreWriteError';
}
