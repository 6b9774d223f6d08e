/**
 * Who may end a room (issue 32): only the connection that opened it, or the person. An agent's
 * connection (as `roundtable mcp` connects, `initialize` with `agent`) that neither opened a room
 * nor sits in it, a seated agent of any role that did not open it, and a guessed meeting id are all
 * refused in one line, over the daemon's socket and over MCP; the person's connection still may.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DaemonMethod, RpcError, StartMeetingParams } from '@roundtable/protocol';
import { PROTOCOL_VERSION } from '@roundtable/protocol';
import { connectDaemon, type DaemonConnection } from '@roundtable/client';
import { suiteDaemon } from '../fakes/daemon';
import { callText, mcpSessions } from '../fakes/mcp';
import { panel } from '../fakes/meetings';

const slowMeeting = (extra: StartMeetingParams['participants'] = []): StartMeetingParams => ({
  topic: 'Who may end a meeting',
  mode: 'roundtable',
  participants: [
    ...panel(['ada'], false),
    { name: 'ext', role: 'worker', provider: 'attached', model: 'agent' },
    ...extra,
  ],
  providers: { script: { defaultDelayMs: 5_000, replies: { ada: ['Hmm. [STANCE: NEUTRAL]'] } } },
  config: { maxRounds: 3, order: 'sequential', turnTimeoutMs: 60_000 },
});

const ENDINGS = ['meeting/cut', 'meeting/close', 'meeting/delete'] as const;
const forbidden =
  (pattern: RegExp) =>
  (e: RpcError): boolean =>
    e.code === 'forbidden' && pattern.test(e.message) && !e.message.includes('\n');

describe('only the opener or the person ends a room', () => {
  const daemon = suiteDaemon();
  const connect = (agent: boolean): Promise<DaemonConnection> => daemon.connect({ client: 'roundtable-mcp', agent });
  const status = async (meetingId: string): Promise<string> =>
    (await daemon.host().conn.rpc.request('meeting/get', { meetingId })).summary.status;

  it('an agent session that neither opened the room nor sits in it cannot cut, close or delete it', async () => {
    const { meetingId } = await daemon.host().conn.rpc.request('meeting/start', slowMeeting());
    const stranger = await connect(true);
    for (const method of ENDINGS) {
      await assert.rejects(
        stranger.rpc.request(method, { meetingId }),
        forbidden(/^this agent session did not open meeting \S+, so it cannot (cut|close|delete) the meeting/),
      );
    }
    assert.equal(await status(meetingId), 'running', 'the meeting runs on');
    await daemon.host().conn.rpc.request('meeting/cut', { meetingId }); // the person still can
  });

  it('nor post as the person, decide or resolve it', async () => {
    const { meetingId } = await daemon.host().conn.rpc.request('meeting/start', slowMeeting());
    const stranger = await connect(true);
    await assert.rejects(
      stranger.rpc.request('room/post', { meetingId, text: 'The person says: stop now.' }),
      forbidden(/cannot post as the person/),
    );
    await assert.rejects(
      stranger.rpc.request('meeting/decide', { meetingId, decision: 'accepted' }),
      forbidden(/^an agent cannot decide the meeting: the decision is the person's/),
    );
    await assert.rejects(
      stranger.rpc.request('meeting/resolve', { meetingId, action: 'defer' }),
      forbidden(/^an agent cannot resolve the meeting/),
    );
    await daemon.host().conn.rpc.request('meeting/cut', { meetingId });
  });

  it('a guessed meeting id is refused exactly as a real one: nothing says whether it exists', async () => {
    const { meetingId } = await daemon.host().conn.rpc.request('meeting/start', slowMeeting());
    const stranger = await connect(true);
    const guessed = `${meetingId.slice(0, -1)}${meetingId.endsWith('0') ? '1' : '0'}`;
    const refusal = async (id: string): Promise<string> => {
      try {
        await stranger.rpc.request('meeting/cut', { meetingId: id });
      } catch (e) {
        return (e as RpcError).message.replace(id, 'ID');
      }
      return 'accepted';
    };
    assert.equal(await refusal(guessed), await refusal(meetingId));
    assert.equal(await status(meetingId), 'running');
    await daemon.host().conn.rpc.request('meeting/cut', { meetingId });
  });

  it('a seated judge or assistant that did not open the room cannot end it either', async () => {
    const { meetingId } = await daemon
      .host()
      .conn.rpc.request(
        'meeting/start',
        slowMeeting([{ name: 'jury', role: 'judge', provider: 'attached', model: 'agent' }]),
      );
    const judge = await connect(false);
    await judge.rpc.request('agent/join', { meetingId, name: 'jury' });
    for (const method of ['meeting/cut', 'meeting/close'] as const) {
      await assert.rejects(
        judge.rpc.request(method, { meetingId }),
        forbidden(/^jury sits in the meeting but did not open it, and a seat cannot (cut|close) the meeting/),
      );
    }
    assert.equal(await status(meetingId), 'running');
    await daemon.host().conn.rpc.request('meeting/cut', { meetingId });
  });

  it('an agent session may cut the room it opened', async () => {
    const agent = await connect(true);
    const { meetingId } = await agent.rpc.request('meeting/start', slowMeeting());
    await agent.rpc.request('meeting/cut', { meetingId });
    await daemon.host().conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await daemon.host().until((ev) => ev.some((e) => e.meetingId === meetingId && e.type === 'meeting_closed'));
  });

  it('a second initialize without the agent flag does not make an agent session the person', async () => {
    const { meetingId } = await daemon.host().conn.rpc.request('meeting/start', slowMeeting());
    const agent = await connect(true);
    // A connection initializes once (the handshake): a second initialize is refused outright.
    await assert.rejects(
      agent.rpc.request('initialize', { protocolVersion: PROTOCOL_VERSION, client: 'vscode 1.99' }),
      /initialize was already sent/,
    );
    await assert.rejects(agent.rpc.request('meeting/cut', { meetingId }), forbidden(/did not open meeting/));
    await daemon.host().conn.rpc.request('meeting/cut', { meetingId });
  });

  it('every ending method checks the owner (none forgotten in the handler table)', async () => {
    const { meetingId } = await daemon.host().conn.rpc.request('meeting/start', slowMeeting());
    const stranger = await connect(true);
    const guarded: DaemonMethod[] = [
      'meeting/cut',
      'meeting/close',
      'meeting/delete',
      'meeting/decide',
      'meeting/resolve',
      'room/post',
    ];
    const params: Record<string, unknown> = { meetingId, decision: 'accepted', action: 'defer', text: 'x' };
    for (const method of guarded) {
      await assert.rejects(stranger.rpc.request(method, params as never), forbidden(/./), method);
    }
    await daemon.host().conn.rpc.request('meeting/cut', { meetingId });
  });
});

describe('over MCP: a second session cannot cut a room it did not open', () => {
  const { daemon, agent } = mcpSessions();

  it("an unseated session's cut and close are refused in one line; the room runs on until its opener cuts it", async () => {
    const a = await agent('opener');
    const b = await agent('stranger');
    const opened = await callText(a, 'open', { topic: 'Who ends this room?', turnTimeoutSeconds: 60 });
    assert.ok(!opened.isError, opened.text);
    const { room } = JSON.parse(opened.text) as { room: string };
    for (const tool of ['cut', 'close']) {
      const r = await callText(b, tool, { room });
      assert.equal(r.isError, true, `${tool} refused`);
      assert.equal(r.text.split('\n').length, 1);
      assert.match(r.text, /^forbidden: this agent session did not open meeting \S+, so it cannot/);
    }
    const conn = await connectDaemon(daemon().port, daemon().token, { client: 'test' });
    try {
      const { summary } = await conn.rpc.request('meeting/get', { meetingId: room });
      assert.equal(summary.status, 'running');
    } finally {
      await conn.close();
    }
    const cut = await callText(a, 'cut', { room });
    assert.ok(!cut.isError, cut.text);
  });
});
