/**
 * The extension's link to the local daemon, as VS Code events. Discovery, starting the daemon
 * with VS Code's own runtime (ELECTRON_RUN_AS_NODE), connecting, reconnecting and following each
 * meeting's log from its cursor (gaps resubscribed, nothing doubled) are the client library's.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DaemonEvents, DaemonMethod, MeetingEvent, MessageDelta, ParamsOf, ResultOf } from '../../protocol/src';
import type { RpcClient } from '../../protocol/src';
import { DaemonSession, defaultDataDir, type SessionState } from '../../client/src';

export type LinkState = SessionState;

export function dataDir(): string {
  const configured = vscode.workspace.getConfiguration('roundtable').get<string>('dataDir');
  return configured?.trim() || defaultDataDir();
}

export class DaemonLink implements vscode.Disposable {
  private readonly session: DaemonSession;
  /** Log per meeting, contiguous from seq 1: the cursor to resubscribe from is its length. */
  readonly logs = new Map<string, MeetingEvent[]>();

  private readonly onEventEmitter = new vscode.EventEmitter<MeetingEvent>();
  readonly onEvent = this.onEventEmitter.event;
  private readonly onDeltaEmitter = new vscode.EventEmitter<MessageDelta>();
  readonly onDelta = this.onDeltaEmitter.event;
  private readonly onStateEmitter = new vscode.EventEmitter<{ state: LinkState; message?: string }>();
  readonly onState = this.onStateEmitter.event;
  private readonly onConnectedEmitter = new vscode.EventEmitter<RpcClient>();
  /** Fires after every (re)connection, once subscriptions are restored. */
  readonly onConnected = this.onConnectedEmitter.event;
  /** Set by the language-model bridge to answer `lm/request` events. */
  lmHandler:
    | ((method: 'lm/request' | 'lm/cancel', params: DaemonEvents['lm/request'] | DaemonEvents['lm/cancel']) => void)
    | undefined;

  constructor(
    extensionPath: string,
    private readonly log: vscode.LogOutputChannel,
    opts: { daemonArgs?: () => string[] } = {},
  ) {
    this.session = new DaemonSession({
      dataDir,
      spawn: {
        script: path.join(extensionPath, 'dist', 'daemon', 'cli.js'),
        electronAsNode: true,
        ...(opts.daemonArgs ? { args: opts.daemonArgs } : {}),
      },
      client: `vscode ${vscode.version}`,
      log,
      onEvent: (method, params) => this.dispatch(method, params),
      onState: (state, message) => this.onStateEmitter.fire({ state, ...(message ? { message } : {}) }),
      onConnected: (conn) => this.onConnectedEmitter.fire(conn.rpc),
    });
  }

  /** A connected client, connecting (and starting the daemon) first if needed. */
  async client(): Promise<RpcClient> {
    return (await this.session.connection()).rpc;
  }

  request<M extends DaemonMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    return this.session.request(method, params);
  }

  /** Follows a meeting: its log from the cursor, then live. Safe to call again. Returns the log's last seq now. */
  subscribe(meetingId: string): Promise<number> {
    let log = this.logs.get(meetingId);
    if (!log) this.logs.set(meetingId, (log = []));
    const events = log;
    return this.session.follow(meetingId, {
      deliver: (e) => {
        events.push(e);
        this.onEventEmitter.fire(e);
      },
    });
  }

  private dispatch<K extends keyof DaemonEvents>(method: K, params: DaemonEvents[K]): void {
    if (method === 'room/delta') {
      this.onDeltaEmitter.fire((params as DaemonEvents['room/delta']).delta);
    } else if (method === 'lm/request' || method === 'lm/cancel') {
      this.lmHandler?.(method, params as DaemonEvents['lm/request']);
    } else if (method === 'daemon/error') {
      this.log.warn(`daemon: ${(params as DaemonEvents['daemon/error']).message}`);
    }
  }

  dispose(): void {
    this.session.dispose();
    this.onEventEmitter.dispose();
    this.onDeltaEmitter.dispose();
    this.onStateEmitter.dispose();
    this.onConnectedEmitter.dispose();
  }
}
