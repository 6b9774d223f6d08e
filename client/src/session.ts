/**
 * A long-lived link to the daemon of a data dir (the VS Code extension holds one): finds or starts
 * the daemon, connects, reconnects with backoff after the daemon restarts, and keeps every
 * followed meeting attached from its cursor, so nothing is lost or doubled across restarts.
 */
import type {
  DaemonEventListener,
  DaemonMethod,
  MeetingEvent,
  ParamsOf,
  RequestOptions,
  ResultOf,
  StartMeetingParams,
} from '@roundtable/protocol';
import { connectDaemon, type DaemonConnection } from './connection';
import { LogFollower, startFollowed, type FollowOptions } from './follower';
import type { MeetingMirror } from './mirror';
import { findDaemon } from './discovery';
import { findOrSpawnDaemon, incompatibility, type SpawnOptions } from './spawn';

export type SessionState = 'connecting' | 'connected' | 'failed';

export interface SessionOptions {
  /** Read at every (re)connection: the data dir may be reconfigured. */
  dataDir: () => string;
  /** How to start a daemon when none runs; `false`: never start one, wait for it instead. */
  spawn?: Omit<SpawnOptions, 'dataDir' | 'log'> | false;
  /** Named in `initialize`. */
  client: string;
  log: { info(line: string): void; warn(line: string): void; error(line: string): void };
  /** Every daemon → client event except `room/event` (which goes to the followers). */
  onEvent?: DaemonEventListener;
  onState?: (state: SessionState, message?: string) => void;
  /** After every (re)connection, once the followers are attached again. */
  onConnected?: (conn: DaemonConnection) => void;
}

export class DaemonSession {
  private conn: DaemonConnection | undefined;
  private connecting: Promise<DaemonConnection> | undefined;
  private readonly followers = new Map<string, LogFollower>();
  private disposed = false;
  private retry = 0;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: SessionOptions) {}

  /** A connected client, connecting (and starting the daemon) first if needed. */
  connection(): Promise<DaemonConnection> {
    if (this.conn) return Promise.resolve(this.conn);
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  async request<M extends DaemonMethod>(method: M, params: ParamsOf<M>, opts?: RequestOptions): Promise<ResultOf<M>> {
    return (await this.connection()).rpc.request(method, params, opts);
  }

  /**
   * Follows a meeting into a mirror from its first event; a later call for a meeting followed on
   * this connection already changes nothing. Returns the log's last seq now (as far as known).
   */
  async follow(meetingId: string, opts: { deliver?: FollowOptions['deliver'] } = {}): Promise<number> {
    // Connected first: a follower already in the map when connecting is attached by connect().
    const conn = await this.connection();
    const follower = this.followers.get(meetingId);
    if (follower?.attachedTo(conn.rpc)) return follower.cursor;
    return (follower ?? this.newFollower(meetingId, opts.deliver)).attach(conn.rpc);
  }

  /**
   * Starts a meeting and follows it in the same request. `onStarted` hears its id before any of
   * its events is delivered.
   */
  async start(
    params: StartMeetingParams,
    opts: { deliver?: FollowOptions['deliver']; onStarted?: (meetingId: string) => void } = {},
  ): Promise<{ meetingId: string; lastSeq: number }> {
    const conn = await this.connection();
    const { follower, lastSeq } = await startFollowed(conn, params, (meetingId) => {
      const f = this.newFollower(meetingId, opts.deliver);
      opts.onStarted?.(meetingId);
      return f;
    });
    return { meetingId: follower.meetingId, lastSeq };
  }

  /** The mirror of a followed meeting: its events and its state. */
  mirror(meetingId: string): MeetingMirror | undefined {
    return this.followers.get(meetingId)?.mirror;
  }

  /** Stops following a meeting (deleted) and forgets what it held. */
  async unfollow(meetingId: string): Promise<void> {
    const follower = this.followers.get(meetingId);
    this.followers.delete(meetingId);
    await follower?.stop();
  }

  private newFollower(meetingId: string, deliver: FollowOptions['deliver']): LogFollower {
    const follower = new LogFollower({
      meetingId,
      ...(deliver ? { deliver } : {}),
      onError: (e) => this.opts.log.warn(`could not resubscribe to ${meetingId}: ${e.message}`),
    });
    this.followers.set(meetingId, follower);
    return follower;
  }

  private async connect(): Promise<DaemonConnection> {
    this.opts.onState?.('connecting');
    const dataDir = this.opts.dataDir();
    const spawn = this.opts.spawn;
    const found =
      spawn === false
        ? await findDaemon(dataDir)
        : await findOrSpawnDaemon({ ...spawn, dataDir, log: (line) => this.opts.log.info(line) });
    if (!found) throw new Error(`no Roundtable daemon is running for ${dataDir}; start one with: roundtable daemon`);
    // Without leave to start a daemon this client may not replace one either.
    const refusal = incompatibility(found.info, dataDir);
    if (refusal) throw new Error(refusal);
    const conn = await connectDaemon(found.info.port, found.token, {
      client: this.opts.client,
      onEvent: (method, params) => {
        if (method === 'room/event') {
          const e = (params as { event: MeetingEvent }).event;
          this.followers.get(e.meetingId)?.receive(e);
        } else this.opts.onEvent?.(method, params);
      },
    });
    void conn.closed.then(() => {
      if (this.conn !== conn) return;
      this.conn = undefined;
      if (!this.disposed) {
        this.opts.log.warn('lost the daemon connection; reconnecting');
        this.scheduleReconnect();
      }
    });
    this.conn = conn;
    this.retry = 0;
    this.opts.log.info(`connected to the daemon on 127.0.0.1:${found.info.port} (pid ${found.info.pid})`);
    // Each follower resumes from its cursor: the daemon sends only what this client has not seen.
    for (const f of this.followers.values()) await f.attach(conn.rpc);
    this.opts.onState?.('connected');
    this.opts.onConnected?.(conn);
    return conn;
  }

  private scheduleReconnect(): void {
    const delay = Math.min(5_000, 250 * 2 ** this.retry++);
    this.opts.onState?.('connecting', `reconnecting in ${Math.round(delay / 100) / 10} s`);
    this.retryTimer = setTimeout(() => {
      this.connection().catch((e: unknown) => {
        this.opts.log.error(`reconnect failed: ${(e as Error).message}`);
        if (this.retry > 6) this.opts.onState?.('failed', (e as Error).message);
        if (!this.disposed) this.scheduleReconnect();
      });
    }, delay);
  }

  dispose(): void {
    this.disposed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    void this.conn?.close();
  }
}
