/**
 * The daemon's WebSocket API on 127.0.0.1. Who may connect is settled in the HTTP `upgrade`
 * handler, before any WebSocket exists: a valid token (compared in constant time), a Host of
 * 127.0.0.1:<port> or localhost:<port> (defeats DNS rebinding), and no browser Origin at all
 * (the extension relays for its webviews, so no browser ever needs the daemon).
 */
import { CommandRejected } from '../meeting/commands';
import { createHash, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type {
  DaemonEvents,
  DaemonMethod,
  ErrorCode,
  MeetingEvent,
  MessageDelta,
  ParamsOf,
  ResultOf,
} from '../../../protocol/src';
import {
  MAX_MESSAGE_BYTES,
  MAX_PARTICIPANTS,
  MEETING_PAGE_DEFAULT,
  PROTOCOL_VERSION,
  checkParams,
  fold,
  isDaemonMethod,
  isReservedName,
  parseEnvelope,
  reservedNameError,
} from '../../../protocol/src';
import { minutesFileBase, renderMinutes } from '../meeting/minutes';
import { manifestLine } from '../meeting/manifest';
import type { VscodeLmBridge } from '../providers/vscodeLm';
import { wrapPost } from '../meeting/envelope';
import { ProviderError } from '../providers/types';
import { BadRequest, Conflict, NotFound, summaryOf, type MeetingManager } from './manager';
import { heldRound, serialized } from './seats';
import { rawText } from '../../../client/src/rawData';

export const DAEMON_VERSION = '0.1.0';
/** A connection that sends this many invalid messages is closed. */
const MAX_BAD_MESSAGES = 20;
const HEARTBEAT_MS = 15_000;
/** Streaming text is sent at most this often per message (about one screen frame). */
const DELTA_FLUSH_MS = 16;

export interface ServerOptions {
  manager: MeetingManager;
  /** Where `vscode-lm` calls go; extensions register with it. */
  lmBridge?: VscodeLmBridge;
  token: string;
  /** 0 = any free port. */
  port: number;
  log: (line: string) => void;
  heartbeatMs?: number;
}

export interface RunningServer {
  port: number;
  close(): Promise<void>;
  /** Live connections, for diagnostics and tests. */
  connections(): number;
}

class RequestError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** Constant-time token check: both sides are hashed first so lengths never leak through timing. */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  return timingSafeEqual(digest(given), digest(expected));
}

export function checkUpgrade(
  req: http.IncomingMessage,
  token: string,
  port: number,
): { ok: true } | { ok: false; status: number; reason: string } {
  if (req.headers.origin !== undefined) {
    return { ok: false, status: 403, reason: 'browser origins are not allowed to connect to the daemon' };
  }
  const host = (req.headers.host ?? '').toLowerCase();
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
    return { ok: false, status: 403, reason: 'the Host header must be 127.0.0.1:<port> or localhost:<port>' };
  }
  const auth = req.headers.authorization;
  const given = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : undefined;
  if (!tokenMatches(given, token)) return { ok: false, status: 401, reason: 'a valid token is required' };
  return { ok: true };
}

