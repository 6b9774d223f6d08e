/**
 * A clock that only moves when the test says so: `advance` fires every timer that falls due, in
 * order. No real time passes, so a test of a time limit neither sleeps nor races.
 */
import type { Clock } from '../../daemon/src/meeting/clock';

export class FakeClock implements Clock {
  private t: number;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 0;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const id = this.nextId++;
    this.timers.push({ at: this.t + Math.max(0, ms), fn, id });
    return () => {
      this.timers = this.timers.filter((x) => x.id !== id);
    };
  }

  /** Timers still armed. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing each timer that falls due in time order. */
  advance(ms: number): void {
    const until = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= until).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = until;
  }
}
