/**
 * How many model calls an endpoint takes at once, and whose call goes next.
 *
 * The limit of an endpoint is as many calls as the largest round of the meetings calling it
 * needs (every worker of a round at once: the meeting's `demand`), lowered only by what the
 * server reports (llama.cpp's `total_slots`, see `setServerSlots`) or by the daemon's setting
 * (`limitFor`). Hosted endpoints and local servers queue requests themselves: the limit keeps a
 * meeting from flooding a server, not a round from running at once.
 *
 * The slots are shared fairly between the meetings (owners) calling an endpoint: while others
 * call it too, a meeting is sure of its share (the limit over the number of meetings calling,
 * at least one) and takes more only while slots are free; a freed slot goes to the waiting
 * meeting with the fewest calls under way. A meeting below its share starts its call at once,
 * even when the endpoint is full: calls already running cannot be taken back, and a meeting
 * whose model hangs may hold every slot until its turn timeout, so a newcomer waiting for them
 * would wait that long. The endpoint then carries up to twice its limit for a moment (the
 * server queues what it cannot run); a hanging model slows only its own meeting.
 *
 * A call holds its slot only while it is wanted: when its `signal` aborts (the turn timed out, the
 * meeting was cut) it leaves the queue if it was waiting, and gives its slot up at once if it was
 * running, even when the call itself has not settled yet (a provider that ignores the abort, a
 * server that hangs): the run then rejects with the abort's reason and what the call brings
 * later is dropped. So a hanging model holds a slot, and its caller, no longer than its turn timeout.
 */
import type { Participant } from '@roundtable/protocol';
import type { EngineDeps } from '../meeting/ports';
import { untilAborted } from '../providers/openaiErrors';
import type { ChatProvider } from '../providers/types';

/** Who makes a call: its meeting, and how many calls that meeting's largest round makes at once here. */
export interface Caller {
  owner: string;
  demand: number;
}

interface Waiter {
  owner: string;
  /** Arrival order, for ties between owners with as many calls under way. */
  seq: number;
  start: () => void;
}

interface Lane {
  running: number;
  waiting: number;
  demand: number;
}

interface Endpoint {
  lanes: Map<string, Lane>;
  queue: Waiter[];
  running: number;
  slots?: number;
}

/** A caller that says nothing of itself: one lane, limited by the setting alone. */
const ANONYMOUS: Caller = { owner: '', demand: Infinity };

export class KeyedLimiter {
  private readonly endpoints = new Map<string, Endpoint>();
  private seq = 0;

  /**
   * `limitFor(key)`: the daemon's ceiling for an endpoint (`Infinity`: none; `0` or less: the key
   * is not limited at all, e.g. VS Code's models, which the window schedules).
   */
  constructor(private readonly limitFor: (key: string) => number) {}

  /** The server behind `key` runs at most `slots` requests at once (llama.cpp's `total_slots`). */
  setServerSlots(key: string, slots: number): void {
    this.endpoint(key).slots = slots;
    this.pump(key);
  }

  /** How many calls `key` takes at once now (Infinity: no limit applies). */
  limit(key: string): number {
    const e = this.endpoints.get(key);
    const demand = e ? Math.max(0, ...[...e.lanes.values()].map((l) => l.demand)) : 0;
    const ceiling = this.limitFor(key);
    return Math.max(1, Math.min(ceiling, e?.slots ?? Infinity, demand || Infinity));
  }