function refuse(socket: Duplex, status: number, reason: string): void {
  const body = `${reason}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Refused'}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
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

type Handler<M extends DaemonMethod> = (params: ParamsOf<M>, conn: Connection) => Promise<ResultOf<M>>;

/** One client connection: its subscriptions, its agent identities and its cursors. */
class Connection {
  initialized = false;
  alive = true;
  bad = 0;
  /** meetingId -> last seq sent to this client. */
  readonly subscriptions = new Map<string, { lastSent: number; pumping: boolean; again: boolean }>();
  /** meetingId -> identity bound at join, with its own listen cursor. */
  readonly agents = new Map<string, { name: string; cursor: number }>();
  /** Set when this connection answers vscode-lm calls. */
  unregisterLm: (() => void) | undefined;

  constructor(
    readonly ws: WebSocket,
    readonly id: number,
  ) {}

  send(payload: unknown): void {
    this.sendRaw(JSON.stringify(payload));
  }

  sendRaw(frame: string): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(frame);
  }

  event<K extends keyof DaemonEvents>(method: K, params: DaemonEvents[K]): void {
    this.send({ kind: 'event', method, params });
  }
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const { manager, log } = opts;
  const conns = new Set<Connection>();
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

  /** Sends a subscriber every event it has not seen, in order, from the store: no gap, no repeat. */
  async function pump(conn: Connection, meetingId: string): Promise<void> {
    const sub = conn.subscriptions.get(meetingId);
    if (!sub) return;
    if (sub.pumping) {
      sub.again = true;
      return;
    }
    sub.pumping = true;
    try {
      do {
        sub.again = false;
        const events = await manager.events(meetingId, sub.lastSent);
        for (const event of events) {
          if (conn.subscriptions.get(meetingId) !== sub || event.seq !== sub.lastSent + 1) break;
          conn.event('room/event', { event });
          sub.lastSent = event.seq;
        }
      } while (sub.again);
    } finally {
      sub.pumping = false;
    }
  }

  /**
   * Streaming text is coalesced: pieces of one message arriving within a frame time go out as one
   * delta, and pending pieces are always sent before the next logged event, so a view never
   * sees text after the message it belongs to was posted. Each frame is serialized once for all.
   */
  const pendingDeltas = new Map<string, MessageDelta>();
  let deltaTimer: NodeJS.Timeout | undefined;
  function flushDeltas(): void {
    if (deltaTimer) clearTimeout(deltaTimer);
    deltaTimer = undefined;
    for (const d of pendingDeltas.values()) {
      const frame = JSON.stringify({ kind: 'event', method: 'room/delta', params: { delta: d } });
      for (const conn of conns) if (conn.subscriptions.has(d.meetingId)) conn.sendRaw(frame);
    }
    pendingDeltas.clear();
  }

  const unEvent = manager.onEvent((e: MeetingEvent) => {
    if (pendingDeltas.size > 0) flushDeltas();
    let frame: string | undefined;
    for (const conn of conns) {
      const sub = conn.subscriptions.get(e.meetingId);
      if (!sub) continue;
      // Fast path: the next event in order goes straight out; anything else is read from the store.
      if (!sub.pumping && e.seq === sub.lastSent + 1) {
        frame ??= JSON.stringify({ kind: 'event', method: 'room/event', params: { event: e } });
        conn.sendRaw(frame);
        sub.lastSent = e.seq;
      } else if (e.seq > sub.lastSent) {
        void pump(conn, e.meetingId);
      }
    }
  });
  const unDelta = manager.onDelta((d: MessageDelta) => {
    const key = `${d.meetingId}\u0000${d.messageId}`;
    const prev = pendingDeltas.get(key);
    pendingDeltas.set(key, prev ? { ...prev, text: prev.text + d.text } : { ...d });
    deltaTimer ??= setTimeout(flushDeltas, DELTA_FLUSH_MS);
  });

  /** The connection whose VS Code window answers vscode-lm calls: one per daemon. */
  let lmOwner: Connection | undefined;
  /** Joins of one meeting run one at a time, so the seat limit and name checks cannot be raced. */
  const joins = serialized();

  function agentOf(conn: Connection, meetingId: string): { name: string; cursor: number } {
    const a = conn.agents.get(meetingId);
    if (!a)
      throw new RequestError('forbidden', 'join the meeting first (agent/join): this connection has no seat in it');
    return a;
  }

  const handlers: { [M in DaemonMethod]: Handler<M> } = {
    // Answered in handle(), synchronously; listed here so every method has a handler.
    initialize: () => Promise.resolve({ protocolVersion: PROTOCOL_VERSION, daemonVersion: DAEMON_VERSION }),
    'meeting/start': async (p) => ({ meetingId: await manager.start(p) }),
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
    'room/subscribe': async (p, conn) => {
      const state = await manager.state(p.meetingId);
      conn.subscriptions.set(p.meetingId, {
        lastSent: Math.min(p.sinceSeq, state.lastSeq),
        pumping: false,
        again: false,
      });
      // History is pumped after the response so the client sees the ack first, then events in order.
      setImmediate(() => void pump(conn, p.meetingId));
      return { lastSeq: state.lastSeq };
    },
    'room/unsubscribe': (p, conn) => {
      conn.subscriptions.delete(p.meetingId);
      return Promise.resolve({});
    },
    'room/post': async (p) => ({ messageId: await manager.post(p.meetingId, p.text, p.from) }),
    'meeting/cut': async (p) => {
      await manager.cut(p.meetingId, p.reason);
      return {};
    },
    'meeting/close': async (p) => {
      await manager.close(p.meetingId, p.reason);
      return {};
    },
    'meeting/resolve': async (p) => {
      await manager.resolve(p.meetingId, p.action, {
        ...(p.option !== undefined ? { option: p.option } : {}),
        ...(p.instruction !== undefined ? { instruction: p.instruction } : {}),
      });
      return {};
    },
    'meeting/render': async (p) => {
      const events = await manager.events(p.meetingId, 0);
      if (events.length === 0) throw new NotFound(`no meeting ${p.meetingId}`);
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
      if (!bridge) return Promise.reject(new RequestError('bad_request', 'this daemon does not take vscode-lm calls'));
      if (lmOwner && lmOwner !== conn && lmOwner.ws.readyState === lmOwner.ws.OPEN) {
        return Promise.reject(
          new RequestError(
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
      opts.lmBridge?.done(p.requestId, p.text, {
        ...(p.promptTokens !== undefined ? { promptTokens: p.promptTokens } : {}),
        ...(p.completionTokens !== undefined ? { completionTokens: p.completionTokens } : {}),
      });
      return Promise.resolve({});
    },
    'lm/fail': (p) => {
      opts.lmBridge?.fail(p.requestId, p.message, p.kind);
      return Promise.resolve({});
    },
    'meeting/decide': async (p) => {
      await manager.decide(p.meetingId, p.decision, {
        ...(p.instruction !== undefined ? { instruction: p.instruction } : {}),
        ...(p.digestText !== undefined ? { digestText: p.digestText } : {}),
      });
      return {};
    },
    'agent/join': (p, conn) => {
      if (isReservedName(p.name)) return Promise.reject(new RequestError('bad_request', reservedNameError(p.name)));
      return joins(p.meetingId, async () => {
        if (conn.agents.has(p.meetingId)) {
          throw new RequestError(
            'conflict',
            `this connection already sits in ${p.meetingId} as ${conn.agents.get(p.meetingId)?.name}`,
          );
        }
        for (const other of conns) {
          if (other !== conn && other.agents.get(p.meetingId)?.name.toLowerCase() === p.name.toLowerCase()) {
            throw new RequestError('conflict', `${p.name} is already taken by another connection`);
          }
        }
        const { meeting, seats } = await manager.seats(p.meetingId);
        if (meeting.state.status === 'closed') throw new RequestError('conflict', 'the meeting is closed');
        let participant = meeting.state.participants.find((x) => x.name.toLowerCase() === p.name.toLowerCase());
        if (participant && participant.provider !== 'attached') {
          throw new RequestError(
            'forbidden',
            `${participant.name} is run by the daemon; an attached agent cannot take that seat`,
          );
        }
        if (!participant) {
          if (meeting.state.participants.length >= MAX_PARTICIPANTS) {
            throw new RequestError(
              'conflict',
              `the meeting is full: it has ${MAX_PARTICIPANTS} seats, the most a meeting can have; join another meeting`,
            );
          }
          participant = { name: p.name, role: 'worker', provider: 'attached', model: 'attached' };
          await meeting.join(participant);
        }
        seats.rejoin(participant.name);
        // A new seat hears the room from its start: the first listen brings the agent up to date.
        const cursor = 0;
        conn.agents.set(p.meetingId, { name: participant.name, cursor });
        return { participant, cursor };
      });
    },
    'agent/speak': async (p, conn) => {
      const me = agentOf(conn, p.meetingId);
      const { seats, meeting } = await manager.seats(p.meetingId);
      await meeting.execute({ type: 'speak', name: me.name, text: p.text });
      const turn = seats.turnOf(me.name);
      try {
        seats.speak(me.name, p.text);
      } catch (e) {
        throw new RequestError('conflict', (e as Error).message);
      }
      return { messageId: `r${turn?.round ?? meeting.state.rounds.length}-${me.name}` };
    },
    'agent/listen': async (p, conn) => {
      const me = agentOf(conn, p.meetingId);
      const { seats } = await manager.seats(p.meetingId);
      const collect = async () => {
        const state = await manager.state(p.meetingId);
        const events = await manager.events(p.meetingId, me.cursor);
        // Nothing awaits from here on: the cursor moves atomically, so two listens on one
        // connection never deliver the same post twice.
        const held = heldRound(state, me.name);
        const judge = state.participants.find((x) => x.role === 'judge')?.name ?? 'judge';
        const posts: string[] = [];
        let closed = false;
        for (const e of events) {
          if (e.seq <= me.cursor) continue;
          // In parallel order the round's other contributions wait until this agent has spoken.
          if (e.type === 'message_posted' && e.kind === 'contribution' && e.round === held && e.from !== me.name) break;
          me.cursor = e.seq;
          if (e.type === 'message_posted' && e.from !== me.name) {
            posts.push(wrapPost({ from: e.from, kind: 'peer', seq: e.seq, text: e.text }));
          } else if (e.type === 'human_posted') {
            posts.push(wrapPost({ from: 'human', kind: 'peer', seq: e.seq, text: e.text }));
          } else if (e.type === 'judge_feedback' && e.text) {
            posts.push(wrapPost({ from: judge, kind: 'peer', seq: e.seq, text: e.text }));
          } else if (e.type === 'meeting_closed') closed = true;
        }
        return { posts, cursor: me.cursor, turn: seats.turnOf(me.name), closed: closed || state.status === 'closed' };
      };
      let result = await collect();
      const waitMs = p.waitMs ?? 0;
      if (result.posts.length === 0 && !result.turn && !result.closed && waitMs > 0) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            clearTimeout(timer);
            unwatch();
            unlisten();
            resolve();
          };
          const timer = setTimeout(done, waitMs);
          const unwatch = seats.watch(done);
          const unlisten = manager.onEvent((e) => {
            if (e.meetingId === p.meetingId) done();
          });
        });
        result = await collect();
      }
      return result;
    },
    'agent/leave': async (p, conn) => {
      const me = agentOf(conn, p.meetingId);
      const { seats, meeting } = await manager.seats(p.meetingId);
      await meeting.execute({ type: 'leave', name: me.name });
      conn.agents.delete(p.meetingId);
      // The seat passes now (a pending turn at once, a later one as soon as it is offered), so the
      // agent sits out the remaining rounds and the room never waits a turn timeout for it.
      seats.leave(me.name);
      return {};
    },
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
      if (e instanceof RequestError) error(e.code, e.message);
      else if (e instanceof NotFound) error('not_found', e.message);
      else if (e instanceof CommandRejected) error(e.code, e.message);
      else if (e instanceof Conflict) error('conflict', e.message);
      else if (e instanceof BadRequest) error('bad_request', e.message);
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
    });
    ws.on('error', (e) => log(`connection ${conn.id}: ${e.message}`));
  });

  const heartbeat = setInterval(() => {
    for (const conn of conns) {
      if (!conn.alive) {
        conn.ws.terminate();
        conns.delete(conn);
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
      flushDeltas();
      unEvent();
      unDelta();
      for (const conn of conns) conn.ws.close(1001, 'the daemon is shutting down');
      await new Promise<void>((resolve) => http_.close(() => resolve()));
      for (const conn of conns) conn.ws.terminate();
    },
  };
}
