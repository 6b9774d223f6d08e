import type { EventBody, MeetingEvent } from '@roundtable/protocol';
import { EVENT_SCHEMA_VERSION } from '@roundtable/protocol';
import type { EventStore } from './types';

/** In-process store for the headless CLI and tests; nothing survives the process. */
export class MemoryStore implements EventStore {
  private readonly logs = new Map<string, MeetingEvent[]>();

  constructor(private readonly now: () => number = Date.now) {}

  append(meetingId: string, body: EventBody): Promise<MeetingEvent> {
    let log = this.logs.get(meetingId);
    if (!log) this.logs.set(meetingId, (log = []));
    const event: MeetingEvent = { ...body, meetingId, seq: log.length + 1, at: this.now(), v: EVENT_SCHEMA_VERSION };
    log.push(event);
    return Promise.resolve(event);
  }

  load(meetingId: string, sinceSeq = 0): Promise<MeetingEvent[]> {
    return Promise.resolve((this.logs.get(meetingId) ?? []).slice(sinceSeq));
  }

  meetings(): Promise<string[]> {
    return Promise.resolve([...this.logs.keys()]);
  }

  remove(meetingId: string): Promise<void> {
    this.logs.delete(meetingId);
    return Promise.resolve();
  }
}
