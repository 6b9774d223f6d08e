/**
 * The daemon's WebSocket API on 127.0.0.1: accepts connections (auth.ts decides who may), checks
 * each request and dispatches it to its handler, and drops connections that stop answering pings.
 * Subscribers are fed by fanout.ts; the agent/* methods live in agentHandlers.ts.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { DaemonMethod, ErrorCode, MeetingEvent, ParamsOf } from '../../../protocol/src';
import {
  MAX_MESSAGE_BYTES,
  MEETING_PAGE_DEFAULT,
  PROTOCOL_VERSION,
  RpcError,
  checkParams,
  fold,
  isDaemonMethod,
  isErrorCode,
  parseEnvelope,
  summaryOf,
} from '../../../protocol/src';
import { minutesFileBase, renderMinutes } from '../meeting/minutes';
import { manifestLine } from '../meeting/manifest';
import type { VscodeLmBridge } from '../providers/vscodeLm';
import { ProviderError } from '../providers/types';
import type { MeetingManager } from './manager';
import { agentHandlers } from './agentHandlers';
import { refuseWorkerSeat } from './seats';
import { checkUpgrade, refuse } from './auth';
import { Connection, type Handler } from './connection';
import { startFanout } from './fanout';
import { rawText } from '../../../client/src/rawData';
import { estimateMeeting } from '../meeting/estimate';

export const DAEMON_VERSION = '0.1.0';
/** A connection that sends this many invalid messages is closed. */
const MAX_BAD_MESSAGES = 20;
const HEARTBEAT_MS = 15_000;

export interface ServerOptions {
  manager: MeetingManager;
  /** Where `vscode-lm` calls go; extensions register with it. */
  lmBridge?: VscodeLmBridge;
  token: string;
  /** 0 = any free port. */
  port: number;
  log: (line: string) => void;
  heartbeatMs?: number;
  /** Called after a client connected or disconnected (the idle watch listens). */
  onConnectionsChange?: () => void;
}

export interface RunningServer {
  port: number;
  close(): Promise<void>;
  /** Live connections, for diagnostics and tests. */
  connections(): number;
}

/** A page of `meeting/get` fills at most this much of a frame, leaving room for the summary. */
const PAGE_BYTES = MAX_MESSAGE_BYTES / 2;

