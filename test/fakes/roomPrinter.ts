/** Hand-written events through the CLI's room printer, as a caller's fold would hand them. */
import type { MeetingEvent } from '@roundtable/protocol';
import { evolve, initialState } from '@roundtable/protocol';
import type { RoomPrinter } from '../../cli/src/printer';

/** Numbers the events of meeting `m` from seq 1 and prints each with the state after it. */
export function printFolded(printer: RoomPrinter, events: readonly object[]): void {
  let s = initialState();
  events.forEach((e, i) => {
    const event = { ...e, meetingId: 'm', seq: i + 1, at: 0 } as unknown as MeetingEvent;
    s = evolve(s, event);
    printer.event(event, s);
  });
}
