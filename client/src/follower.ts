/**
 * Follows one meeting's log from a cursor into a MeetingMirror. The mirror applies events in seq
 * order, each once, and reports a gap (a frame lost, a subscription cut short); on that report the
 * follower does not drop the event silently and wait forever: it resubscribes from the mirror's
 * last seq, and the daemon sends everything after it again from the store.
 */
import type { MeetingEvent, MeetingState, RpcClient } from '@roundtable/protocol';
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

  /** The connection already sends this meeting's events (it was started with `follow`). */
  subscribedOn(rpc: Pick<RpcClient, 'request'>): void {
    this.rpc = rpc;
  }

  /** Each `room/event` of this meeting, as MeetingHandles.receive routes it. */
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

  /** Stops delivering; the daemon is told to stop sending when the connection is still open. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const fn of this.stops.splice(0)) fn();
    await this.rpc?.request('room/unsubscribe', { meetingId: this.meetingId }).catch(() => undefined);
  }
}
