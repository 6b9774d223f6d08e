/**
 * One meeting as a front door holds it: its state and events, each update as it comes, waits,
 * and the person's requests (cut, decide, resolve). Handles are counted per meeting on one
 * connection: two front doors holding the same meeting share one follower and one fold (one
 * `room/subscribe` on the wire), and one that releases does not stop another that still follows.
 * `MeetingHandles.receive` is the one place a `room/event` is routed to its meeting's fold.
 */
import type {
  DaemonMethod,
  MeetingEvent,
  MeetingState,
  MeetingSummary,
  ParamsOf,
  ResultOf,
  RpcClient,
  StartMeetingParams,
} from '@roundtable/protocol';
import { RpcError } from '@roundtable/protocol';
import { LogFollower } from './follower';
import type { WaitOptions } from './mirror';
import { writeMinutes, type WriteMinutesOptions } from './minutesFile';
import { readMeeting } from './readMeeting';

type Rpc = Pick<RpcClient, 'request'>;

/** A request about the handle's meeting: its params without the meeting id. */
type About<M extends DaemonMethod> = Omit<ParamsOf<M>, 'meetingId'>;

/** One applied event and the meeting's state after it. */
export interface MeetingUpdate {
  event: MeetingEvent;
  state: MeetingState;
}

export interface HandleOptions {
  /** Each event applied from now on, in order, with the state after it (registered before any arrives). */
  deliver?: (event: MeetingEvent, state: MeetingState) => void;
}

export interface OpenOptions extends HandleOptions {
  /** Hears the new meeting's id before any of its events is delivered. */
  onStarted?: (meetingId: string) => void;
  /** From `meeting/estimate` with `prepare` on these params (rounds and budget may differ). */
  startToken?: string;
}

export interface MeetingHandle {
  readonly meetingId: string;
  /** The state after the last event, folded one event at a time (the connection's one fold). */
  readonly state: MeetingState;
  /** The log so far, contiguous from seq 1. */
  readonly events: readonly MeetingEvent[];
  /** The log's last seq when this handle attached: events after it are news to its holder. */
  readonly since: number;
  /** Adds a listener for each applied event (removed at release); returns its remover. */
  onUpdate(fn: (event: MeetingEvent, state: MeetingState) => void): () => void;
  /**
   * Every update applied after this call, in order, until the handle is released, the connection
   * is gone, or `signal` aborts (a meeting can log after it closes: break out when done).
   */
  updates(opts?: { signal?: AbortSignal }): AsyncIterableIterator<MeetingUpdate>;
  /**
   * The state once `pred` holds: at once when it holds now (called without an event), else at the
   * first applied event it holds for. Rejects in one line on abort, timeout, release, or when the
   * connection is gone.
   */
  until(pred: (s: MeetingState, e?: MeetingEvent) => boolean, opts?: WaitOptions): Promise<MeetingState>;
  /** The state at the first event after `afterSeq` that matches, including events already applied. */
  untilEvent(pred: (e: MeetingEvent) => boolean, afterSeq: number, opts?: WaitOptions): Promise<MeetingState>;
  /** Ends the meeting at once (`meeting/cut`). */
  cut(reason?: string): Promise<void>;
  /** The person's decision on the digest (`meeting/decide`). */
  decide(p: About<'meeting/decide'>): Promise<ResultOf<'meeting/decide'>>;
  /** The person's answer to an escalation (`meeting/resolve`). */
  resolve(p: About<'meeting/resolve'>): Promise<ResultOf<'meeting/resolve'>>;
  /** Writes the minutes of the meeting as held now into `dir` (the one minutes writer); returns the file. */
  writeMinutes(dir: string, opts?: WriteMinutesOptions): Promise<string>;
  /** Lets go: the last handle of a meeting on this connection unsubscribes. Safe to call twice. */
  release(): Promise<void>;
}

interface Entry {
  follower: LogFollower;
  handles: Set<Handle>;
  /** The log's last seq when subscribed; rejects when the subscription failed. */
  subscribed: Promise<number>;
}

export interface HandlesOptions {
  /** The connection now (the session's reconnects behind it). */
  rpc: () => Promise<Rpc>;
  /** A resubscription after a gap failed (the connection is gone). */
  onError?: (meetingId: string, e: Error) => void;
}

/**
 * With a start token, `meeting/startPrepared`: the daemon opens the meeting on what the estimate
 * read, and neither the topic nor the context travels or is read again. A token the daemon no
 * longer holds (expired, or the connection was replaced) or a daemon without the method falls back
 * to the full `meeting/start`: the person asked for the meeting to start.
 */
