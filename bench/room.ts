/**
 * The room webview on a long meeting: the real `webview/src/room.ts` in jsdom (test/fakes/roomView),
 * fed a scripted 5-worker roundtable event by event as the extension relays it, one frame per event
 * (the worst case: a burst coalesces into one frame). Per event once 300 messages are shown: time,
 * DOM nodes added / removed / changed, and bytes written with `setState`; the same at 30 messages
 * (the ratio shows what grows with the room); then a whole replay: a fresh view, and a view reloaded
 * from its saved state while the extension sends what it asks for (as extension/src/roomView.ts).
 */
import { performance } from 'node:perf_hooks';
import { answerReady, loadRoom, longMeeting, type RoomView } from '../test/fakes/roomView';

export interface RoomPerEvent {
  messages: number;
  events: number;
  medianMs: number;
  meanMs: number;
  domAddedPerEvent: number;
  domRemovedPerEvent: number;
  domChangedPerEvent: number;
  entriesRenderedPerEvent: number;
  setStateBytesPerEvent: number;
}

/**
 * The same bench at c9d6aa7, before the room rendered incrementally (the view saved its whole log
 * on every event and rebuilt every timeline entry), printed beside each run.
 */
export const ROOM_BEFORE: Omit<RoomBench, 'totalEvents' | 'totalMessages' | 'reloadSameText'> & { commit: string } = {
  commit: 'c9d6aa7',
  at30: {
    messages: 30,
    events: 34,
    medianMs: 11.09,
    meanMs: 14.6,
    domAddedPerEvent: 13.29,
    domRemovedPerEvent: 0,
    domChangedPerEvent: 3.71,
    entriesRenderedPerEvent: 34.09,
    setStateBytesPerEvent: 25509.65,
  },
  at300: {
    messages: 300,
    events: 34,
    medianMs: 45.06,
    meanMs: 55.54,
    domAddedPerEvent: 13.29,
    domRemovedPerEvent: 0,
    domChangedPerEvent: 3.71,
    entriesRenderedPerEvent: 305.09,
    setStateBytesPerEvent: 222047.82,
  },
  freshReplayMs: 14494.07,
  reloadReplayMs: 4556.3,
  savedStateBytes: 236882,
};

export interface RoomBench {
  totalEvents: number;
  totalMessages: number;
  at30: RoomPerEvent;
  at300: RoomPerEvent;
  /** A fresh view sent the whole log, rendered in one frame. */
  freshReplayMs: number;
  /** A view reloaded from its saved state, the extension sending what it asks for. */
  reloadReplayMs: number;
  reloadSameText: boolean;
  savedStateBytes: number;
}

const textOf = (v: RoomView): string => v.root.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const round2 = (x: number): number => Math.round(x * 100) / 100;

function summarise(
  samples: { ms: number; added: number; removed: number; changed: number; entries: number; bytes: number }[],
) {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const mean = (f: (s: (typeof samples)[number]) => number) =>
    round2(samples.reduce((t, s) => t + f(s), 0) / Math.max(1, samples.length));
  return {
    events: samples.length,
    medianMs: round2(ms[Math.floor(ms.length / 2)] ?? 0),
    meanMs: mean((s) => s.ms),
    domAddedPerEvent: mean((s) => s.added),
    domRemovedPerEvent: mean((s) => s.removed),
    domChangedPerEvent: mean((s) => s.changed),
    entriesRenderedPerEvent: mean((s) => s.entries),
    setStateBytesPerEvent: mean((s) => s.bytes),
  };
}