/** The first events of `events`, at most `limit` and about PAGE_BYTES of JSON; always at least one. */
function pageOf(events: MeetingEvent[], limit: number): MeetingEvent[] {
  let bytes = 0;
  let n = 0;
  for (const e of events) {
    if (n >= limit) break;
    bytes += Buffer.byteLength(JSON.stringify(e), 'utf8') + 1;
    if (n > 0 && bytes > PAGE_BYTES) break;
    n++;
  }
  return events.slice(0, n);
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const { manager, log } = opts;
  const conns = new Set<Connection>();
  const fanout = startFanout(manager, conns);
  let nextConnId = 1;
  let port = 0;

  const http_ = http.createServer((_req, res) => {
    // Plain HTTP gets nothing: there is no page to serve and no reason to tell anyone more.
    res.writeHead(426, { 'Content-Type': 'text/plain', Connection: 'close' });
    res.end('WebSocket only\n');
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, clientTracking: false });

  http_.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    const verdict = checkUpgrade(req, opts.token, port);
    if (!verdict.ok) {
      log(`refused a connection: ${verdict.reason}`);
      refuse(socket, verdict.status, verdict.reason);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  /** The connection whose VS Code window answers vscode-lm calls: one per daemon. */
  let lmOwner: Connection | undefined;

  /** Subscribes a connection to a meeting's events after `sinceSeq`; returns the log's last seq now. */
  async function subscribe(conn: Connection, meetingId: string, sinceSeq: number): Promise<number> {
    const { lastSeq } = await manager.state(meetingId);
    conn.subscriptions.set(meetingId, { lastSent: Math.min(sinceSeq, lastSeq), pumping: false, again: false });
    // History is pumped after the response so the client sees the ack first, then events in order.
    setImmediate(() => void fanout.pump(conn, meetingId));
    return lastSeq;
  }

  const handlers: { [M in DaemonMethod]: Handler<M> } = {
    // Answered in handle(), synchronously; listed here so every method has a handler.
    initialize: () => Promise.resolve({ protocolVersion: PROTOCOL_VERSION, daemonVersion: DAEMON_VERSION }),
    'meeting/start': async ({ follow, ...params }, conn) => {
      const meetingId = await manager.start(params);
      conn.opened.add(meetingId);
      // Subscribed in the same request: the caller follows from seq 1 without a second round trip.
      const lastSeq = follow ? await subscribe(conn, meetingId, 0) : (await manager.state(meetingId)).lastSeq;
      return { meetingId, lastSeq };
    },
    // The attached context is read as the start would read it; the prompts are built, nothing is
    // called or written.
    'meeting/estimate': (p) => estimateMeeting(p),
    'meeting/list': async () => ({ meetings: await manager.list() }),
    'meeting/get': async (p) => {
      const state = await manager.state(p.meetingId);
      const sinceSeq = p.sinceSeq ?? 0;
      const all = await manager.events(p.meetingId, sinceSeq);
      const events = pageOf(all, p.limit ?? MEETING_PAGE_DEFAULT);
      return {
        summary: summaryOf(state),
        events,
        lastSeq: events.at(-1)?.seq ?? sinceSeq,
        more: events.length < all.length,
      };
    },
    'room/subscribe': async (p, conn) => ({ lastSeq: await subscribe(conn, p.meetingId, p.sinceSeq) }),
    'room/unsubscribe': (p, conn) => {
      conn.subscriptions.delete(p.meetingId);
      return Promise.resolve({});
    },
    'room/post': async (p, conn) => {
      refuseWorkerSeat(conn, p.meetingId, 'post as the person (its words go through speak)');
      return { messageId: await manager.post(p.meetingId, p.text, p.from) };
    },
    'meeting/cut': async (p, conn) => {
      refuseWorkerSeat(conn, p.meetingId, 'cut the meeting');
      await manager.cut(p.meetingId, p.reason);
      return {};
    },
    'meeting/close': async (p, conn) => {
      refuseWorkerSeat(conn, p.meetingId, 'close the meeting');
      await manager.close(p.meetingId, p.reason);
      return {};
    },
    'meeting/resolve': async (p, conn) => {
      refuseWorkerSeat(conn, p.meetingId, 'resolve the meeting');
      await manager.resolve(p.meetingId, p.action, {
        ...(p.option !== undefined ? { option: p.option } : {}),
        ...(p.instruction !== undefined ? { instruction: p.instruction } : {}),
      });
      return {};
    },
    'meeting/delete': async (p, conn) => {
      refuseWorkerSeat(conn, p.meetingId, 'delete the meeting');
      await manager.remove(p.meetingId);
      for (const conn of conns) conn.subscriptions.delete(p.meetingId);
      return {};
    },
    'meeting/render': async (p) => {
      const events = await manager.events(p.meetingId, 0);
      if (events.length === 0) throw new RpcError('not_found', `no meeting ${p.meetingId}`);
      const state = fold(events);
      const fileBase = minutesFileBase(state);
      return {
        minutes: renderMinutes(events),
        fileBase,
        ...(state.mode === 'consensus' ? { manifestLine: manifestLine(state, `${fileBase}.md`) } : {}),
      };
    },
    'lm/register': (_p, conn) => {
      const bridge = opts.lmBridge;
      if (!bridge) return Promise.reject(new RpcError('bad_request', 'this daemon does not take vscode-lm calls'));
      if (lmOwner && lmOwner !== conn && lmOwner.ws.readyState === lmOwner.ws.OPEN) {
        return Promise.reject(
          new RpcError(
            'conflict',
            'another VS Code window already answers vscode-lm calls for this daemon; close it (or its Roundtable connection) to answer from this one',
          ),
        );
      }
      // The previous owner is gone (or is this connection): its registration is replaced.
      lmOwner?.unregisterLm?.();
      if (lmOwner) lmOwner.unregisterLm = undefined;
      lmOwner = conn;
      conn.unregisterLm = bridge.register({
        request: (r) => conn.event('lm/request', r),
        cancel: (requestId) => conn.event('lm/cancel', { requestId }),
      });
      return Promise.resolve({});
    },
    'lm/delta': (p) => {
      opts.lmBridge?.delta(p.requestId, p.text);
      return Promise.resolve({});
    },
    'lm/done': (p) => {
      opts.lmBridge?.done(p);
      return Promise.resolve({});
    },
    'lm/fail': (p) => {
      opts.lmBridge?.fail(p.requestId, p.message, p.kind);
      return Promise.resolve({});
    },
    'meeting/decide': async (p, conn) => {
      refuseWorkerSeat(conn, p.meetingId, 'decide the meeting');
      await manager.decide(p.meetingId, p.decision, {
        ...(p.instruction !== undefined ? { instruction: p.instruction } : {}),
        ...(p.digestText !== undefined ? { digestText: p.digestText } : {}),
      });
      return {};
    },
    ...agentHandlers(manager, conns),
  };

  async function handle(conn: Connection, raw: string): Promise<void> {
    const env = parseEnvelope(raw, MAX_MESSAGE_BYTES);
    if (!env.ok || env.value.kind !== 'request') {
      conn.bad++;
      conn.event('daemon/error', { code: 'bad_request', message: env.ok ? 'only requests are accepted' : env.error });
      if (conn.bad >= MAX_BAD_MESSAGES) conn.ws.close(1008, 'too many invalid messages');
      return;
    }
    const { id, method, params } = env.value;
    const error = (code: ErrorCode, message: string): void =>
      conn.send({ kind: 'response', id, ok: false, error: { code, message } });
    const reply = (result: unknown): void => {
      const frame = JSON.stringify({ kind: 'response', id, ok: true, result });
      // A frame the client would refuse is never sent (nor dropped unseen): the caller hears why.
      if (Buffer.byteLength(frame, 'utf8') > MAX_MESSAGE_BYTES) {
        log(`the answer to ${method} would be ${Buffer.byteLength(frame, 'utf8')} bytes; sent too_large instead`);
        error(
          'too_large',
          `the answer to ${method} is larger than ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB, the most one message may carry; ask for less (read a meeting's log with meeting/get pages: sinceSeq and limit)`,
        );
      } else conn.sendRaw(frame);
    };
    if (!isDaemonMethod(method)) {
      conn.bad++;
      error('unknown_method', `unknown method "${method.slice(0, 60)}"`);
      return;
    }
    if (!conn.initialized && method !== 'initialize') {
      error('not_initialized', 'send initialize with the protocol version first');
      return;
    }
    const checked = checkParams(method, params);
    if (!checked.ok) {
      conn.bad++;
      error('bad_request', checked.error);
      return;
    }
    if (method === 'initialize') {
      // Settled synchronously so requests pipelined right behind it are already accepted.
      const version = (checked.value as ParamsOf<'initialize'>).protocolVersion;
      if (version !== PROTOCOL_VERSION) {
        error(
          'version_mismatch',
          `protocol version ${version} is not supported by this daemon (it speaks ${PROTOCOL_VERSION}); update the client or the daemon so they match`,
        );
      } else {
        conn.initialized = true;
        reply({ protocolVersion: PROTOCOL_VERSION, daemonVersion: DAEMON_VERSION });
      }
      return;
    }
    try {
      const handler = handlers[method] as Handler<DaemonMethod>;
      reply(await handler(checked.value, conn));
    } catch (e) {
      // Thrown with its code, sent with it unchanged; a provider's refusal is the caller's to fix.
      if (e instanceof RpcError && isErrorCode(e.code)) error(e.code, e.message);
      else if (e instanceof ProviderError) error('bad_request', e.message);
      else {
        log(`internal error in ${method}: ${(e as Error).message}`);
        error('internal', `the daemon failed on ${method}: ${(e as Error).message}`);
      }
    }
  }

  wss.on('connection', (ws: WebSocket) => {
    const conn = new Connection(ws, nextConnId++);
    conns.add(conn);
    opts.onConnectionsChange?.();
    ws.on('pong', () => (conn.alive = true));
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) {
        ws.close(1003, 'text frames only');
        return;
      }
      handle(conn, rawText(data)).catch((e: unknown) => log(`connection ${conn.id}: ${(e as Error).message}`));
    });
    ws.on('close', () => {
      conns.delete(conn);
      conn.unregisterLm?.();
      conn.unregisterLm = undefined;
      if (lmOwner === conn) lmOwner = undefined;
      opts.onConnectionsChange?.();
    });
    ws.on('error', (e) => log(`connection ${conn.id}: ${e.message}`));
  });

  const heartbeat = setInterval(() => {
    for (const conn of conns) {
      if (!conn.alive) {
        conn.ws.terminate();
        conns.delete(conn);
        opts.onConnectionsChange?.();
        continue;
      }
      conn.alive = false;
      conn.ws.ping();
    }
  }, opts.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();

  await new Promise<void>((resolve, reject) => {
    http_.once('error', reject);
    http_.listen(opts.port, '127.0.0.1', () => {
      http_.off('error', reject);
      resolve();
    });
  });
  port = (http_.address() as AddressInfo).port;

  return {
    port,
    connections: () => conns.size,
    close: async () => {
      clearInterval(heartbeat);
      fanout.close();
      for (const conn of conns) conn.ws.close(1001, 'the daemon is shutting down');
      await new Promise<void>((resolve) => http_.close(() => resolve()));
      for (const conn of conns) conn.ws.terminate();
    },
  };
}
