/**
 * The agent/* methods: an attached agent takes a seat in a meeting on its connection, speaks
 * when its turn comes, listens for what the room said since, and leaves.
 */
import type { ParamsOf, ResultOf } from '@roundtable/protocol';
import { MAX_PARTICIPANTS, RpcError, isReservedName, messageIdOf, reservedNameError } from '@roundtable/protocol';
import { wrapPost } from '../providers/envelope';
import type { Connection } from './connection';
import type { AgentContext, MethodHandler } from './serverContext';
import { heldRound } from './seats';

export type AgentMethod = 'agent/join' | 'agent/speak' | 'agent/listen' | 'agent/leave';

type AgentSeat = { name: string; cursor: number };
type Seats = Awaited<ReturnType<AgentContext['manager']['seats']>>['seats'];

function agentOf(conn: Connection, meetingId: string): AgentSeat {
  const a = conn.agents.get(meetingId);
  if (!a) throw new RpcError('forbidden', 'join the meeting first (agent/join): this connection has no seat in it');
  return a;
}

function join(ctx: AgentContext, p: ParamsOf<'agent/join'>, conn: Connection): Promise<ResultOf<'agent/join'>> {
  if (isReservedName(p.name)) return Promise.reject(new RpcError('bad_request', reservedNameError(p.name)));
  return ctx.joins(p.meetingId, async () => {
    if (conn.agents.has(p.meetingId)) {
      throw new RpcError(
        'conflict',
        `this connection already sits in ${p.meetingId} as ${conn.agents.get(p.meetingId)?.name}`,
      );
    }
    for (const other of ctx.conns) {
      if (other !== conn && other.agents.get(p.meetingId)?.name.toLowerCase() === p.name.toLowerCase()) {
        throw new RpcError('conflict', `${p.name} is already taken by another connection`);
      }
    }
    const { meeting, seats } = await ctx.manager.seats(p.meetingId);
    if (meeting.state.status === 'closed') throw new RpcError('conflict', 'the meeting is closed');
    let participant = meeting.state.participants.find((x) => x.name.toLowerCase() === p.name.toLowerCase());
    if (participant && participant.provider !== 'attached') {
      throw new RpcError(
        'forbidden',
        `${participant.name} is run by the daemon; an attached agent cannot take that seat`,
      );
    }
    if (!participant) {
      if (meeting.state.participants.length >= MAX_PARTICIPANTS) {
        throw new RpcError(
          'conflict',
          `the meeting is full: it has ${MAX_PARTICIPANTS} seats, the most a meeting can have; join another meeting`,
        );
      }
      participant = { name: p.name, role: 'worker', provider: 'attached', model: 'attached' };
      await meeting.join(participant);
    }
    conn.seated.add(p.meetingId);
    seats.rejoin(participant.name);
    // A new seat hears the room from its start: the first listen brings the agent up to date.
    const cursor = 0;
    conn.agents.set(p.meetingId, { name: participant.name, cursor });
    return { participant, cursor };
  });
}

async function speak(
  ctx: AgentContext,
  p: ParamsOf<'agent/speak'>,
  conn: Connection,
): Promise<ResultOf<'agent/speak'>> {
  const me = agentOf(conn, p.meetingId);
  const { seats, meeting } = await ctx.manager.seats(p.meetingId);
  await meeting.execute({ type: 'speak', name: me.name, text: p.text });
  const turn = seats.turnOf(me.name);
  try {
    seats.speak(me.name, p.text);
  } catch (e) {
    throw new RpcError('conflict', (e as Error).message);
  }
  return { messageId: messageIdOf('turn', turn?.round ?? meeting.state.rounds.length, me.name) };
}

/** What the room said since the agent's cursor, which moves past it. */
async function collect(
  ctx: AgentContext,
  meetingId: string,
  me: AgentSeat,
  seats: Seats,
): Promise<ResultOf<'agent/listen'>> {
  const state = await ctx.manager.state(meetingId);
  const events = await ctx.manager.events(meetingId, me.cursor);
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
}

/** Resolves after `waitMs`, or sooner when the seats change or the meeting logs an event. */
function waitForNews(ctx: AgentContext, meetingId: string, seats: Seats, waitMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      unwatch();
      unlisten();
      resolve();
    };
    const timer = setTimeout(done, waitMs);
    const unwatch = seats.watch(done);
    const unlisten = ctx.manager.onEvent((e) => {
      if (e.meetingId === meetingId) done();
    });
  });
}

async function listen(
  ctx: AgentContext,
  p: ParamsOf<'agent/listen'>,
  conn: Connection,
): Promise<ResultOf<'agent/listen'>> {
  const me = agentOf(conn, p.meetingId);
  const { seats } = await ctx.manager.seats(p.meetingId);
  let result = await collect(ctx, p.meetingId, me, seats);
  const waitMs = p.waitMs ?? 0;
  if (result.posts.length === 0 && !result.turn && !result.closed && waitMs > 0) {
    await waitForNews(ctx, p.meetingId, seats, waitMs);
    result = await collect(ctx, p.meetingId, me, seats);
  }
  return result;
}

async function leave(
  ctx: AgentContext,
  p: ParamsOf<'agent/leave'>,
  conn: Connection,
): Promise<ResultOf<'agent/leave'>> {
  const me = agentOf(conn, p.meetingId);
  const { seats, meeting } = await ctx.manager.seats(p.meetingId);
  await meeting.execute({ type: 'leave', name: me.name });
  conn.agents.delete(p.meetingId);
  // The seat passes now (a pending turn at once, a later one as soon as it is offered), so the
  // agent sits out the remaining rounds and the room never waits a turn timeout for it.
  seats.leave(me.name);
  return {};
}

export const agentHandlers: { [M in AgentMethod]: MethodHandler<M, AgentContext> } = {
  'agent/join': join,
  'agent/speak': speak,
  'agent/listen': listen,
  'agent/leave': leave,
};