async function requestStart(
  rpc: Rpc,
  params: StartMeetingParams,
  startToken: string | undefined,
): Promise<ResultOf<'meeting/start'>> {
  if (startToken) {
    const { maxRounds, tokenBudget } = params.config ?? {};
    try {
      return await rpc.request('meeting/startPrepared', {
        startToken,
        follow: true,
        ...(params.apiKey ? { apiKey: params.apiKey } : {}),
        limits: { ...(maxRounds ? { maxRounds } : {}), ...(tokenBudget ? { tokenBudget } : {}) },
      });
    } catch (e) {
      if (!(e instanceof RpcError) || (e.code !== 'not_found' && e.code !== 'unknown_method')) throw e;
    }
  }
  return rpc.request('meeting/start', { ...params, follow: true });
}

/** The meetings followed on one connection, each once, whatever the number of its holders. */
export class MeetingHandles {
  private readonly entries = new Map<string, Entry>();
  /** `room/event`s that arrive while a `meeting/start` is unanswered: they may be its meeting's. */
  private early: MeetingEvent[] = [];
  private starting = 0;

  constructor(private readonly opts: HandlesOptions) {}

  /** Every `room/event` of the connection comes here, and goes to its meeting's fold. */
  receive(event: MeetingEvent): void {
    const entry = this.entries.get(event.meetingId);
    if (entry) entry.follower.receive(event);
    else if (this.starting > 0) this.early.push(event);
  }

  /** Starts a meeting subscribed in the same request (`follow: true`): no second round trip. */
  async open(params: StartMeetingParams, opts: OpenOptions = {}): Promise<MeetingHandle> {
    const rpc = await this.opts.rpc();
    this.starting++;
    let started: ResultOf<'meeting/start'>;
    try {
      started = await requestStart(rpc, params, opts.startToken);
    } finally {
      this.starting--;
    }
    const { meetingId, lastSeq } = started;
    const early = this.early.filter((e) => e.meetingId === meetingId);
    this.early = this.starting > 0 ? this.early.filter((e) => e.meetingId !== meetingId) : [];
    const entry = this.track(meetingId, Promise.resolve(lastSeq));
    entry.follower.subscribedOn(rpc);
    const handle = new Handle(this, entry, 0, opts.deliver);
    opts.onStarted?.(meetingId);
    for (const e of early) entry.follower.receive(e);
    return handle;
  }

  /** Follows a meeting from its first event; a meeting followed already costs no request. */
  async attach(meetingId: string, opts: HandleOptions = {}): Promise<MeetingHandle> {
    // Connected first: the follower is made (and subscribed) once, on the connection it follows on.
    const rpc = await this.opts.rpc();
    const known = this.entries.get(meetingId);
    const entry = known ?? this.track(meetingId, undefined);
    if (!known) entry.subscribed = entry.follower.attach(rpc);
    entry.subscribed.catch(() => undefined);
    const handle = new Handle(this, entry, entry.follower.cursor, opts.deliver);
    try {
      handle.since = Math.max(handle.since, await entry.subscribed);
    } catch (e) {
      await handle.release();
      throw e;
    }
    return handle;
  }

  /** After a reconnection: every followed meeting resumes from its cursor (nothing lost or doubled). */
  async resume(rpc: Rpc): Promise<void> {
    for (const entry of [...this.entries.values()]) await entry.follower.attach(rpc);
  }

  /** No more events will come: every wait rejects with `reason` and every `updates()` ends. */
  end(reason: string): void {
    for (const entry of this.entries.values()) {
      entry.follower.mirror.end(reason);
      for (const h of entry.handles) h.ended();
    }
  }

  /** A meeting's whole log as it is now (`meeting/get` pages), without following it. */
  async read(meetingId: string): Promise<{ summary: MeetingSummary; events: MeetingEvent[] }> {
    return readMeeting({ rpc: await this.opts.rpc() }, meetingId);
  }

  /** What a meeting on these params is expected to cost (`meeting/estimate`): nothing is started or asked. */
  async estimate(
    params: ParamsOf<'meeting/estimate'>,
    opts: { signal?: AbortSignal } = {},
  ): Promise<ResultOf<'meeting/estimate'>> {
    return (await this.opts.rpc()).request('meeting/estimate', params, opts.signal ? { signal: opts.signal } : {});
  }

