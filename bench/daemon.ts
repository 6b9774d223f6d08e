/**
 * Benchmarks through the real daemon (sql.js store with fsynced journal, WebSocket API): engine
 * overhead per turn, live fan-out latency to 50 subscribers, and 100 concurrent meetings.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { DaemonEvents, MeetingEvent, StartMeetingParams } from '@roundtable/protocol';
import { fold } from '@roundtable/protocol';
import { connectDaemon } from '@roundtable/client';
import { startDaemon, type DaemonHandle } from '../daemon/src/daemon/daemon';
import type { ChatProvider } from '../daemon/src/providers/types';
import { panelOf, scriptFor } from './meetings';

export async function withDaemon<T>(
  fn: (d: DaemonHandle) => Promise<T>,
  wrapProvider?: (p: ChatProvider) => ChatProvider,
): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rt-bench-daemon-'));
  const d = await startDaemon({
    dataDir: dir,
    port: 0,
    log: () => undefined,
    env: {},
    ...(wrapProvider ? { wrapProvider } : {}),
  });
  try {
    return await fn(d);
  } finally {
    await d.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

function params(
  workers: number,
  rounds: number,
  script: unknown,
  order: 'parallel' | 'sequential' = 'parallel',
): StartMeetingParams {
  return {
    topic: 'bench',
    mode: 'roundtable',
    participants: panelOf(workers),
    config: { maxRounds: rounds, tokenBudget: 10_000_000, order, timeLimitMs: 3_600_000 },
    providers: { script },
  };
}

/** Resolves when the manager has appended the digest of every meeting in `ids`. */
function allDone(d: DaemonHandle, ids: Set<string>): Promise<void> {
  return new Promise((resolve) => {
    const done = new Set<string>();
    const off = d.manager.onEvent((e) => {
      if (e.type === 'digest_ready' && ids.has(e.meetingId)) {
        done.add(e.meetingId);
        if (done.size === ids.size) {
          off();
          resolve();
        }
      }
    });
  });
}

export interface Overhead {
  turns: number;
  /** Per turn, everything but the model call: prompts, stance parsing, fsynced appends, fan-out. */
  medianMs: number;
  p99Ms: number;
  /** The same including the scripted model's own work (it counts prompt tokens with the tokenizer). */
  medianWithModelMs: number;
  eventsPerSec: number;
  wallMs: number;
}

/**
 * 10,000 worker turns with zero-delay replies (10 meetings × 10 workers × 100 rounds, run one
 * meeting at a time, sequential order) through the real daemon and store. A turn is the time from
 * the previous turn's stance (or the round start) to its own stance; its overhead is that minus
 * the time spent inside the model call (the scripted model answers at once, but estimates its
 * usage with the tokenizer, which a real server does for us).
 */
export async function benchOverhead(meetings = 10, workers = 10, rounds = 100): Promise<Overhead> {
  let inModel = 0;
  const timed = (inner: ChatProvider): ChatProvider => ({
    id: inner.id,
    chat: async (req) => {
      const t = performance.now();
      try {
        return await inner.chat(req);
      } finally {
        inModel += performance.now() - t;
      }
    },
    ...(inner.resumeFrom ? { resumeFrom: inner.resumeFrom.bind(inner) } : {}),
  });
  return withDaemon(async (d) => {
    const last = new Map<string, { t: number; model: number }>();
    const perTurn: number[] = [];
    const perTurnWithModel: number[] = [];
    let events = 0;
    d.manager.onEvent((e) => {
      events++;
      const now = performance.now();
      if (e.type === 'round_started') last.set(e.meetingId, { t: now, model: inModel });
      if (e.type === 'stance_recorded') {
        const prev = last.get(e.meetingId) ?? { t: now, model: inModel };
        perTurnWithModel.push(now - prev.t);
        perTurn.push(now - prev.t - (inModel - prev.model));
        last.set(e.meetingId, { t: now, model: inModel });
      }
    });
    const conn = await connectDaemon(d.port, d.token);
    const t0 = performance.now();
    for (let i = 0; i < meetings; i++) {
      // Subscribe to "done" before starting, so a fast meeting cannot finish unseen.
      let finished: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (finished = resolve));
      let id = '';
      const off = d.manager.onEvent((e) => {
        if (e.type === 'digest_ready' && e.meetingId === id) finished();
      });
      id = (
        await conn.rpc.request('meeting/start', params(workers, rounds, scriptFor(workers, rounds, 60), 'sequential'))
      ).meetingId;
      await done;
      off();
    }
    const wallMs = performance.now() - t0;
    await conn.close();
    return {
      turns: perTurn.length,
      medianMs: round2(percentile(perTurn, 50)),
      p99Ms: round2(percentile(perTurn, 99)),
      medianWithModelMs: round2(percentile(perTurnWithModel, 50)),
      eventsPerSec: Math.round(events / (wallMs / 1000)),
      wallMs: Math.round(wallMs),
    };
  }, timed);
}

