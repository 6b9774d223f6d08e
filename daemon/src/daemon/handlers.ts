/**
 * The daemon's methods as a table: one named handler per method, each given the server's context,
 * the checked params and the calling connection. The agent/* methods live in agentHandlers.ts.
 */
import type { DaemonMethod, MeetingEvent, ParamsOf, ResultOf } from '@roundtable/protocol';
import { MAX_MESSAGE_BYTES, MEETING_PAGE_DEFAULT, RpcError, fold, listedSummary } from '@roundtable/protocol';
import { minutesFileBase, renderMinutes } from '@roundtable/protocol/minutes';
import { manifestLine } from '@roundtable/protocol/manifest';
import { estimateMeeting } from '../meeting/estimate';
import type { PreparedStart } from '../meeting/prepared';
import { listDecisions } from '../decisions/listing';
import { agentHandlers } from './agentHandlers';
import type { Connection } from './connection';
import { refuseNotOwner } from './seats';
import type { MethodHandler, ServerContext } from './serverContext';

export const DAEMON_VERSION = '0.1.0';

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

/** Subscribes a connection to a meeting's events after `sinceSeq`; returns the log's last seq now. */
async function subscribe(ctx: ServerContext, conn: Connection, meetingId: string, sinceSeq: number): Promise<number> {
  const { lastSeq } = await ctx.manager.state(meetingId);
  conn.subscriptions.set(meetingId, { lastSent: Math.min(sinceSeq, lastSeq), pumping: false, again: false });
  // History is pumped after the response so the client sees the ack first, then events in order.
  setImmediate(() => void ctx.fanout.pump(conn, meetingId));
  return lastSeq;
}

type Params<M extends DaemonMethod> = ParamsOf<M>;
type Result<M extends DaemonMethod> = Promise<ResultOf<M>>;

/** A meeting this connection opened: its opener may end it; `follow` subscribes it in the same request. */
async function opened(ctx: ServerContext, conn: Connection, meetingId: string, follow: boolean | undefined) {
  conn.opened.add(meetingId);
  // Subscribed in the same request: the caller follows from seq 1 without a second round trip.
  const lastSeq = follow ? await subscribe(ctx, conn, meetingId, 0) : (await ctx.manager.state(meetingId)).lastSeq;
  return { meetingId, lastSeq };
}

async function start(
  ctx: ServerContext,
  { follow, ...params }: Params<'meeting/start'>,
  conn: Connection,
): Result<'meeting/start'> {
  return opened(ctx, conn, await ctx.manager.start(params), follow);
}

/**
 * The attached context is read as the start would read it, once; the prompts are built, nothing
 * is called or written. Abandoned when the client hangs up; bounded in work (see estimate.ts).
 * With `prepare`, what was read is kept on this connection for `meeting/startPrepared`.
 */
async function estimate(
  ctx: ServerContext,
  { prepare, ...params }: Params<'meeting/estimate'>,
  conn: Connection,
  cancelled: AbortSignal,
): Result<'meeting/estimate'> {
  try {
    let prepared: PreparedStart | undefined;
    const signal = AbortSignal.any([conn.gone.signal, cancelled]);
    const estimated = await estimateMeeting(params, { signal, onPrepared: (p) => (prepared = p) });
    const startToken = prepare && prepared ? conn.prepared.keep(prepared) : undefined;
    return { ...estimated, ...(startToken ? { startToken } : {}) };
  } catch (e) {
    if (conn.gone.signal.aborted) ctx.log(`connection ${conn.id}: estimate abandoned (the client left)`);
    else if (cancelled.aborted) ctx.log(`connection ${conn.id}: estimate abandoned (the client cancelled it)`);
    throw e;
  }
}

/** Opens the meeting an estimate prepared on this connection: the topic and context are not sent or read again. */
async function startPrepared(
  ctx: ServerContext,
  { startToken, follow, apiKey, limits }: Params<'meeting/startPrepared'>,
  conn: Connection,
): Result<'meeting/startPrepared'> {
  if (!conn.prepared.holds(startToken) && [...ctx.conns].some((c) => c.prepared.holds(startToken)))
    throw new RpcError('forbidden', 'this start was prepared on another connection: estimate it again on this one');
  const { params, context } = conn.prepared.take(startToken);
  const config = limits ? { ...params.config, ...limits } : params.config;
  const asked = { ...params, ...(config ? { config } : {}), ...(apiKey ? { apiKey } : {}) };
  return opened(ctx, conn, await ctx.manager.start(asked, context), follow);
}

async function get(ctx: ServerContext, p: Params<'meeting/get'>): Result<'meeting/get'> {
  const state = await ctx.manager.state(p.meetingId);
  const sinceSeq = p.sinceSeq ?? 0;
  const all = await ctx.manager.events(p.meetingId, sinceSeq);
  const events = pageOf(all, p.limit ?? MEETING_PAGE_DEFAULT);
  return {
    summary: listedSummary(state),
    events,
    lastSeq: events.at(-1)?.seq ?? sinceSeq,
    more: events.length < all.length,
  };
}

function unsubscribe(_ctx: ServerContext, p: Params<'room/unsubscribe'>, conn: Connection): Result<'room/unsubscribe'> {
  conn.subscriptions.delete(p.meetingId);
  return Promise.resolve({});
}

async function post(ctx: ServerContext, p: Params<'room/post'>, conn: Connection): Result<'room/post'> {
  refuseNotOwner(conn, p.meetingId, 'post as the person (its words go through speak)');
  return { messageId: await ctx.manager.post(p.meetingId, p.text, p.from) };
}

