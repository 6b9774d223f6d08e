/**
 * First-come, first-served concurrency limit per key (a model endpoint). A meeting with many
 * workers queues behind its own calls instead of taking every slot, so other meetings on the
 * same endpoint keep moving.
 */
export class KeyedLimiter {
  private readonly active = new Map<string, number>();
  private readonly queues = new Map<string, (() => void)[]>();

  constructor(private readonly limitFor: (key: string) => number) {}

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const limit = this.limitFor(key);
    if (limit <= 0 || !Number.isFinite(limit)) return fn();
    if ((this.active.get(key) ?? 0) >= limit) {
      // Wait for a slot to be handed over; the releasing call keeps `active` unchanged for us.
      await new Promise<void>((resolve) => {
        const q = this.queues.get(key) ?? [];
        q.push(resolve);
        this.queues.set(key, q);
      });
    } else {
      this.active.set(key, (this.active.get(key) ?? 0) + 1);
    }
    try {
      return await fn();
    } finally {
      const next = this.queues.get(key)?.shift();
      if (next) next();
      else this.active.set(key, (this.active.get(key) ?? 1) - 1);
    }
  }

  /** Calls running now for a key (for tests and diagnostics). */
  inFlight(key: string): number {
    return this.active.get(key) ?? 0;
  }
}
