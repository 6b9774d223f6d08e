/**
 * Follows one meeting's log from a cursor into a MeetingMirror. The mirror applies events in seq
 * order, each once, and reports a gap (a frame lost, a subscription cut short); on that report the
 * follower does not drop the event silently and wait forever: it resubscribes from the mirror's
 * last seq, and the daemon sends everything after it again from the store.
 */
import type {
  DaemonEventListener,
  MeetingEvent,
  MeetingState,
  RpcClient,
  StartMeetingParams,
} from '@roundtable/protocol';
import { MeetingMirror } from './mirror';

export interface FollowOptions {
  meetingId: string;
  /** Where the log goes; its last seq is the cursor (default: a new mirror, from the start). */
  mirror?: MeetingMirror;
  /** Each event applied, in order, with the meeting's state after it. */
  deliver?: (event: MeetingEvent, state: MeetingState) => void;
  /** A resubscription failed (the connection is gone): the owner reconnects and calls attach(). */
  onError?: (e: Error) => void;
}

export class LogFollower {
  readonly meetingId: string;
  readonly mirror: MeetingMirror;
  private rpc: Pick<RpcClient, 'request'> | undefined;
  private resyncing: Promise<void> | undefined;
  private stopped = false;
  private readonly stops: (() => void)[] = [];
  /** How often a gap made the follower resubscribe (diagnostics and tests). */
  resyncs = 0;

  constructor(private readonly opts: FollowOptions) {
    this.meetingId = opts.meetingId;
    this.mirror = opts.mirror ?? new MeetingMirror(opts.meetingId);
    const deliver = opts.deliver;
    if (deliver) this.stops.push(this.mirror.onEvent(deliver));
    this.stops.push(this.mirror.onGap(() => this.resync()));
  }

  /** Last seq delivered: the cursor a resubscription starts from. */
  get cursor(): number {
    return this.mirror.lastSeq;
  }

  /** Subscribes on a (new) connection from the cursor; returns the log's last seq at that moment. */
  async attach(rpc: Pick<RpcClient, 'request'>): Promise<number> {
    this.rpc = rpc;
    return (await rpc.request('room/subscribe', { meetingId: this.meetingId, sinceSeq: this.cursor })).lastSeq;
  }

  /** True when it follows on this connection already (a second subscribe would be a wasted hop). */
  attachedTo(rpc: Pick<RpcClient, 'request'>): boolean {
    return this.rpc === rpc && !this.stopped;
  }

  /** The connection already sends this meeting's events (it was started with `follow`). */
  subscribedOn(rpc: Pick<RpcClient, 'request'>): void {
    this.rpc = rpc;
  }

  /** Feed every `room/event` received on the connection here. */
  receive(event: MeetingEvent): void {
    if (!this.stopped) this.mirror.apply(event);
  }

  private resync(): void {
    if (this.resyncing || !this.rpc || this.stopped) return;
    this.resyncs++;
    const rpc = this.rpc;
    this.resyncing = this.attach(rpc)
      .then(() => undefined)
      .catch((e: unknown) => this.opts.onError?.(e as Error))
      .finally(() => (this.resyncing = undefined));
  }

  onStop(fn: () => void): void {
    this.stops.push(fn);
  }

  /** Stops delivering; the daemon is told to stop sending when the connection is still open. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const fn of this.stops.splice(0)) fn();
    await this.rpc?.request('room/unsubscribe', { meetingId: this.meetingId }).catch(() => undefined);
  }
}

/**
 * Starts a meeting subscribed in the same request (`follow: true`), so following it costs no second
 * round trip. Events that arrive before the answer is read are held and handed to the follower
 * `make` returns for the new meeting, in order, before any later one.
 */
export async function startFollowed(
  conn: { rpc: Pick<RpcClient, 'request'>; onEvent(listener: DaemonEventListener): () => void },
  params: StartMeetingParams,
  make: (meetingId: string) => LogFollower,
): Promise<{ follower: LogFollower; lastSeq: number }> {
  const early: MeetingEvent[] = [];
  const off = conn.onEvent((method, p) => {
    if (method === 'room/event') early.push((p as { event: MeetingEvent }).event);
  });
  let started: { meetingId: string; lastSeq: number };
  try {
    started = await conn.rpc.request('meeting/start', { ...params, follow: true });
  } finally {
    off();
  }
  const follower = make(started.meetingId);
  follower.subscribedOn(conn.rpc);
  for (const e of early) follower.receive(e);
  return { follower, lastSeq: started.lastSeq };
}
