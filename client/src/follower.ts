/**
 * Follows one meeting's log from a cursor: delivers events in seq order, each exactly once. When
 * an event arrives after a gap (a frame lost, a subscription cut short), the follower does not
 * drop it silently and wait forever: it resubscribes from its cursor, and the daemon sends
 * everything after it again from the store. Duplicates (seq at or below the cursor) are ignored.
 */
import type { MeetingEvent, RpcClient } from '../../protocol/src';

export interface FollowOptions {
  meetingId: string;
  /** Last seq already seen (0 = from the start). */
  sinceSeq?: number;
  deliver: (event: MeetingEvent) => void;
  /** A resubscription failed (the connection is gone): the owner reconnects and calls attach(). */
  onError?: (e: Error) => void;
}

export class LogFollower {
  readonly meetingId: string;
  private last: number;
  private rpc: Pick<RpcClient, 'request'> | undefined;
  private resyncing: Promise<void> | undefined;
  private stopped = false;
  private readonly stops: (() => void)[] = [];
  /** How often a gap made the follower resubscribe (diagnostics and tests). */
  resyncs = 0;

  constructor(private readonly opts: FollowOptions) {
    this.meetingId = opts.meetingId;
    this.last = opts.sinceSeq ?? 0;
  }

  /** Last seq delivered: the cursor a resubscription starts from. */
  get cursor(): number {
    return this.last;
  }

  /** Subscribes on a (new) connection from the cursor; returns the log's last seq at that moment. */
  async attach(rpc: Pick<RpcClient, 'request'>): Promise<number> {
    this.rpc = rpc;
    return (await rpc.request('room/subscribe', { meetingId: this.meetingId, sinceSeq: this.last })).lastSeq;
  }

  /** Feed every `room/event` received on the connection here. */
  receive(event: MeetingEvent): void {
    if (this.stopped || event.meetingId !== this.meetingId || event.seq <= this.last) return;
    if (event.seq === this.last + 1) {
      this.last = event.seq;
      this.opts.deliver(event);
      return;
    }
    this.resync();
  }

  private resync(): void {
    if (this.resyncing || !this.rpc) return;
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
