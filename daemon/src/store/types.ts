import type { EventBody, MeetingEvent } from '@roundtable/protocol';

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
}

/**
 * An append the store could not write (the disk is full, an I/O error): nothing of it was
 * acknowledged, and the store stays open, so the same append may succeed later.
 */
export class StoreWriteError extends Error {
  override name = 'StoreWriteError';
}
