/**
 * First-come, first-served concurrency limit per key (a model endpoint). A meeting with many
 * workers queues behind its own calls instead of taking every slot, so other meetings on the
 * same endpoint keep moving.
 *
 * A call holds its slot only while it is wanted: when its `signal` aborts (the turn timed out, the
 * meeting was cut) it leaves the queue if it was waiting, and gives its slot up at once if it was
 * running, even when the call itself has not settled yet (a provider that ignores the abort, a
 * server that hangs): the run then rejects with the abort's reason and what the call brings
 * later is dropped. So a hanging model holds a slot, and its caller, no longer than its turn timeout.
 */
import { untilAborted } from '../providers/openaiErrors';

export class KeyedLimiter {
  private readonly active = new Map<string, number>();
  private readonly queues = new Map<string, (() => void)[]>();

  constructor(private readonly limitFor: (key: string) => number) {}

  async run<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const limit = this.limitFor(key);
    if (limit <= 0 || !Number.isFinite(limit)) return fn();
    await this.acquire(key, limit, signal);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      signal?.removeEventListener('abort', release);
      const next = this.queues.get(key)?.shift();
      // The slot is handed over as it is: `active` stays unchanged for the next call.
      if (next) next();
      else this.active.set(key, (this.active.get(key) ?? 1) - 1);
    };
    signal?.addEventListener('abort', release, { once: true });
    try {
      return await (signal ? untilAborted(fn(), signal, () => abortError(signal)) : fn());
    } finally {
      release();
    }
  }

  /** Takes a slot, waiting in line for one when all are taken; rejects if `signal` aborts first. */
  private acquire(key: string, limit: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if ((this.active.get(key) ?? 0) < limit) {
      this.active.set(key, (this.active.get(key) ?? 0) + 1);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const q = this.queues.get(key) ?? [];
      const onAbort = (): void => {
        const i = q.indexOf(handOver);
        if (i >= 0) q.splice(i, 1);
        reject(abortError(signal));
      };
      const handOver = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      q.push(handOver);
      this.queues.set(key, q);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Calls running now for a key (for tests and diagnostics). */
  inFlight(key: string): number {
    return this.active.get(key) ?? 0;
  }

  /** Calls waiting for a slot of a key. */
  waiting(key: string): number {
    return this.queues.get(key)?.length ?? 0;
  }
}

function abortError(signal: AbortSignal | undefined): Error {
  const r: unknown = signal?.reason;
  return r instanceof Error ? r : new Error('the call was aborted while it waited for a slot');
}
