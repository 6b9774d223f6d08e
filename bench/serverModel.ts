/**
 * The server a bench meeting runs on (its prefix cache, how long a call takes) and the floor of a
 * round's wall time on it.
 */
import type { MeetingEvent } from '@roundtable/protocol';
import { latencyOf, type LatencyModel, type PrefixCacheOptions } from '../test/fakes/openaiServer';

/** Milliseconds per call on a server with no latency model. */
export const LATENCY_MS = 300;

/** Both rooms run on servers with OpenAI's prefix cache: 1,024-token minimum, 128-token blocks. */
export const CACHE = { minTokens: 1_024, blockTokens: 128 };

/** The server both rooms run on: its prefix cache, and how long a call takes. */
export interface ServerModel {
  cache: PrefixCacheOptions;
  /** A real server's prefill and decode; without it every call takes `LATENCY_MS`. */
  latency?: LatencyModel;
}
/** An OpenAI-like API: OpenAI's cache rule, a flat 300 ms per call. */
export const HOSTED: ServerModel = { cache: CACHE };

/** Milliseconds a call with this usage takes on `server` (the server's own figure, before any overhead). */
export function callMsOn(
  server: ServerModel,
  u: { promptTokens: number; cachedTokens?: number; completionTokens: number },
): number {
  if (!server.latency) return LATENCY_MS;
  const t = latencyOf(server.latency, u);
  return t.firstTokenMs + t.decodeMs;
}

export type Stamp = { e: MeetingEvent; t: number };

/**
 * Per round, its wall time (from its start to the next round's, or the close) and the floor no
 * engine can beat on `server`: the slowest worker (its turn, and a follow-up that waits on it)
 * plus the slowest call that waits on every worker (the judge's review, a compaction beside it).
 * A call belongs to the round in which it was recorded; the briefing and the digest to none.
 */
export function roundFloors(stamps: Stamp[], server: ServerModel) {
  const starts = stamps.filter((x) => x.e.type === 'round_started').map((x) => x.t);
  const closedAt = stamps.find((x) => x.e.type === 'meeting_closed')?.t ?? performance.now();
  const workers = starts.map(() => new Map<string, number>());
  const after = starts.map(() => 0);
  let outsideMs = 0;
  for (const { e, t } of stamps) {
    if (e.type !== 'usage_recorded') continue;
    const ms = callMsOn(server, e.usage);
    const k = t >= closedAt ? -1 : starts.filter((start) => start <= t).length - 1;
    if (k < 0) outsideMs += ms;
    else if (e.role === 'worker') workers[k]?.set(e.participant, (workers[k]?.get(e.participant) ?? 0) + ms);
    else after[k] = Math.max(after[k] ?? 0, ms);
  }
  return {
    roundMs: starts.map((t, i) => (starts[i + 1] ?? closedAt) - t),
    roundFloorMs: starts.map((_, k) => Math.max(0, ...(workers[k]?.values() ?? [])) + (after[k] ?? 0)),
    outsideMs,
  };
}
