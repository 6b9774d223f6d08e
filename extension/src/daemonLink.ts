/**
 * The extension's link to the local daemon, as VS Code events. Discovery, starting the daemon
 * with VS Code's own runtime (ELECTRON_RUN_AS_NODE), connecting, reconnecting and following each
 * meeting's log from its cursor (gaps resubscribed, nothing doubled) are the client library's.
 * The window holds one MeetingHandle per followed meeting on its one connection: the room, the
 * status bar, the review, chat and the language model tool read that fold, never one of their own.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type {
  DaemonEvents,
  DaemonMethod,
  DaemonNotification,
  MeetingEvent,
  MeetingState,
  MessageDelta,
  ParamsOf,
  ResultOf,
  StartMeetingParams,
} from '@roundtable/protocol';
import { LiveMessages, deltasOf, initialState, visibleLive } from '@roundtable/protocol';
import type { RpcClient } from '@roundtable/protocol';
import {
  DaemonSession,
  conveneAnswer,
  defaultDataDir,
  type ConveneOptions,
  type ConveneResult,
  type MeetingHandle,
  type SessionState,
} from '@roundtable/client';

export type LinkState = SessionState;

export function dataDir(): string {
  const configured = vscode.workspace.getConfiguration('roundtable').get<string>('dataDir');
  return configured?.trim() || defaultDataDir();
}

export class DaemonLink implements vscode.Disposable {
  private readonly session: DaemonSession;
  /** The window's handle of each followed meeting (its one fold); a pending attach is shared. */
  private readonly handles = new Map<string, Promise<MeetingHandle>>();
  private readonly held = new Map<string, MeetingHandle>();
  /** Text being written in each followed meeting, so a view that attaches mid-call shows all of it. */
  private readonly live = new Map<string, LiveMessages>();

  private readonly onEventEmitter = new vscode.EventEmitter<MeetingEvent>();
  readonly onEvent = this.onEventEmitter.event;
  private readonly onStartedEmitter = new vscode.EventEmitter<string>();
  /** A meeting started from this window, before any of its events: everything in it is new. */
  readonly onStarted = this.onStartedEmitter.event;
  private readonly onDeltaEmitter = new vscode.EventEmitter<MessageDelta>();
  readonly onDelta = this.onDeltaEmitter.event;
  private readonly onNotificationEmitter = new vscode.EventEmitter<DaemonNotification>();
  /**
   * Every daemon notification as the window takes it: a `room/event` once the meeting's fold has
   * applied it (in order, never twice), the others as they come. What a webview relays is read here.
   */
  readonly onNotification = this.onNotificationEmitter.event;
  private readonly onStateEmitter = new vscode.EventEmitter<{ state: LinkState; message?: string }>();
  readonly onState = this.onStateEmitter.event;
  private readonly onConnectedEmitter = new vscode.EventEmitter<RpcClient>();
  /** Fires after every (re)connection, once subscriptions are restored. */
  readonly onConnected = this.onConnectedEmitter.event;

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

  /** Follows a meeting: its log from the cursor, then live. Safe to call again. Returns the log's last seq then. */
  async subscribe(meetingId: string): Promise<number> {
    let pending = this.handles.get(meetingId);
    if (!pending) {
      pending = this.session.meetings.attach(meetingId, { deliver: (e) => this.deliver(e) });
      this.handles.set(meetingId, pending);
      const mine = pending;
      mine.then(
        (h) => (this.handles.get(meetingId) === mine ? this.held.set(meetingId, h) : void h.release()),
        () => this.handles.get(meetingId) === mine && this.handles.delete(meetingId),
      );
    }
    return (await pending).since;
  }

  /**
   * Starts a meeting and follows it in the same request (no second read of its log). `startToken`
   * (from `meeting/estimate` with `prepare` on these params): the daemon starts what it read then.
   */
  async start(params: StartMeetingParams, startToken?: string): Promise<string> {
    const handle = await this.session.meetings.open(params, {
      deliver: (e) => this.deliver(e),
      onStarted: (id) => this.onStartedEmitter.fire(id),
      ...(startToken ? { startToken } : {}),
    });
    this.held.set(handle.meetingId, handle);
    this.handles.set(handle.meetingId, Promise.resolve(handle));
    return handle.meetingId;
  }

  /**
   * Starts a meeting here (`started` hears its id before any event) and follows it to its digest
   * on the window's connection and handle: the chat participant and the language model tool.
   */
  async convene(
    params: StartMeetingParams,
    opts: Omit<ConveneOptions, 'onEvent'> & { started: (meetingId: string) => Promise<void> },
  ): Promise<ConveneResult> {
    if (opts.signal?.aborted) throw new Error('cancelled before the meeting started; nothing was spent');
    const handle = await this.handle(await this.start(params));
    const [result] = await Promise.all([conveneAnswer(handle, opts), opts.started(handle.meetingId)]);
    return result;
  }

  /** The window's handle of a meeting, following it first: the person's cut, decision and answer go through it. */
  async handle(meetingId: string): Promise<MeetingHandle> {
    await this.subscribe(meetingId);
    const handle = this.held.get(meetingId);
    if (!handle) throw new Error(`meeting ${meetingId} was forgotten while it was being followed`);
    return handle;
  }

  /** What is being written in a meeting right now, as the deltas that rebuild it in a view. */
  liveDeltas(meetingId: string): MessageDelta[] {
    const live = this.live.get(meetingId);
    return live ? visibleLive(this.state(meetingId), live.list()).flatMap(deltasOf) : [];
  }

  /** A followed meeting's events, contiguous from seq 1 (none when it is not followed). */
  events(meetingId: string): readonly MeetingEvent[] {
    return this.held.get(meetingId)?.events ?? [];
  }

  /** A followed meeting's state, kept one event at a time (the empty state when it is not followed). */
  state(meetingId: string): MeetingState {
    return this.held.get(meetingId)?.state ?? initialState();
  }

  /** Stops following a deleted meeting and drops what was held of it. */
  async forget(meetingId: string): Promise<void> {
    this.live.delete(meetingId);
    const pending = this.handles.get(meetingId);
    this.handles.delete(meetingId);
    this.held.delete(meetingId);
    await (await pending?.catch(() => undefined))?.release();
  }

  /** A logged event: what it settles stops being live text, then the views hear of it. */
  private deliver(e: MeetingEvent): void {
    this.live.get(e.meetingId)?.settle(e);
    this.onEventEmitter.fire(e);
    this.onNotificationEmitter.fire({ method: 'room/event', params: { event: e } });
  }

  private dispatch<K extends keyof DaemonEvents>(method: K, params: DaemonEvents[K]): void {
    if (method === 'room/delta') {
      const d = (params as DaemonEvents['room/delta']).delta;
      let live = this.live.get(d.meetingId);
      if (!live) this.live.set(d.meetingId, (live = new LiveMessages()));
      live.delta(d, this.state(d.meetingId));
      this.onDeltaEmitter.fire(d);
    } else if (method === 'daemon/error') {
      this.log.warn(`daemon: ${(params as DaemonEvents['daemon/error']).message}`);
    }
    // A `room/event` is the fold's to hand on (`deliver`): a raw one may repeat or come after a gap.
    if (method !== 'room/event') this.onNotificationEmitter.fire({ method, params } as DaemonNotification);
  }

  dispose(): void {
    this.session.dispose();
    this.onEventEmitter.dispose();
    this.onStartedEmitter.dispose();
    this.onDeltaEmitter.dispose();
    this.onNotificationEmitter.dispose();
    this.onStateEmitter.dispose();
    this.onConnectedEmitter.dispose();
  }
}
