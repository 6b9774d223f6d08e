/**
 * Seats, as an attached agent and a VS Code window see them over real WebSocket connections to a
 * real daemon: reserved names and the seat limit are refused at join, a seat whose agent left
 * passes at once, the round's posts wait until the agent has spoken, a post is delivered once,
 * and one window answers vscode-lm calls.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MeetingEvent, StartMeetingParams } from '@roundtable/protocol';
import { MAX_PARTICIPANTS, RpcError, fold } from '@roundtable/protocol';
import { connectDaemon, type DaemonConnection } from '@roundtable/client';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { Follower, tempDataDir } from '../fakes/daemon';
import { panel } from '../fakes/meetings';
import { connectWindow, copilotPanel } from '../fakes/vscodeWindow';

const ext = { name: 'ext', role: 'worker' as const, provider: 'attached' as const, model: 'claude' };

function params(replies: Record<string, string[]>, extra: Partial<StartMeetingParams> = {}): StartMeetingParams {
  return {
    topic: 'Seats',
    mode: 'roundtable',
    participants: [...panel(Object.keys(replies), false), ext],
    providers: { script: { replies } },
    ...extra,
  };
}

const posted = (events: MeetingEvent[], meetingId: string, from: string, round: number): boolean =>
  events.some((e) => e.meetingId === meetingId && e.type === 'message_posted' && e.from === from && e.round === round);

describe('attached seats', () => {
  let d: DaemonHandle;
  let host: Follower;
  const opened: DaemonConnection[] = [];
  const connect = async (): Promise<DaemonConnection> => {
    const c = await connectDaemon(d.port, d.token, { client: 'agent' });
    opened.push(c);
    return c;
  };
  before(async () => {
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: () => undefined });
    host = await Follower.connect(d.port, d.token);
  });
  after(async () => {
    await Promise.all(opened.map((c) => c.close().catch(() => undefined)));
    await host.conn.close();
    await d.stop();
  });

  it('refuses reserved names and the seat past the limit, with a clear error', async () => {
    const slow = Array.from({ length: 3 }, () => 'Thinking. [STANCE: NEUTRAL]');
    const { meetingId } = await host.conn.rpc.request(
      'meeting/start',
      params({ ada: slow }, { providers: { script: { defaultDelayMs: 5_000, replies: { ada: slow } } } }),
    );
    const agent = await connect();
    for (const name of ['human', 'HUMAN', 'Converged', 'system']) {
      await assert.rejects(
        agent.rpc.request('agent/join', { meetingId, name }),
        (e: RpcError) => e.code === 'bad_request' && /is reserved/.test(e.message),
        name,
      );
    }
    const seated = (await host.conn.rpc.request('meeting/get', { meetingId })).events.filter(
      (e) => e.type === 'meeting_opened',
    );
    const already = seated[0]?.type === 'meeting_opened' ? seated[0].participants.length : 0;
    const agents = await Promise.all(Array.from({ length: 40 }, () => connect()));
    const results = await Promise.allSettled(
      agents.map((a, i) => a.rpc.request('agent/join', { meetingId, name: `w${i}` })),
    );
    const refused = results.filter((r) => r.status === 'rejected').map((r) => r.reason as RpcError);
    assert.equal(results.length - refused.length, MAX_PARTICIPANTS - already);
    assert.ok(refused.every((e) => e.code === 'conflict' && /the meeting is full/.test(e.message)));
    const { events } = await host.conn.rpc.request('meeting/get', { meetingId });
    assert.equal(fold(events).participants.length, MAX_PARTICIPANTS);
    await host.conn.rpc.request('meeting/cut', { meetingId });
  });

  it('passes the seat of an agent that left: the room never waits its turn timeout again', async () => {
    const { meetingId } = await host.conn.rpc.request(
      'meeting/start',
      params(
        { ada: Array.from({ length: 3 }, () => 'No. [STANCE: DISAGREE]') },
        { config: { maxRounds: 3, order: 'sequential', turnTimeoutMs: 120_000 } },
      ),
    );
    const agent = await connect();
    await agent.rpc.request('agent/join', { meetingId, name: 'ext' });
    let r = await agent.rpc.request('agent/listen', { meetingId, waitMs: 10_000 });
    while (!r.turn) r = await agent.rpc.request('agent/listen', { meetingId, waitMs: 10_000 });
    await agent.rpc.request('agent/speak', { meetingId, text: 'Yes. [STANCE: AGREE]' });
    await agent.rpc.request('agent/leave', { meetingId });
    await host.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    // A wait of one turn timeout (120 s) would blow this 30 s limit.
    await host.until((ev) => ev.some((e) => e.meetingId === meetingId && e.type === 'meeting_closed'), 30_000);
    const s = fold(host.events.filter((e) => e.meetingId === meetingId));
    assert.equal(s.rounds[1]?.stances.ext?.passed, true, 'round 2: the seat passed');
    assert.ok(!s.rounds.some((x) => x.failures.ext), 'no timeout');
    assert.ok(s.rounds.length < 3 || !s.rounds[2]?.speakers.includes('ext'), 'and sits out the rest');
  });

  it('in parallel order shows the round only after the agent spoke, and never one post twice', async () => {
    const { meetingId } = await host.conn.rpc.request(
      'meeting/start',
      params(
        { ada: ['ADA-ROUND-1 [STANCE: AGREE]'], grace: ['GRACE-ROUND-1 [STANCE: DISAGREE]'] },
        { config: { maxRounds: 1, order: 'parallel', turnTimeoutMs: 60_000 } },
      ),
    );
    const agent = await connect();
    await agent.rpc.request('agent/join', { meetingId, name: 'ext' });
    await host.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await host.until((ev) => posted(ev, meetingId, 'ada', 1) && posted(ev, meetingId, 'grace', 1));
    // Two listens at once on one connection: between them every post arrives once.
    const [a, b] = await Promise.all([
      agent.rpc.request('agent/listen', { meetingId }),
      agent.rpc.request('agent/listen', { meetingId }),
    ]);
    const before = [...a.posts, ...b.posts];
    assert.equal(new Set(before).size, before.length, 'no post delivered twice');
    assert.ok(before.length > 0, 'the briefing arrived');
    assert.ok(!before.some((p) => /ADA-ROUND-1|GRACE-ROUND-1/.test(p)), 'nothing of the round before its turn');
    let r = a.turn ? a : b;
    while (!r.turn) r = await agent.rpc.request('agent/listen', { meetingId, waitMs: 10_000 });
    assert.ok(!JSON.stringify(r.turn).includes('ADA-ROUND-1'), 'nor in its prompt');
    await agent.rpc.request('agent/speak', { meetingId, text: 'Mine. [STANCE: AGREE]' });
    await host.until((ev) =>
      ev.some((e) => e.meetingId === meetingId && e.type === 'stance_recorded' && e.participant === 'ext'),
    );
    const after = (await agent.rpc.request('agent/listen', { meetingId })).posts.join('\n');
    assert.match(after, /ADA-ROUND-1/);
    assert.match(after, /GRACE-ROUND-1/);
  });

  it('lets one VS Code window answer vscode-lm calls until its connection is gone', async () => {
    const requests: string[] = [];
    const first = await connect();
    const { conn: second } = await connectWindow(
      d.port,
      d.token,
      (req) => {
        requests.push(req.participant);
        return Promise.resolve({ ok: true, text: 'From the second window. [STANCE: AGREE]' });
      },
      { register: false },
    );
    opened.push(second);
    const lmRegister = { models: [], answers: ['lm/chat'] };
    await first.rpc.request('lm/register', lmRegister);
    await first.rpc.request('lm/register', lmRegister); // the same window again is fine
    await assert.rejects(
      second.rpc.request('lm/register', lmRegister),
      (e: RpcError) => e.code === 'conflict' && /another VS Code window already answers/.test(e.message),
    );
    const before = d.server.connections();
    await first.close();
    while (d.server.connections() >= before) await new Promise((r) => setImmediate(r));
    await second.rpc.request('lm/register', lmRegister);
    const { meetingId } = await host.conn.rpc.request('meeting/start', {
      topic: 'Which window answers?',
      mode: 'roundtable',
      participants: copilotPanel(),
      config: { maxRounds: 1 },
    });
    await host.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await host.until((ev) => ev.some((e) => e.meetingId === meetingId && e.type === 'meeting_closed'));
    assert.deepEqual(requests.sort(), ['ada', 'grace'], 'the second window answered every call');
  });
});