export interface FanOut {
  subscribers: number;
  deliveries: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  missing: number;
}

/**
 * 50 WebSocket subscribers on one meeting: latency from the moment the store acknowledges an
 * event (it is durable and handed to the fan-out) to its receipt by each subscriber. Live events
 * only, not the history sent on subscribe. The scripted model reports usage approximately here,
 * so the tokenizer's CPU does not stand in for a remote model's time in the daemon's own loop.
 */
export async function benchFanOut(subscribers = 50): Promise<FanOut> {
  return withDaemon(async (d) => {
    const acknowledgedAt = new Map<number, number>();
    let meetingId = '';
    let liveFrom = Number.POSITIVE_INFINITY;
    d.manager.onEvent((e) => {
      if (e.meetingId === meetingId) acknowledgedAt.set(e.seq, performance.now());
    });
    const latencies: number[] = [];
    const received: number[][] = [];
    const clients = await Promise.all(
      Array.from({ length: subscribers }, async (_, i) => {
        received[i] = [];
        return connectDaemon(d.port, d.token, {
          onEvent: <K extends keyof DaemonEvents>(method: K, p: DaemonEvents[K]) => {
            if (method !== 'room/event') return;
            const e = (p as DaemonEvents['room/event']).event;
            const at = acknowledgedAt.get(e.seq);
            if (at !== undefined && at >= liveFrom) latencies.push(performance.now() - at);
            received[i]?.push(e.seq);
          },
        });
      }),
    );
    const host = clients[0];
    if (!host) throw new Error('no client');
    const script = { ...(scriptFor(5, 6, 60, [30, 30, 30, 30, 30]) as object), usage: 'approximate' };
    const started = await host.rpc.request('meeting/start', params(5, 6, script));
    meetingId = started.meetingId;
    await Promise.all(clients.map((c) => c.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 })));
    liveFrom = performance.now();
    await allDone(d, new Set([meetingId]));
    await new Promise((r) => setTimeout(r, 300));
    const total = (await d.manager.events(meetingId, 0)).length;
    const missing = received.reduce((n, seqs) => n + (total - new Set(seqs).size), 0);
    await Promise.all(clients.map((c) => c.close()));
    return {
      subscribers,
      deliveries: latencies.length,
      p50Ms: round2(percentile(latencies, 50)),
      p99Ms: round2(percentile(latencies, 99)),
      maxMs: round2(Math.max(...latencies)),
      missing,
    };
  });
}

export interface Scale {
  meetings: number;
  workers: number;
  singleMeetingMs: number;
  allMeetingsMs: number;
  ratio: number;
  peakRssMB: number;
  eventsTotal: number;
  lostEvents: number;
  unfinished: number;
}

/** 100 concurrent meetings of 5 workers (50 ms per reply) in one daemon, against one alone. */
export async function benchScale(meetings = 100, workers = 5, rounds = 4): Promise<Scale> {
  const script = scriptFor(
    workers,
    rounds,
    60,
    Array.from({ length: workers }, () => 50),
  );
  const run = (count: number) =>
    withDaemon(async (d) => {
      const conn = await connectDaemon(d.port, d.token);
      let peak = process.memoryUsage().rss;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25);
      const t0 = performance.now();
      const ids: string[] = [];
      const received = new Map<string, MeetingEvent[]>();
      const done = new Promise<void>((resolve) => {
        let closed = 0;
        d.manager.onEvent((e) => {
          const list = received.get(e.meetingId) ?? [];
          list.push(e);
          received.set(e.meetingId, list);
          if (e.type === 'digest_ready' && ++closed === count) resolve();
        });
      });
      await Promise.all(
        Array.from({ length: count }, async () => {
          const { meetingId } = await conn.rpc.request('meeting/start', params(workers, rounds, script));
          ids.push(meetingId);
        }),
      );
      await done;
      const ms = performance.now() - t0;
      clearInterval(sampler);
      let lost = 0;
      let total = 0;
      let unfinished = 0;
      for (const id of ids) {
        const stored = await d.manager.events(id, 0);
        total += stored.length;
        const seqs = stored.map((e) => e.seq);
        if (seqs.some((s, i) => s !== i + 1)) lost++;
        // Every event the engine announced is in the store.
        lost += (received.get(id) ?? []).filter((e) => !stored.some((x) => x.seq === e.seq)).length;
        if (!fold(stored).digest) unfinished++;
      }
      await conn.close();
      return { ms, peak, total, lost, unfinished };
    });
  const single = await run(1);
  const all = await run(meetings);
  return {
    meetings,
    workers,
    singleMeetingMs: Math.round(single.ms),
    allMeetingsMs: Math.round(all.ms),
    ratio: round2(all.ms / single.ms),
    peakRssMB: Math.round(all.peak / 2 ** 20),
    eventsTotal: all.total,
    lostEvents: all.lost,
    unfinished: all.unfinished,
  };
}