async function cut(ctx: ServerContext, p: Params<'meeting/cut'>, conn: Connection): Result<'meeting/cut'> {
  refuseNotOwner(conn, p.meetingId, 'cut the meeting');
  await ctx.manager.cut(p.meetingId, p.reason);
  return {};
}

async function close(ctx: ServerContext, p: Params<'meeting/close'>, conn: Connection): Result<'meeting/close'> {
  refuseNotOwner(conn, p.meetingId, 'close the meeting');
  await ctx.manager.close(p.meetingId, p.reason);
  return {};
}

async function resolve(ctx: ServerContext, p: Params<'meeting/resolve'>, conn: Connection): Result<'meeting/resolve'> {
  refuseNotOwner(conn, p.meetingId, 'resolve the meeting', true);
  await ctx.manager.resolve(p.meetingId, p.action, {
    ...(p.option !== undefined ? { option: p.option } : {}),
    ...(p.instruction !== undefined ? { instruction: p.instruction } : {}),
  });
  return {};
}

async function remove(ctx: ServerContext, p: Params<'meeting/delete'>, conn: Connection): Result<'meeting/delete'> {
  refuseNotOwner(conn, p.meetingId, 'delete the meeting');
  await ctx.manager.remove(p.meetingId);
  for (const c of ctx.conns) c.subscriptions.delete(p.meetingId);
  return {};
}

/** Minutes for clients of earlier releases; clients now render them from the state they hold. */
async function render(ctx: ServerContext, p: Params<'meeting/render'>): Result<'meeting/render'> {
  const events = await ctx.manager.events(p.meetingId, 0);
  if (events.length === 0) throw new RpcError('not_found', `no meeting ${p.meetingId}`);
  const state = fold(events);
  const fileBase = minutesFileBase(state);
  return {
    minutes: renderMinutes(state),
    fileBase,
    ...(state.mode === 'consensus' ? { manifestLine: manifestLine(state, `${fileBase}.md`) } : {}),
  };
}

async function decide(ctx: ServerContext, p: Params<'meeting/decide'>, conn: Connection): Result<'meeting/decide'> {
  refuseNotOwner(conn, p.meetingId, 'decide the meeting', true);
  await ctx.manager.decide(p.meetingId, p.decision, {
    ...(p.instruction !== undefined ? { instruction: p.instruction } : {}),
    ...(p.digestText !== undefined ? { digestText: p.digestText } : {}),
  });
  return {};
}

/** The workspace's decision records through the one loader and the workspace gate, as the CLI lists them. */
async function decisionsList(_ctx: ServerContext, p: Params<'decisions/list'>): Result<'decisions/list'> {
  const listed = await listDecisions(p);
  if (!listed.ok) throw new RpcError('bad_request', listed.reason);
  return listed.result;
}

function lmRegister(ctx: ServerContext, p: Params<'lm/register'>, conn: Connection): Result<'lm/register'> {
  const bridge = ctx.lmBridge;
  if (!bridge) return Promise.reject(new RpcError('bad_request', 'this daemon does not take vscode-lm calls'));
  // A window of an earlier release waits for `lm/request` events this daemon no longer sends.
  if (!p.answers?.includes('lm/chat')) {
    return Promise.reject(
      new RpcError(
        'bad_request',
        "this window's Roundtable extension is older than the daemon and cannot answer vscode-lm calls: reload the window",
      ),
    );
  }
  const owner = ctx.lmOwner;
  if (owner && owner !== conn && owner.ws.readyState === owner.ws.OPEN) {
    return Promise.reject(
      new RpcError(
        'conflict',
        'another VS Code window already answers vscode-lm calls for this daemon; close it (or its Roundtable connection) to answer from this one',
      ),
    );
  }
  // The previous owner is gone (or is this connection): its registration is replaced.
  owner?.unregisterLm?.();
  if (owner) owner.unregisterLm = undefined;
  ctx.lmOwner = conn;
  conn.unregisterLm = bridge.register({ chat: (params, opts) => conn.calls.call('lm/chat', params, opts) });
  return Promise.resolve({});
}

function handshakeOnly(): Promise<never> {
  return Promise.reject(new RpcError('internal', 'the handshake is answered before the handler table'));
}

export const handlers: { [M in DaemonMethod]: MethodHandler<M> } = {
  // The handshake is answered in handle() (auth.ts), synchronously; listed so every method has a handler.
  initialize: handshakeOnly,
  authenticate: handshakeOnly,
  'meeting/start': start,
  // The attached context is read as the start would read it; the prompts are built, nothing is
  // called or written. Abandoned when the client hangs up or cancels; bounded in work (see estimate.ts).
  'meeting/estimate': estimate,
  'meeting/startPrepared': startPrepared,
  'meeting/list': async (ctx) => ({ meetings: await ctx.manager.list() }),
  'meeting/get': get,
  'room/subscribe': async (ctx, p, conn) => ({ lastSeq: await subscribe(ctx, conn, p.meetingId, p.sinceSeq) }),
  'room/unsubscribe': unsubscribe,
  'room/post': post,
  'meeting/cut': cut,
  'meeting/close': close,
  'meeting/resolve': resolve,
  'meeting/delete': remove,
  'meeting/render': render,
  'decisions/list': decisionsList,
  'lm/register': lmRegister,
  'meeting/decide': decide,
  ...agentHandlers,
};
