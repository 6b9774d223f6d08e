/**
 * A long-lived link to the daemon of a data dir (the VS Code extension and `roundtable mcp` hold
 * one): finds or starts the daemon, connects, and reconnects after the daemon restarts. The
 * extension's reconnects with backoff and keeps every followed meeting attached from its cursor,
 * so nothing is lost or doubled across restarts; the MCP server's (`reconnect: 'on-demand'`)
 * connects again when the next request needs it, once per request, and says in one line when it
 * cannot, so an agent's next tool call reaches a daemon that restarted.
 */
import type { DaemonEventListener, DaemonMethod, ParamsOf, RequestOptions, ResultOf } from '@roundtable/protocol';
import { connectDaemon, type DaemonConnection } from './connection';
import { MeetingHandles } from './meetingHandle';
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
  /** Every daemon → client event except `room/event` (which goes to the meetings' handles). */
  onEvent?: DaemonEventListener;
  onState?: (state: SessionState, message?: string) => void;
  /** After every (re)connection, once the followers are attached again. */
  onConnected?: (conn: DaemonConnection) => void;
  /** Speaks for an agent (the MCP server): the daemon lets it end only the rooms it opened. */
  agent?: boolean;
  /**
   * `backoff` (default): reconnect at once after a loss, retrying with backoff, meetings resumed.
   * `on-demand`: a loss ends the waits on the meetings followed (one line each) and the next
   * request connects again, once; the daemon is started again if none runs.
   */
  reconnect?: 'backoff' | 'on-demand';
}

export class DaemonSession {
  private conn: DaemonConnection | undefined;
  private connecting: Promise<DaemonConnection> | undefined;
  /** The meetings followed, kept across reconnections: `open` and `attach` give a MeetingHandle. */
  readonly meetings: MeetingHandles;
  private disposed = false;
  /** The connection was lost since the last one was made (said when making a new one fails). */
  private lost = false;
  private retry = 0;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: SessionOptions) {
    this.meetings = new MeetingHandles({
      rpc: async () => (await this.connection()).rpc,
      onError: (meetingId, e) => this.opts.log.warn(`could not resubscribe to ${meetingId}: ${e.message}`),
    });
  }

  /** A connected client, connecting (and starting the daemon) first if needed. */
  connection(): Promise<DaemonConnection> {
    if (this.conn) return Promise.resolve(this.conn);
    this.connecting ??= this.connect()
      .catch((e: unknown) => {
        if (!this.lost) throw e;
        throw new Error(
          `the connection to the Roundtable daemon was lost and could not be made again: ${(e as Error).message.split('\n')[0]}`,
          { cause: e },
        );
      })
      .finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  async request<M extends DaemonMethod>(method: M, params: ParamsOf<M>, opts?: RequestOptions): Promise<ResultOf<M>> {
    return (await this.connection()).rpc.request(method, params, opts);
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
      ...(this.opts.agent ? { agent: true } : {}),
      meetings: this.meetings,
      onEvent: (method, params) => {
        if (method !== 'room/event') this.opts.onEvent?.(method, params);
      },
    });
    void conn.closed.then((reason) => {
      if (this.conn !== conn) return;
      this.conn = undefined;
      this.lost = true;
      if (this.disposed) return;
      if (this.opts.reconnect === 'on-demand') {
        // Nobody reconnects until asked: the meetings followed on the lost connection end here.
        this.meetings.end(`${reason} before the meeting ended`);
        this.opts.log.warn('lost the daemon connection; the next request connects again');
        return;
      }
      this.opts.log.warn('lost the daemon connection; reconnecting');
      this.scheduleReconnect();
    });
    this.conn = conn;
    this.lost = false;
    this.retry = 0;
    this.opts.log.info(`connected to the daemon on 127.0.0.1:${found.info.port} (pid ${found.info.pid})`);
    // Each meeting resumes from its cursor: the daemon sends only what this client has not seen.
    await this.meetings.resume(conn.rpc);
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
    this.meetings.end('the daemon link was closed');
    void this.conn?.close();
  }
}