export async function benchRoom(): Promise<RoomBench> {
  const log = await longMeeting(64);
  const meetingId = log[0]?.meetingId ?? '';
  const view = loadRoom();
  view.send({ type: 'room/reset', meetingId });
  view.flush();
  view.takeWork();
  type Sample = { ms: number; added: number; removed: number; changed: number; entries: number; bytes: number };
  const near30: Sample[] = [];
  const near300: Sample[] = [];
  let messages = 0;
  for (const event of log) {
    const writes = view.stateWrites.length;
    const t0 = performance.now();
    view.send({ type: 'room/event', event });
    view.flush();
    const ms = performance.now() - t0;
    const w = view.takeWork();
    const bytes = view.stateWrites.slice(writes).reduce((t, s) => t + s.length, 0);
    if (event.type === 'message_posted') messages++;
    const sample = { ms, ...w, bytes };
    if (messages >= 30 && messages < 40) near30.push(sample);
    if (messages >= 300 && messages < 310) near300.push(sample);
  }
  const fullText = textOf(view);

  let t0 = performance.now();
  const fresh = loadRoom();
  answerReady(fresh, log);
  fresh.flush();
  const freshReplayMs = performance.now() - t0;

  const saved = view.state();
  t0 = performance.now();
  const reloaded = loadRoom(saved);
  answerReady(reloaded, log);
  reloaded.flush();
  const reloadReplayMs = performance.now() - t0;

  return {
    totalEvents: log.length,
    totalMessages: messages,
    at30: { messages: 30, ...summarise(near30) },
    at300: { messages: 300, ...summarise(near300) },
    freshReplayMs: round2(freshReplayMs),
    reloadReplayMs: round2(reloadReplayMs),
    reloadSameText: textOf(reloaded) === fullText && textOf(fresh) === fullText,
    savedStateBytes: JSON.stringify(saved ?? null).length,
  };
}

/** The walk bench at b0fb46d, before an event stopped walking the whole timeline (same counter, added there). */
export const ROOM_WALK_BEFORE: Omit<RoomWalk, 'totalEvents' | 'totalMessages'> & { commit: string } = {
  commit: 'b0fb46d',
  at: [
    { messages: 100, events: 33, visitedPerEvent: 308.18, medianMs: 1.16 },
    { messages: 300, events: 33, visitedPerEvent: 918.82, medianMs: 7.45 },
    { messages: 1000, events: 33, visitedPerEvent: 3010.55, medianMs: 18.44 },
  ],
  visitedRatio: 9.77,
  replayMs: 44047.88,
};

/** Per event near a number of messages shown: timeline entries and keys visited, and time. */
export interface RoomWalkAt {
  messages: number;
  events: number;
  visitedPerEvent: number;
  medianMs: number;
}

export interface RoomWalk {
  totalMessages: number;
  totalEvents: number;
  at: RoomWalkAt[];
  /** Entries visited per event at 1000 messages over at 100: 10 when an event walks the whole timeline. */
  visitedRatio: number;
  /** The whole meeting replayed into a fresh view, one frame per event (quadratic when each walks it all). */
  replayMs: number;
}

/**
 * The same one-frame-per-event replay on a meeting of about 1,100 messages: what an event costs the
 * timeline near 100, 300 and 1,000 messages (entries and keys it visits, counted; and its time).
 */
export async function benchRoomWalk(): Promise<RoomWalk> {
  // The daemon allows 100 rounds: 11 workers make it 1,100 contributions.
  const log = await longMeeting(100, 11);
  const view = loadRoom();
  view.send({ type: 'room/reset', meetingId: log[0]?.meetingId ?? '' });
  view.flush();
  view.takeWork();
  const marks = [100, 300, 1000];
  const samples = new Map<number, { ms: number; visited: number }[]>(marks.map((m) => [m, []]));
  let messages = 0;
  const t0 = performance.now();
  for (const event of log) {
    const t = performance.now();
    view.send({ type: 'room/event', event });
    view.flush();
    const ms = performance.now() - t;
    const { visited } = view.takeWork();
    if (event.type === 'message_posted') messages++;
    const mark = marks.find((m) => messages >= m && messages < m + 10);
    if (mark !== undefined) samples.get(mark)?.push({ ms, visited });
  }
  const replayMs = performance.now() - t0;
  const at = marks.map((m) => {
    const s = samples.get(m) ?? [];
    const ms = s.map((x) => x.ms).sort((a, b) => a - b);
    return {
      messages: m,
      events: s.length,
      visitedPerEvent: round2(s.reduce((t, x) => t + x.visited, 0) / Math.max(1, s.length)),
      medianMs: round2(ms[Math.floor(ms.length / 2)] ?? 0),
    };
  });
  const v = (m: number): number => at.find((x) => x.messages === m)?.visitedPerEvent ?? 0;
  return {
    totalMessages: messages,
    totalEvents: log.length,
    at,
    visitedRatio: round2(v(1000) / Math.max(1, v(100))),
    replayMs: round2(replayMs),
  };
}
