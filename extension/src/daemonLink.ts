/**
 * The extension's link to the local daemon: finds a running one (daemon.json + token in the data
 * dir) or starts one with VS Code's own runtime (ELECTRON_RUN_AS_NODE), connects, and reconnects
 * after a restart, resubscribing every meeting from its cursor so nothing is lost or doubled.
 */
import { spawn } from 'node:child_process';
import { openSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import WebSocket from 'ws';
import type { DaemonEvents, DaemonMethod, MeetingEvent, MessageDelta, ParamsOf, ResultOf } from '../../protocol/src';
import { PROTOCOL_VERSION, RpcClient } from '../../protocol/src';

export type LinkState = 'connecting' | 'connected' | 'failed';

interface DaemonInfo {
  pid: number;
  port: number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function dataDir(): string {
  const configured = vscode.workspace.getConfiguration('roundtable').get<string>('dataDir');
  return configured?.trim() || process.env.ROUNDTABLE_HOME || path.join(os.homedir(), '.roundtable');
}

async function findDaemon(dir: string): Promise<{ info: DaemonInfo; token: string } | undefined> {
  try {
    const info = JSON.parse(await fs.readFile(path.join(dir, 'daemon.json'), 'utf8')) as DaemonInfo;
    if (!alive(info.pid)) return undefined;
    const token = (await fs.readFile(path.join(dir, 'token'), 'utf8')).trim();
    return { info, token };
  } catch {
    return undefined;
  }
}

export class DaemonLink implements vscode.Disposable {
  private rpc: RpcClient | undefined;
  private ws: WebSocket | undefined;
  private connecting: Promise<RpcClient> | undefined;
  private disposed = false;
  private retry = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Log per meeting, contiguous from seq 1: the cursor to resubscribe from is its length. */
  readonly logs = new Map<string, MeetingEvent[]>();
  private readonly subscribed = new Set<string>();

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
    private readonly extensionPath: string,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** A connected client, connecting (and starting the daemon) first if needed. */
  client(): Promise<RpcClient> {
    if (this.rpc) return Promise.resolve(this.rpc);
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  async request<M extends DaemonMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    return (await this.client()).request(method, params);
  }

  /** Follows a meeting: its log from the cursor, then live. Safe to call again. Returns the log's last seq now. */
  async subscribe(meetingId: string): Promise<number> {
    this.subscribed.add(meetingId);
    if (!this.logs.has(meetingId)) this.logs.set(meetingId, []);
    const rpc = await this.client();
    return (await rpc.request('room/subscribe', { meetingId, sinceSeq: this.logs.get(meetingId)?.length ?? 0 }))
      .lastSeq;
  }

  private async connect(): Promise<RpcClient> {
    this.onStateEmitter.fire({ state: 'connecting' });
    const dir = dataDir();
    let found = await findDaemon(dir);
    if (!found) {
      await this.startDaemon(dir);
      found = await findDaemon(dir);
      if (!found) throw new Error(`the Roundtable daemon did not start; its log is ${path.join(dir, 'daemon.log')}`);
    }
    const { info, token } = found;
    const ws = new WebSocket(`ws://127.0.0.1:${info.port}`, {
      headers: { Authorization: `Bearer ${token}` },
      maxPayload: 64 * 1024 * 1024,
    });
    const rpc = new RpcClient({ send: (t) => ws.send(t), close: () => ws.close() }, (method, params) =>
      this.dispatch(method, params),
    );
    ws.on('message', (data: WebSocket.RawData) =>
      rpc.receive(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8')),
    );
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) =>
        reject(new Error(`the daemon refused the connection (${res.statusCode})`)),
      );
    });
    ws.on('close', () => {
      rpc.closedBy('the daemon connection closed');
      if (this.ws === ws) {
        this.ws = undefined;
        this.rpc = undefined;
        if (!this.disposed) {
          this.log.warn('lost the daemon connection; reconnecting');
          this.scheduleReconnect();
        }
      }
    });
    await rpc.request('initialize', { protocolVersion: PROTOCOL_VERSION, client: `vscode ${vscode.version}` });
    this.ws = ws;
    this.rpc = rpc;
    this.retry = 0;
    this.log.info(`connected to the daemon on 127.0.0.1:${info.port} (pid ${info.pid})`);
    // Resubscribe from each cursor: the daemon sends only what this window has not seen.
    for (const meetingId of this.subscribed) {
      await rpc.request('room/subscribe', { meetingId, sinceSeq: this.logs.get(meetingId)?.length ?? 0 });
    }
    this.onStateEmitter.fire({ state: 'connected' });
    this.onConnectedEmitter.fire(rpc);
    return rpc;
  }

  private scheduleReconnect(): void {
    const delay = Math.min(5_000, 250 * 2 ** this.retry++);
    this.onStateEmitter.fire({ state: 'connecting', message: `reconnecting in ${Math.round(delay / 100) / 10} s` });
    this.retryTimer = setTimeout(() => {
      this.client().catch((e: unknown) => {
        this.log.error(`reconnect failed: ${(e as Error).message}`);
        if (this.retry > 6) this.onStateEmitter.fire({ state: 'failed', message: (e as Error).message });
        if (!this.disposed) this.scheduleReconnect();
      });
    }, delay);
  }

  private dispatch<K extends keyof DaemonEvents>(method: K, params: DaemonEvents[K]): void {
    if (method === 'room/event') {
      const e = (params as DaemonEvents['room/event']).event;
      const log = this.logs.get(e.meetingId);
      if (!log || e.seq !== log.length + 1) return; // never doubled, never out of order
      log.push(e);
      this.onEventEmitter.fire(e);
    } else if (method === 'room/delta') {
      this.onDeltaEmitter.fire((params as DaemonEvents['room/delta']).delta);
    } else if (method === 'lm/request' || method === 'lm/cancel') {
      this.lmHandler?.(method, params as DaemonEvents['lm/request']);
    } else if (method === 'daemon/error') {
      this.log.warn(`daemon: ${(params as DaemonEvents['daemon/error']).message}`);
    }
  }

  /** Starts the bundled daemon with VS Code's own runtime: no separate Node install needed. */
  private async startDaemon(dir: string): Promise<void> {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    const logFile = path.join(dir, 'daemon.log');
    const out = openSync(logFile, 'a', 0o600);
    const script = path.join(this.extensionPath, 'dist', 'daemon', 'cli.js');
    this.log.info(`starting the daemon: ${script} daemon --data-dir ${dir}`);
    const child = spawn(process.execPath, [script, 'daemon', '--data-dir', dir], {
      detached: true,
      stdio: ['ignore', out, out],
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    });
    child.unref();
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      if (await findDaemon(dir)) return;
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 150));
    }
    const tail = (await fs.readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-15).join('\n');
    this.log.error(`the daemon did not start. Last lines of ${logFile}:\n${tail}`);
    throw new Error(`the Roundtable daemon did not start (see the Roundtable output for ${logFile})`);
  }

  dispose(): void {
    this.disposed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.ws?.close();
    this.onEventEmitter.dispose();
    this.onDeltaEmitter.dispose();
    this.onStateEmitter.dispose();
    this.onConnectedEmitter.dispose();
  }
}