  async run<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal, caller: Caller = ANONYMOUS): Promise<T> {
    if (this.limitFor(key) <= 0) return fn();
    await this.acquire(key, caller, signal);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      signal?.removeEventListener('abort', release);
      this.leave(key, caller.owner, 'running');
    };
    signal?.addEventListener('abort', release, { once: true });
    try {
      return await (signal ? untilAborted(fn(), signal, () => abortError(signal)) : fn());
    } finally {
      release();
    }
  }

  /** Calls running now for a key (of one owner when given). */
  inFlight(key: string, owner?: string): number {
    const e = this.endpoints.get(key);
    if (!e) return 0;
    return owner === undefined ? e.running : (e.lanes.get(owner)?.running ?? 0);
  }

  /** Calls waiting for a slot of a key (of one owner when given). */
  waiting(key: string, owner?: string): number {
    const e = this.endpoints.get(key);
    if (!e) return 0;
    return owner === undefined ? e.queue.length : (e.lanes.get(owner)?.waiting ?? 0);
  }

  /** Takes a slot, waiting in line for one when the owner may not start now; rejects if `signal` aborts first. */
  private acquire(key: string, caller: Caller, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const e = this.endpoint(key);
    const lane = e.lanes.get(caller.owner) ?? { running: 0, waiting: 0, demand: caller.demand };
    lane.demand = caller.demand;
    e.lanes.set(caller.owner, lane);
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const i = e.queue.indexOf(waiter);
        if (i >= 0) e.queue.splice(i, 1);
        this.leave(key, caller.owner, 'waiting');
        reject(abortError(signal));
      };
      const waiter: Waiter = {
        owner: caller.owner,
        seq: this.seq++,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      // In line first, so the share counts this meeting; started at once when it may.
      lane.waiting++;
      e.queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pump(key);
    });
  }

  /**
   * The endpoint's limit now, each calling meeting's share of it, and how many calls the
   * meetings over their share hold beyond it (slots a meeting below its share may go past the
   * limit for: they cannot be taken back).
   */
  private measure(key: string, e: Endpoint): { limit: number; share: number; excess: number } {
    const limit = this.limit(key);
    const calling = [...e.lanes.values()].filter((l) => l.running > 0 || l.waiting > 0);
    const share = Math.max(1, Math.floor(limit / Math.max(1, calling.length)));
    const excess = calling.reduce((n, l) => n + Math.max(0, l.running - share), 0);
    return { limit, share, excess };
  }

  /** A call of `owner` stopped running or waiting: its lane shrinks, and the line may move. */
  private leave(key: string, owner: string, from: 'running' | 'waiting'): void {
    const e = this.endpoints.get(key);
    const lane = e?.lanes.get(owner);
    if (!e || !lane) return;
    if (from === 'running') {
      lane.running--;
      e.running--;
    } else lane.waiting--;
    if (lane.running === 0 && lane.waiting === 0) e.lanes.delete(owner);
    this.pump(key);
  }

  /**
   * Starts the waiting calls that may start, one at a time, the meeting with the fewest calls
   * under way first (then the earliest): any while the endpoint has a free slot; past the limit,
   * only a meeting below its share while others hold more than theirs.
   */
  private pump(key: string): void {
    const e = this.endpoints.get(key);
    if (!e) return;
    for (;;) {
      const { limit, share, excess } = this.measure(key, e);
      const runs = (w: Waiter) => e.lanes.get(w.owner)?.running ?? 0;
      const may = (w: Waiter) => e.running < limit || (runs(w) < share && e.running < limit + excess);
      let next: Waiter | undefined;
      for (const w of e.queue) {
        if (!may(w)) continue;
        if (!next || runs(w) < runs(next) || (runs(w) === runs(next) && w.seq < next.seq)) next = w;
      }
      if (!next) break;
      e.queue.splice(e.queue.indexOf(next), 1);
      const lane = e.lanes.get(next.owner);
      if (lane) {
        lane.waiting--;
        lane.running++;
      }
      e.running++;
      next.start();
    }
    if (e.queue.length === 0 && e.running === 0 && e.slots === undefined) this.endpoints.delete(key);
  }

  private endpoint(key: string): Endpoint {
    let e = this.endpoints.get(key);
    if (!e) this.endpoints.set(key, (e = { lanes: new Map(), queue: [], running: 0 }));
    return e;
  }
}

function abortError(signal: AbortSignal | undefined): Error {
  const r: unknown = signal?.reason;
  return r instanceof Error ? r : new Error('the call was aborted while it waited for a slot');
}

/**
 * How one meeting's model calls go through the limiter: as that meeting, with as many calls at
 * once as its round makes on the endpoint (its workers there; the judge's review and a compaction
 * run two at once), and with the slots the server reports, asked once per server before its
 * first call. Seats an agent attaches are not limited (the agent answers for itself).
 */
export function meetingSchedule(
  limiter: KeyedLimiter,
  meetingId: string,
  participants: readonly Participant[],
  lookup: (p: Participant) => ChatProvider,
): NonNullable<EngineDeps['schedule']> {
  const rounds = new Map<string, number>();
  const roundOn = (key: string): number => {
    let n = rounds.get(key);
    if (n === undefined) {
      const here = participants.filter((p) => p.provider !== 'attached' && idOf(lookup, p) === key);
      const workers = here.filter((p) => p.role === 'worker').length;
      rounds.set(key, (n = Math.max(1, workers, here.length - workers)));
    }
    return n;
  };
  return async (p, call, signal) => {
    if (p.provider === 'attached') return call();
    const provider = lookup(p);
    const slots = await provider.serverSlots?.(signal);
    if (slots !== undefined) limiter.setServerSlots(provider.id, slots);
    return limiter.run(provider.id, call, signal, { owner: meetingId, demand: roundOn(provider.id) });
  };
}

/** The endpoint a participant is called on; undefined for one the lookup refuses (its call fails on its own). */
function idOf(lookup: (p: Participant) => ChatProvider, p: Participant): string | undefined {
  try {
    return lookup(p).id;
  } catch {
    return undefined;
  }
}
