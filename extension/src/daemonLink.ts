/**
 * The extension's link to the local daemon, as VS Code events. Discovery, starting the daemon
 * with VS Code's own runtime (ELECTRON_RUN_AS_NODE), connecting, reconnecting and following each
 * meeting's log from its cursor (gaps resubscribed, nothing doubled) are the client library's.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type {
  DaemonEvents,
  DaemonMethod,
  MeetingEvent,
  MeetingState,
  MessageDelta,
  ParamsOf,
  ResultOf,
  StartMeetingParams,
} from '@roundtable/protocol';
import { LiveMessages, deltasOf, initialState, visibleLive } from '@roundtable/protocol';
import type { RpcClient } from '@roundtable/protocol';
import { DaemonSession, defaultDataDir, type SessionState } from '@roundtable/client';

export type LinkState = SessionState;

export function dataDir(): string {
  const configured = vscode.workspace.getConfiguration('roundtable').get<string>('dataDir');
  return configured?.trim() || defaultDataDir();
}

export class DaemonLink implements vscode.Disposable {
  private readonly session: DaemonSession;
  /** Text being written in each followed meeting, so a view that attaches mid-call shows all of it. */
  private readonly live = new Map<string, LiveMessages>();

  private readonly onEventEmitter = new vscode.EventEmitter<MeetingEvent>();
  readonly onEvent = this.onEventEmitter.event;
  private readonly onStartedEmitter = new vscode.EventEmitter<string>();
  /** A meeting started from this window, before any of its events: everything in it is new. */
  readonly onStarted = this.onStartedEmitter.event;
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
    return this.session.follow(meetingId, { deliver: (e) => this.deliver(e) });
  }

  /**
   * Starts a meeting and follows it in the same request (no second read of its log). `startToken`
   * (from `meeting/estimate` with `prepare` on these params): the daemon starts what it read then.
   */
  async start(params: StartMeetingParams, startToken?: string): Promise<string> {
    const { meetingId } = await this.session.start(params, {
      deliver: (e) => this.deliver(e),
      onStarted: (id) => this.onStartedEmitter.fire(id),
      ...(startToken ? { startToken } : {}),
    });
    return meetingId;
  }

  /** What is being written in a meeting right now, as the deltas that rebuild it in a view. */
  liveDeltas(meetingId: string): MessageDelta[] {
    const live = this.live.get(meetingId);
    return live ? visibleLive(this.state(meetingId), live.list()).flatMap(deltasOf) : [];
  }

  /** A followed meeting's events, contiguous from seq 1 (none when it is not followed). */
  events(meetingId: string): readonly MeetingEvent[] {
    return this.session.mirror(meetingId)?.events ?? [];
  }

  /** A followed meeting's state, kept one event at a time (the empty state when it is not followed). */
  state(meetingId: string): MeetingState {
    return this.session.mirror(meetingId)?.state ?? initialState();
  }

  /** Resolves once a followed meeting's log holds an event after `afterSeq` matching `pred`. */
  async waitForEvent(meetingId: string, pred: (e: MeetingEvent) => boolean, afterSeq: number): Promise<void> {
    await this.subscribe(meetingId);
    await this.session.mirror(meetingId)?.waitForEvent(pred, afterSeq);
  }

  /** Stops following a deleted meeting and drops what was held of it. */
  forget(meetingId: string): Promise<void> {
    this.live.delete(meetingId);
    return this.session.unfollow(meetingId);
  }

  /** A logged event: what it settles stops being live text, then the views hear of it. */
  private deliver(e: MeetingEvent): void {
    this.live.get(e.meetingId)?.settle(e);
    this.onEventEmitter.fire(e);
  }

  private dispatch<K extends keyof DaemonEvents>(method: K, params: DaemonEvents[K]): void {
    if (method === 'room/delta') {
      const d = (params as DaemonEvents['room/delta']).delta;
      let live = this.live.get(d.meetingId);
      if (!live) this.live.set(d.meetingId, (live = new LiveMessages()));
      live.delta(d, this.state(d.meetingId));
      this.onDeltaEmitter.fire(d);
    } else if (method === 'lm/request' || method === 'lm/cancel') {
      this.lmHandler?.(method, params as DaemonEvents['lm/request']);
    } else if (method === 'daemon/error') {
      this.log.warn(`daemon: ${(params as DaemonEvents['daemon/error']).message}`);
    }
  }

  dispose(): void {
    this.session.dispose();
    this.onEventEmitter.dispose();
    this.onStartedEmitter.dispose();
    this.onDeltaEmitter.dispose();
    this.onStateEmitter.dispose();
    this.onConnectedEmitter.dispose();
  }
}
