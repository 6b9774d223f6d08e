/**
 * The daemon's WebSocket API on 127.0.0.1: accepts connections (auth.ts decides who may), checks
 * each request and dispatches it to its handler, and drops connections that stop answering pings.
 * Subscribers are fed by fanout.ts; the handlers are the table in handlers.ts.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { DaemonMethod, ErrorCode, EventEnvelope, ParamsOf, ResponseEnvelope } from '@roundtable/protocol';
import {
  MAX_MESSAGE_BYTES,
  RpcError,
  checkParams,
  checkPeerNotification,
  isPeerNotification,
  isDaemonMethod,
  isErrorCode,
  parseEnvelope,
} from '@roundtable/protocol';
import type { VscodeLmBridge } from '../providers/vscodeLm';
import { ProviderError } from '../providers/types';
import type { MeetingManager } from './manager';
import { answerInitialize, checkAuthenticate, checkUpgrade, refuse } from './auth';
import { Connection } from './connection';
import { startFanout } from './fanout';
import { DAEMON_VERSION, handlers } from './handlers';
import { serialized } from './seats';
import { owned } from './faults';
import type { MethodHandler, ServerContext } from './serverContext';
import { rawText } from '@roundtable/client/rawData';

/** A connection that sends this many invalid messages is closed. */
const MAX_BAD_MESSAGES = 20;
const HEARTBEAT_MS = 15_000;
/** A connection that has not proved it holds the token by then is closed. */
const HANDSHAKE_MS = 10_000;

export interface ServerOptions {
  manager: MeetingManager;
  /** Where `vscode-lm` calls go; extensions register with it. */
  lmBridge?: VscodeLmBridge;
  token: string;
  /** 0 = any free port. */
  port: number;
  log: (line: string) => void;
  heartbeatMs?: number;
  /** How long a new connection has to complete the handshake (default 10 s). */
  handshakeMs?: number;
  /** Called after a client connected or disconnected (the idle watch listens). */
  onConnectionsChange?: () => void;
}

export interface RunningServer {
  port: number;
  close(): Promise<void>;
  /** Live connections that completed the handshake, for the idle watch, diagnostics and tests. */
  connections(): number;
}

async function handle(ctx: ServerContext, conn: Connection, raw: string): Promise<void> {
  const { log } = ctx;
  const env = parseEnvelope(raw, MAX_MESSAGE_BYTES);
  const refused = !env.ok ? env.error : env.value.kind === 'request' ? '' : fromPeer(conn, env.value);
  if (refused) {
    conn.bad++;
    conn.event('daemon/error', { code: 'bad_request', message: refused });
    if (conn.bad >= MAX_BAD_MESSAGES) conn.ws.close(1008, 'too many invalid messages');
    return;
  }
  if (!env.ok || env.value.kind !== 'request') return;
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
  if (!conn.authenticated && method !== 'initialize' && method !== 'authenticate') {
    error('not_initialized', 'send initialize and authenticate first');
    return;
  }
  const checked = checkParams(method, params);
  if (!checked.ok) {
    conn.bad++;
    error('bad_request', checked.error);
    return;
  }
  if (method === 'initialize' || method === 'authenticate') {
    // Settled synchronously so requests pipelined right behind it are already accepted.
    const step =
      method === 'initialize'
        ? answerInitialize(conn, checked.value as ParamsOf<'initialize'>, ctx.token, ctx.port(), DAEMON_VERSION)
        : checkAuthenticate(conn, checked.value as ParamsOf<'authenticate'>, ctx.token, ctx.port());
    if (!step.ok) {
      error(step.code, step.message);
      if (step.close) {
        log(`refused a connection: ${step.message}`);
        conn.ws.close(1008, 'handshake failed');
      }
      return;
    }
    if (conn.authenticated) {
      clearTimeout(conn.handshakeTimer);
      ctx.onConnectionsChange?.();
    }
    reply(step.result);
    return;
  }
  // The client's `$/cancelRequest` for this id aborts it (a handler that can stop listens).
  const cancel = new AbortController();
  conn.serving.set(id, cancel);
  try {
    const handler = handlers[method] as MethodHandler<DaemonMethod>;
    // A fault nobody awaited in the handler's work fails this request, not the daemon (faults.ts).
    const work = () => handler(ctx, checked.value, conn, cancel.signal);
    reply(await owned(`request ${method}`, work, () => cancel.abort()));
  } catch (e) {
    failed(ctx, method, e, error);
  } finally {
    conn.serving.delete(id);
  }
}

/** A request that threw: its code sent unchanged, a provider's refusal the caller's to fix, anything else internal. */
function failed(
  ctx: ServerContext,
  method: string,
  e: unknown,
  error: (code: ErrorCode, message: string) => void,
): void {
  if (e instanceof RpcError && isErrorCode(e.code)) error(e.code, e.message);
  else if (e instanceof ProviderError) error('bad_request', e.message);
  else {
    ctx.log(`internal error in ${method}: ${(e as Error).message}`);
    error('internal', `the daemon failed on ${method}: ${(e as Error).message}`);
  }
}

