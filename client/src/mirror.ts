/**
 * One meeting as a client sees it: its events in seq order, its state folded one event at a time
 * (the protocol's `evolve`, never a refold of the whole log), and `waitFor`. The CLI, the MCP
 * server and the extension follow a meeting through a mirror, so the client's only check of the
 * log's order lives here: a duplicate is ignored, a gap is reported to whoever can fetch what is
 * missing (the follower resubscribes) and never applied.
 */
import type { MeetingEvent, MeetingState } from '@roundtable/protocol';
import { evolve, initialState } from '@roundtable/protocol';

export type MirrorListener = (e: MeetingEvent, s: MeetingState) => void;

export interface WaitOptions {
  signal?: AbortSignal;
  /** Rejects after this long (default: waits as long as the meeting runs). */
  timeoutMs?: number;
}

interface Waiter {
  pred: (s: MeetingState, e?: MeetingEvent) => boolean;
  resolve: (s: MeetingState) => void;
  reject: (e: Error) => void;
}

export class MeetingMirror {
  private readonly log: MeetingEvent[] = [];
  private current: MeetingState = initialState();
  private readonly listeners = new Set<MirrorListener>();
  private readonly gapListeners = new Set<(expected: number, got: MeetingEvent) => void>();
  private readonly waiters = new Set<Waiter>();
  private endedWith: string | undefined;

  constructor(
    readonly meetingId: string,
    init: { events?: MeetingEvent[] } = {},
  ) {
    for (const e of init.events ?? []) this.apply(e);
  }

  get events(): readonly MeetingEvent[] {
    return this.log;
  }

  get state(): MeetingState {
    return this.current;
  }

  /** Seq of the last applied event: the cursor a (re)subscription starts from. */
  get lastSeq(): number {
    return this.current.lastSeq;
  }

  /**
   * Applies the next event in order and tells the listeners; false for anything else. An event of
   * another meeting or one already applied is ignored; one after a gap goes to `onGap` instead.
   */
  apply(e: MeetingEvent): boolean {
    if (e.meetingId !== this.meetingId || e.seq <= this.lastSeq) return false;
    if (e.seq !== this.lastSeq + 1) {
      for (const fn of [...this.gapListeners]) fn(this.lastSeq + 1, e);
      return false;
    }
    this.current = evolve(this.current, e);
    this.log.push(e);
    for (const fn of [...this.listeners]) fn(e, this.current);
    for (const w of [...this.waiters]) if (w.pred(this.current, e)) w.resolve(this.current);
    return true;
  }

  /** Every applied event with the state after it; returns the remover. */
  onEvent(fn: MirrorListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** An event arrived after a gap: `expected` is the seq that is missing. Returns the remover. */
  onGap(fn: (expected: number, got: MeetingEvent) => void): () => void {
    this.gapListeners.add(fn);
    return () => this.gapListeners.delete(fn);
  }

  /**
   * Resolves with the state once `pred` holds: at once when it holds for the state now (called
   * without an event), else at the first applied event it holds for. Rejects with one line on
   * abort, timeout, or when the mirror is ended (the connection is gone).
   */
  waitFor(pred: (s: MeetingState, e?: MeetingEvent) => boolean, opts: WaitOptions = {}): Promise<MeetingState> {
    if (pred(this.current)) return Promise.resolve(this.current);
    if (this.endedWith !== undefined) return Promise.reject(new Error(this.endedWith));
    if (opts.signal?.aborted)
      return Promise.reject(new Error(`stopped waiting for meeting ${this.meetingId}: cancelled`));
    return new Promise<MeetingState>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        this.waiters.delete(waiter);
        if (timer) clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        pred,
        resolve: (s) => {
          done();
          resolve(s);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      };
      const onAbort = (): void => waiter.reject(new Error(`stopped waiting for meeting ${this.meetingId}: cancelled`));
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      if (opts.timeoutMs !== undefined) {
        const ms = opts.timeoutMs;
        timer = setTimeout(
          () => waiter.reject(new Error(`meeting ${this.meetingId} did not get there within ${ms} ms`)),
          ms,
        );
      }
      this.waiters.add(waiter);
    });
  }

  /** Resolves at the first event after `afterSeq` that matches, including events already applied. */
  async waitForEvent(
    pred: (e: MeetingEvent) => boolean,
    afterSeq: number,
    opts: WaitOptions = {},
  ): Promise<MeetingState> {
    // Events are contiguous from seq 1, so those after `afterSeq` start at index `afterSeq`.
    return this.waitFor((_s, e) => (e ? e.seq > afterSeq && pred(e) : this.log.slice(afterSeq).some(pred)), opts);
  }

  /** No more events will come (the connection is gone): every pending and later `waitFor` rejects with `reason`. */
  end(reason: string): void {
    this.endedWith ??= reason;
    for (const w of [...this.waiters]) w.reject(new Error(reason));
  }
}