  request<M extends DaemonMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    return this.opts.rpc().then((rpc) => rpc.request(method, params));
  }

  private track(meetingId: string, subscribed: Promise<number> | undefined): Entry {
    const onError = this.opts.onError;
    const follower = new LogFollower({ meetingId, ...(onError ? { onError: (e) => onError(meetingId, e) } : {}) });
    const entry: Entry = { follower, handles: new Set(), subscribed: subscribed ?? Promise.resolve(0) };
    this.entries.set(meetingId, entry);
    return entry;
  }

  /** A handle let go; the last one of its meeting stops the follower. */
  async drop(entry: Entry, handle: Handle): Promise<void> {
    entry.handles.delete(handle);
    if (entry.handles.size > 0 || this.entries.get(entry.follower.meetingId) !== entry) return;
    this.entries.delete(entry.follower.meetingId);
    await entry.follower.stop();
  }
}

class Handle implements MeetingHandle {
  private released = false;
  private readonly gone = new AbortController();
  private readonly offs: (() => void)[] = [];

  constructor(
    private readonly owner: MeetingHandles,
    private readonly entry: Entry,
    public since: number,
    deliver: HandleOptions['deliver'],
  ) {
    entry.handles.add(this);
    if (deliver) this.onUpdate(deliver);
  }

  get meetingId(): string {
    return this.entry.follower.meetingId;
  }

  get state(): MeetingState {
    return this.entry.follower.mirror.state;
  }

  get events(): readonly MeetingEvent[] {
    return this.entry.follower.mirror.events;
  }

  onUpdate(fn: (event: MeetingEvent, state: MeetingState) => void): () => void {
    if (this.released) return () => undefined;
    const off = this.entry.follower.mirror.onEvent(fn);
    this.offs.push(off);
    return off;
  }

  updates(opts: { signal?: AbortSignal } = {}): AsyncIterableIterator<MeetingUpdate> {
    return updateStream(this, AbortSignal.any([this.gone.signal, ...(opts.signal ? [opts.signal] : [])]));
  }

  until(pred: (s: MeetingState, e?: MeetingEvent) => boolean, opts: WaitOptions = {}): Promise<MeetingState> {
    return this.entry.follower.mirror.waitFor(pred, this.waitOptions(opts));
  }

  untilEvent(pred: (e: MeetingEvent) => boolean, afterSeq: number, opts: WaitOptions = {}): Promise<MeetingState> {
    return this.entry.follower.mirror.waitForEvent(pred, afterSeq, this.waitOptions(opts));
  }

  async cut(reason?: string): Promise<void> {
    await this.owner.request('meeting/cut', { meetingId: this.meetingId, ...(reason ? { reason } : {}) });
  }

  decide(p: About<'meeting/decide'>): Promise<ResultOf<'meeting/decide'>> {
    return this.owner.request('meeting/decide', { ...p, meetingId: this.meetingId });
  }

  resolve(p: About<'meeting/resolve'>): Promise<ResultOf<'meeting/resolve'>> {
    return this.owner.request('meeting/resolve', { ...p, meetingId: this.meetingId });
  }

  writeMinutes(dir: string, opts: WriteMinutesOptions = {}): Promise<string> {
    return writeMinutes(dir, this.state, opts);
  }

  /** The connection is gone: this handle's streams end. */
  ended(): void {
    this.gone.abort();
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    for (const off of this.offs.splice(0)) off();
    this.gone.abort();
    await this.owner.drop(this.entry, this);
  }

  private waitOptions(opts: WaitOptions): WaitOptions {
    if (this.released) return { ...opts, signal: this.gone.signal };
    return { ...opts, signal: AbortSignal.any([this.gone.signal, ...(opts.signal ? [opts.signal] : [])]) };
  }
}

/** The updates after now, queued until read; done once `stop` aborts and the queue is read. */
function updateStream(handle: Handle, stop: AbortSignal): AsyncIterableIterator<MeetingUpdate> {
  const queue: MeetingUpdate[] = [];
  let read = 0;
  let closed = false;
  let wake: (() => void) | undefined;
  const off = handle.onUpdate((event, state) => {
    queue.push({ event, state });
    wake?.();
  });
  const finish = (): void => {
    closed = true;
    off();
    stop.removeEventListener('abort', finish);
    wake?.();
  };
  if (stop.aborted) finish();
  else stop.addEventListener('abort', finish, { once: true });
  const stream: AsyncIterableIterator<MeetingUpdate> = {
    async next() {
      while (read === queue.length && !closed) await new Promise<void>((r) => (wake = r));
      wake = undefined;
      const value = queue[read];
      if (!value) return { done: true, value: undefined };
      read++;
      // What was read is let go in one step now and then, not shifted one by one.
      if (read > 1024 && read * 2 > queue.length) {
        queue.splice(0, read);
        read = 0;
      }
      return { done: false, value };
    },
    return() {
      finish();
      queue.length = 0;
      read = 0;
      return Promise.resolve({ done: true, value: undefined });
    },
    [Symbol.asyncIterator]() {
      return stream;
    },
  };
  return stream;
}