/**
 * What a client sends besides requests: answers to the daemon's requests, and `$/progress` and
 * `$/cancelRequest` (requestTypes.ts). Returns why it is refused, '' when it is taken.
 */
function fromPeer(conn: Connection, m: ResponseEnvelope | EventEnvelope): string {
  if (!conn.authenticated) return 'send initialize and authenticate first';
  if (m.kind === 'response') return conn.calls.answer(m) ? '' : `an answer to no request of the daemon (id ${m.id})`;
  if (!isPeerNotification(m.method)) return 'only requests, answers, $/progress and $/cancelRequest are accepted';
  const params = checkPeerNotification(m.method, m.params);
  if (!params.ok) return params.error;
  if ('value' in params.value) {
    return conn.calls.progress(params.value) ? '' : `progress for no request of the daemon (id ${params.value.id})`;
  }
  // A cancel may cross the answer on the wire: one for a request already answered is no error.
  conn.serving.get(params.value.id)?.abort();
  return '';
}

/**
 * Takes a new connection: its requests are handled in turn, its leaving frees what it held. It
 * counts as a client (for the idle watch) once its handshake is done, which it must finish in time.
 */
function accept(ctx: ServerContext, ws: WebSocket, connId: number, handshakeMs: number): void {
  const { conns, log } = ctx;
  const conn = new Connection(ws, connId);
  conns.add(conn);
  conn.handshakeTimer = setTimeout(() => {
    log(`connection ${conn.id}: no handshake within ${handshakeMs / 1000} s; closed`);
    ws.close(1008, 'handshake not completed in time');
    // A peer that does not answer the close gets no say in when its socket goes.
    setTimeout(() => ws.terminate(), 1_000).unref();
  }, handshakeMs);
  conn.handshakeTimer.unref();
  ws.on('pong', () => (conn.alive = true));
  ws.on('message', (data: RawData, isBinary: boolean) => {
    if (isBinary) {
      ws.close(1003, 'text frames only');
      return;
    }
    handle(ctx, conn, rawText(data)).catch((e: unknown) => log(`connection ${conn.id}: ${(e as Error).message}`));
  });
  ws.on('close', () => {
    clearTimeout(conn.handshakeTimer);
    conn.gone.abort();
    conns.delete(conn);
    conn.unregisterLm?.();
    conn.unregisterLm = undefined;
    conn.calls.closedBy('the client closed the connection');
    if (ctx.lmOwner === conn) ctx.lmOwner = undefined;
    ctx.onConnectionsChange?.();
  });
  ws.on('error', (e) => log(`connection ${conn.id}: ${e.message}`));
}

/** Pings every connection each period; one that did not answer the last ping is dropped. */
function startHeartbeat(ctx: ServerContext, ms: number): NodeJS.Timeout {
  const heartbeat = setInterval(() => {
    for (const conn of ctx.conns) {
      if (!conn.alive) {
        conn.ws.terminate();
        clearTimeout(conn.handshakeTimer);
        ctx.conns.delete(conn);
        ctx.onConnectionsChange?.();
        continue;
      }
      conn.alive = false;
      conn.ws.ping();
    }
  }, ms);
  heartbeat.unref();
  return heartbeat;
}

function listen(server: http.Server, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const { manager, log } = opts;
  const conns = new Set<Connection>();
  const ctx: ServerContext = {
    manager,
    conns,
    fanout: startFanout(manager, conns),
    joins: serialized(),
    lmBridge: opts.lmBridge,
    lmOwner: undefined,
    log,
    onConnectionsChange: opts.onConnectionsChange,
    token: opts.token,
    port: () => port,
  };
  let nextConnId = 1;
  let port = 0;
  const pending = (): number => [...conns].filter((c) => !c.authenticated).length;

  const http_ = http.createServer((_req, res) => {
    // Plain HTTP gets nothing: there is no page to serve and no reason to tell anyone more.
    res.writeHead(426, { 'Content-Type': 'text/plain', Connection: 'close' });
    res.end('WebSocket only\n');
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, clientTracking: false });

  http_.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    const verdict = checkUpgrade(req, port, pending());
    if (!verdict.ok) {
      log(`refused a connection: ${verdict.reason}`);
      refuse(socket, verdict.status, verdict.reason);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  const handshakeMs = opts.handshakeMs ?? HANDSHAKE_MS;
  wss.on('connection', (ws: WebSocket) => accept(ctx, ws, nextConnId++, handshakeMs));
  const heartbeat = startHeartbeat(ctx, opts.heartbeatMs ?? HEARTBEAT_MS);

  await listen(http_, opts.port);
  port = (http_.address() as AddressInfo).port;

  return {
    port,
    connections: () => conns.size - pending(),
    close: async () => {
      clearInterval(heartbeat);
      ctx.fanout.close();
      for (const conn of conns) conn.ws.close(1001, 'the daemon is shutting down');
      await new Promise<void>((resolve) => http_.close(() => resolve()));
      for (const conn of conns) conn.ws.terminate();
    },
  };
}
