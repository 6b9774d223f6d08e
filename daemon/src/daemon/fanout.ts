/**
 * Carries a meeting's log and its streaming text to every connection subscribed to it: logged
 * events in order with no gap or repeat, streaming text coalesced per frame.
 */
import type { MeetingEvent, MessageDelta } from '@roundtable/protocol';
import type { Connection } from './connection';
import type { MeetingManager } from './manager';

/** Streaming text is sent at most this often per message (about one screen frame). */
const DELTA_FLUSH_MS = 16;

export interface Fanout {
  pump(conn: Connection, meetingId: string): Promise<void>;
  /** Sends pending streaming text now. */
  flushDeltas(): void;
  /** Stops listening to the manager; pending text is flushed first. */
  close(): void;
}

export function startFanout(manager: MeetingManager, conns: ReadonlySet<Connection>): Fanout {
  /** Sends a subscriber every event it has not seen, in order, from the store: no gap, no repeat. */
  async function pump(conn: Connection, meetingId: string): Promise<void> {
    const sub = conn.subscriptions.get(meetingId);
    if (!sub) return;
    if (sub.pumping) {
      sub.again = true;
      return;
    }
    sub.pumping = true;
    try {
      do {
        sub.again = false;
        const events = await manager.events(meetingId, sub.lastSent);
        for (const event of events) {
          // The sending side's order, not a gap check on what was received (that is the client's
          // MeetingMirror): a subscriber is sent seq n+1 only after n, or the pump reads on.
          if (conn.subscriptions.get(meetingId) !== sub || event.seq !== sub.lastSent + 1) break;
          conn.event('room/event', { event });
          sub.lastSent = event.seq;
        }
      } while (sub.again);
    } finally {
      sub.pumping = false;
    }
  }

  /**
   * Streaming text is coalesced: pieces of one message and channel (thinking or reply) arriving
   * within a frame time go out as one delta, and pending pieces are always sent before the next
   * logged event, so a view never sees text after the message it belongs to was posted. Each frame is serialized once for all.
   */
  const pendingDeltas = new Map<string, MessageDelta>();
  let deltaTimer: NodeJS.Timeout | undefined;
  function flushDeltas(): void {
    if (deltaTimer) clearTimeout(deltaTimer);
    deltaTimer = undefined;
    for (const d of pendingDeltas.values()) {
      const frame = JSON.stringify({ kind: 'event', method: 'room/delta', params: { delta: d } });
      for (const conn of conns) if (conn.subscriptions.has(d.meetingId)) conn.sendRaw(frame);
    }
    pendingDeltas.clear();
  }

  const unEvent = manager.onEvent((e: MeetingEvent) => {
    if (pendingDeltas.size > 0) flushDeltas();
    let frame: string | undefined;
    for (const conn of conns) {
      const sub = conn.subscriptions.get(e.meetingId);
      if (!sub) continue;
      // Fast path: the next event in order goes straight out; anything else is read from the store.
      if (!sub.pumping && e.seq === sub.lastSent + 1) {
        frame ??= JSON.stringify({ kind: 'event', method: 'room/event', params: { event: e } });
        conn.sendRaw(frame);
        sub.lastSent = e.seq;
      } else if (e.seq > sub.lastSent) {
        void pump(conn, e.meetingId);
      }
    }
  });
  const unDelta = manager.onDelta((d: MessageDelta) => {
    // Thinking and reply are coalesced apart: a piece never takes another piece's channel.
    const key = `${d.meetingId}\u0000${d.messageId}\u0000${d.thinking ? 'thinking' : 'reply'}`;
    const prev = pendingDeltas.get(key);
    pendingDeltas.set(key, prev ? { ...prev, text: prev.text + d.text } : { ...d });
    deltaTimer ??= setTimeout(flushDeltas, DELTA_FLUSH_MS);
  });

  return {
    pump,
    flushDeltas,
    close: () => {
      flushDeltas();
      unEvent();
      unDelta();
    },
  };
}
