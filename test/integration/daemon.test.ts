import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import type { LmRequest, MeetingEvent, Participant, StartMeetingParams } from '@roundtable/protocol';
import { PROTOCOL_VERSION, RpcError, fold } from '@roundtable/protocol';
import { connectDaemon } from '@roundtable/client';
import { rawText } from '@roundtable/client/rawData';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { cli, ensureBuilt } from '../fakes/cli';
import { Follower, spawnDaemonProcess, tempDataDir } from '../fakes/daemon';
import { openAuthenticated } from '../fakes/handshake';
import { heldTurns, panel, turns } from '../fakes/meetings';
import { connectWindow, streamed } from '../fakes/vscodeWindow';

const quiet = (): void => undefined;

function meetingParams(script: unknown, extra: Partial<StartMeetingParams> = {}): StartMeetingParams {
  return { topic: 'Adopt a monorepo?', mode: 'roundtable', participants: panel(), providers: { script }, ...extra };
}

const slowScript = {
  defaultDelayMs: 60,
  replies: { ada: turns(4, 'AGREE'), grace: turns(4, 'DISAGREE'), linus: turns(4, 'NEUTRAL') },
};

/** Opens a raw WebSocket with chosen headers and reports how the daemon answered. */
function rawUpgrade(
  port: number,
  headers: Record<string, string>,
  host = '127.0.0.1',
): Promise<{ opened: boolean; status?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://${host}:${port}`, { headers });
    ws.once('open', () => {
      ws.close();
      resolve({ opened: true });
    });
    ws.once('unexpected-response', (_req, res) => resolve({ opened: false, status: res.statusCode }));
    ws.once('error', () => resolve({ opened: false }));
  });
}

describe('daemon: security', () => {
  let d: DaemonHandle;
  before(async () => {
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: quiet });
  });
  after(() => d.stop());

  it('binds to 127.0.0.1 only and writes a 0600 token of 256 bits', async () => {
    const mode = (await stat(path.join(d.dataDir, 'token'))).mode & 0o777;
    assert.equal(mode, 0o600);
    const token = (await readFile(path.join(d.dataDir, 'token'), 'utf8')).trim();
    assert.match(token, /^[0-9a-f]{64}$/);
    const info = JSON.parse(await readFile(path.join(d.dataDir, 'daemon.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(info.port, d.port);
    assert.equal(info.pid, process.pid);
    assert.equal(info.protocolVersion, PROTOCOL_VERSION);
    assert.ok(!JSON.stringify(info).includes(token), 'daemon.json does not carry the token');
  });

  it('refuses a browser Origin or a foreign Host at the upgrade; the token is no header at all', async () => {
    assert.deepEqual(await rawUpgrade(d.port, { Origin: 'http://127.0.0.1:5173' }), { opened: false, status: 403 });
    assert.deepEqual(await rawUpgrade(d.port, { Origin: 'null' }), { opened: false, status: 403 });
    assert.deepEqual(await rawUpgrade(d.port, { Host: `evil.example:${d.port}` }), { opened: false, status: 403 });
    assert.deepEqual(await rawUpgrade(d.port, { Host: `127.0.0.1:${d.port + 1}` }), { opened: false, status: 403 });
    // Loopback by either name upgrades; nothing is served until the handshake (handshake.test.ts).
    assert.deepEqual(await rawUpgrade(d.port, {}), { opened: true });
    assert.deepEqual(await rawUpgrade(d.port, {}, 'localhost'), { opened: true });
    // The token in a header, as protocol 3 sent it, opens nothing.
    const ws = new WebSocket(`ws://127.0.0.1:${d.port}`, { headers: { Authorization: `Bearer ${d.token}` } });
    await new Promise((r) => ws.once('open', r));
    const reply = new Promise<{ error?: { code: string } }>((r) =>
      ws.once('message', (m: WebSocket.RawData) => r(JSON.parse(rawText(m)) as { error?: { code: string } })),
    );
    ws.send(JSON.stringify({ kind: 'request', id: 1, method: 'meeting/list', params: {} }));
    assert.equal((await reply).error?.code, 'not_initialized');
    ws.close();
  });

  it('asks for initialize first and refuses a protocol version mismatch', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${d.port}`);
    await new Promise((r) => ws.once('open', r));
    const replies: Record<string, unknown>[] = [];
    ws.on('message', (m: WebSocket.RawData) => replies.push(JSON.parse(rawText(m)) as Record<string, unknown>));
    ws.send(JSON.stringify({ kind: 'request', id: 1, method: 'meeting/list', params: {} }));
    ws.send(
      JSON.stringify({ kind: 'request', id: 2, method: 'initialize', params: { protocolVersion: 999, client: 't' } }),
    );
    while (replies.length < 2) await new Promise((r) => setTimeout(r, 10));
    ws.close();
    assert.deepEqual((replies[0] as { error: { code: string } }).error.code, 'not_initialized');
    const mismatch = (replies[1] as { error: { code: string; message: string } }).error;
    assert.equal(mismatch.code, 'version_mismatch');
    assert.match(mismatch.message, new RegExp(`protocol version 999 is not supported.*speaks ${PROTOCOL_VERSION}`));
  });

  it('answers malformed, unknown and oversized messages with errors and keeps serving others', async () => {
    const other = await Follower.connect(d.port, d.token);
    const { meetingId } = await other.conn.rpc.request('meeting/start', meetingParams(slowScript));
    await other.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });

    const ws = await openAuthenticated(d.port, d.token);
    const replies: {
      kind: string;
      method?: string;
      ok?: boolean;
      error?: { code: string };
      params?: { code: string };
    }[] = [];
    ws.on('message', (m: WebSocket.RawData) => replies.push(JSON.parse(rawText(m)) as (typeof replies)[number]));
    ws.send('not json');
    ws.send(JSON.stringify([1, 2, 3]));
    ws.send(JSON.stringify({ kind: 'request', id: 2, method: 'meeting/explode', params: {} }));
    ws.send(
      JSON.stringify({
        kind: 'request',
        id: 3,
        method: 'meeting/start',
        params: { topic: '', mode: 'roundtable', participants: [] },
      }),
    );
    ws.send(
      JSON.stringify({
        kind: 'request',
        id: 4,
        method: 'room/subscribe',
        params: { meetingId: '../../etc', sinceSeq: -1 },
      }),
    );
    ws.send(JSON.stringify({ kind: 'request', id: 5, method: 'meeting/get', params: { meetingId: 'm-nope' } }));
    while (replies.length < 6) await new Promise((r) => setTimeout(r, 10));
    const byId = (id: number) => replies.find((r) => (r as { id?: number }).id === id);
    assert.equal(replies.filter((r) => r.kind === 'event' && r.method === 'daemon/error').length, 2);
    assert.equal(byId(2)?.error?.code, 'unknown_method');
    assert.equal(byId(3)?.error?.code, 'bad_request');
    assert.equal(byId(4)?.error?.code, 'bad_request');
    assert.equal(byId(5)?.error?.code, 'not_found');
    // Oversized: the socket is closed with 1009, and only that socket.
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.send('x'.repeat(5 * 1024 * 1024));
    assert.equal(await closed, 1009);
    await other.until((ev) => ev.some((e) => e.type === 'digest_ready'));
    const seqs = other.events.map((e) => e.seq);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
      'the concurrent meeting was followed without a gap',
    );
    await other.conn.close();
  });
});

describe('daemon: meetings over the socket', () => {
  let d: DaemonHandle;
  before(async () => {
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: quiet });
  });
  after(() => d.stop());

  it('follows a meeting live from a cursor: every event once, in order, with streaming deltas', async () => {
    const f = await Follower.connect(d.port, d.token);
    const { meetingId } = await f.conn.rpc.request('meeting/start', meetingParams(slowScript));
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => ev.some((e) => e.type === 'digest_ready'));
    const { events } = await f.conn.rpc.request('meeting/get', { meetingId });
    assert.deepEqual(f.events, events, 'the live stream equals the stored log');
    assert.ok(f.deltas.length > 10, 'message text streamed while being written');
    const streamed = new Set(f.deltas.map((x) => x.messageId));
    for (const e of events) if (e.type === 'message_posted') assert.ok(streamed.has(e.messageId), e.messageId);
    const purposes = new Set(f.deltas.map((x) => x.purpose));
    for (const p of ['briefing', 'turn', 'digest'] as const) assert.ok(purposes.has(p), `${p} deltas say so`);
    const list = await f.conn.rpc.request('meeting/list', {});
    const summary = list.meetings.find((m) => m.meetingId === meetingId);
    assert.equal(summary?.status, 'closed');
    assert.equal(summary?.terminatedBy, fold(events).closed?.reason);
    await f.conn.close();
  });

  it('reconnects from its cursor with no gap and no duplicate', async () => {
    const a = await Follower.connect(d.port, d.token);
    const { meetingId } = await a.conn.rpc.request('meeting/start', meetingParams(slowScript));
    await a.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await a.until((ev) => ev.length >= 12);
    await a.conn.close();
    const cursor = a.events.length;
    await new Promise((r) => setTimeout(r, 150)); // the meeting moves on while we are away
    const b = await Follower.connect(d.port, d.token);
    await b.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: cursor });
    await b.until((ev) => ev.some((e) => e.type === 'digest_ready'));
    const joined = [...a.events.slice(0, cursor), ...b.events];
    assert.deepEqual(
      joined.map((e) => e.seq),
      joined.map((_, i) => i + 1),
    );
    const { events } = await b.conn.rpc.request('meeting/get', { meetingId });
    assert.deepEqual(joined, events);
    await b.conn.close();
  });

  it('shows a human post to the workers as the human’s and records cut and decisions', async () => {
    const f = await Follower.connect(d.port, d.token);
    const { meetingId } = await f.conn.rpc.request(
      'meeting/start',
      meetingParams({ replies: heldTurns(['ada', 'grace', 'linus'], 'AGREE', turns(3, 'AGREE')) }),
    );
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => ev.some((e) => e.type === 'round_started'));
    await f.conn.rpc.request('room/post', { meetingId, text: 'Consider the CI cost.' });
    await f.until((ev) => ev.some((e) => e.type === 'human_posted'));
    await f.conn.rpc.request('meeting/cut', { meetingId });
    await f.until((ev) => ev.some((e) => e.type === 'digest_ready'));
    const s = fold(f.events);
    assert.equal(s.closed?.reason, 'cut');
    const human = f.events.find((e): e is Extract<MeetingEvent, { type: 'human_posted' }> => e.type === 'human_posted');
    assert.equal(human?.from, 'human');
    await assert.rejects(
      f.conn.rpc.request('room/post', { meetingId, text: 'late' }),
      (e: RpcError) => e.code === 'conflict',
    );
    await f.conn.rpc.request('meeting/decide', {
      meetingId,
      decision: 'another_round',
      instruction: 'Settle the CI cost question.',
    });
    await f.until((ev) => ev.filter((e) => e.type === 'digest_ready').length === 2);
    const after = fold(f.events);
    assert.equal(after.rounds.at(-1)?.final, true, 'the extra round is the final one');
    assert.ok(after.rounds.at(-2)?.humanPosts.some((h) => h.text === 'Settle the CI cost question.'));
    await f.conn.rpc.request('meeting/decide', { meetingId, decision: 'accepted' });
    await f.until((ev) => ev.some((e) => e.type === 'decision_recorded' && e.decision === 'accepted'));
    await f.conn.close();
  });

  it('pauses a consensus meeting in awaiting_human and finishes it on the human’s answer over the socket', async () => {
    const f = await Follower.connect(d.port, d.token);
    const all = JSON.stringify({
      votes: [
        { option: 'O1', vote: 'accept', confidence: 1, rationale: 'certain', evidence: [{ file: 'package.json' }] },
        { option: 'O2', vote: 'reject', confidence: 0.9, rationale: 'no' },
      ],
    });
    const { meetingId } = await f.conn.rpc.request('meeting/start', {
      topic: 'Monorepo or polyrepo?',
      mode: 'consensus',
      options: ['Monorepo', 'Polyrepo'],
      participants: panel(['ada', 'grace'], false),
      providers: { script: { replies: { ada: [all], grace: [all] } } },
      workspace: process.cwd(),
    });
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => ev.some((e) => e.type === 'escalated'));
    const listed = (await f.conn.rpc.request('meeting/list', {})).meetings.find((m) => m.meetingId === meetingId);
    assert.equal(listed?.status, 'awaiting_human');
    await assert.rejects(
      f.conn.rpc.request('meeting/resolve', { meetingId, action: 'pick', option: 'O5' }),
      (e: RpcError) => e.code === 'conflict' && /pick one of the options/.test(e.message),
    );
    await f.conn.rpc.request('meeting/resolve', { meetingId, action: 'pick', option: 'O1' });
    await f.until((ev) => ev.some((e) => e.type === 'digest_ready'));
    assert.equal(fold(f.events).closed?.reason, 'human_decided');
    await f.conn.close();
  });

  it('runs the shipped demo panel in consensus mode to a verdict, its evidence checked in the demo’s own files', async () => {
    const f = await Follower.connect(d.port, d.token);
    const demoPanel = (
      JSON.parse(readFileSync(path.join('examples', 'demo-panel.json'), 'utf8')) as { participants: Participant[] }
    ).participants;
    const { meetingId } = await f.conn.rpc.request('meeting/start', {
      topic: 'Which queue should the billing service use?',
      mode: 'consensus',
      options: ['RabbitMQ', 'Kafka'],
      participants: demoPanel,
      workspace: await tempDataDir(),
    });
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => ev.some((e) => e.type === 'digest_ready' || e.type === 'escalated'));
    const s = fold(f.events);
    assert.equal(s.closed?.reason, 'verdict_reached', `the demo escalated: ${JSON.stringify(s.escalation)}`);
    await f.conn.close();
  });

  it('routes vscode-lm participants through the registered VS Code window, streaming and failing clearly', async () => {
    const requests: LmRequest[] = [];
    const { conn: bridge } = await connectWindow(d.port, d.token, (r, call) => {
      requests.push(r);
      if (r.participant === 'grace') {
        const message = 'the language model "copilot" refused the request (quota)';
        return Promise.resolve({ ok: false, message, kind: 'rate_limited' });
      }
      const text = r.participant === 'ada' ? 'From Copilot: yes. [STANCE: AGREE]' : 'ok';
      return streamed(text, 6, { promptTokens: 42, completionTokens: 9 })(call);
    });
    const f = await Follower.connect(d.port, d.token);
    const participants = [
      { name: 'sam', role: 'assistant' as const, provider: 'scripted' as const, model: 'scripted' },
      { name: 'ada', role: 'worker' as const, provider: 'vscode-lm' as const, model: 'copilot' },
      { name: 'grace', role: 'worker' as const, provider: 'vscode-lm' as const, model: 'copilot' },
    ];
    const { meetingId } = await f.conn.rpc.request('meeting/start', {
      topic: 'Copilot in the room',
      mode: 'roundtable',
      participants,
      config: { maxRounds: 1 },
    });
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => ev.some((e) => e.type === 'digest_ready'));
    const s = fold(f.events);
    assert.equal(s.rounds[0]?.contributions.ada?.text, 'From Copilot: yes. [STANCE: AGREE]');
    assert.equal(s.usageByParticipant.ada?.promptTokens, 42, 'usage reported by VS Code is kept');
    assert.match(s.rounds[0]?.failures.grace?.detail ?? '', /refused the request \(quota\)/);
    assert.ok(
      f.deltas.some((x) => x.from === 'ada'),
      'the reply streamed into the room',
    );
    assert.equal(requests.find((r) => r.participant === 'ada')?.model, 'copilot');
    await bridge.close();
    // With no VS Code window registered, the turn fails and says what to do.
    const { meetingId: second } = await f.conn.rpc.request('meeting/start', {
      topic: 'No window',
      mode: 'roundtable',
      participants,
      config: { maxRounds: 1 },
    });
    await f.conn.rpc.request('room/subscribe', { meetingId: second, sinceSeq: 0 });
    await f.until((ev) => ev.some((e) => e.meetingId === second && e.type === 'digest_ready'));
    const t = fold(f.events.filter((e) => e.meetingId === second));
    assert.equal(t.closed?.reason, 'error');
    assert.match(t.closed?.detail ?? '', /no VS Code window is connected .*open VS Code with the Roundtable extension/);
    await f.conn.close();
  });

  it('binds an attached agent to its connection: it speaks only as itself and never hears its own posts', async () => {
    const host = await Follower.connect(d.port, d.token);
    const participants = [
      ...panel(['ada', 'grace']),
      { name: 'ext', role: 'worker' as const, provider: 'attached' as const, model: 'claude' },
    ];
    const { meetingId } = await host.conn.rpc.request(
      'meeting/start',
      meetingParams(
        { replies: { ada: turns(3, 'AGREE'), grace: turns(3, 'AGREE') } },
        { participants, config: { maxRounds: 2 } },
      ),
    );
    const agent = await connectDaemon(d.port, d.token, { client: 'agent' });
    const intruder = await connectDaemon(d.port, d.token, { client: 'intruder' });
    await assert.rejects(
      agent.rpc.request('agent/speak', { meetingId, text: 'hi' }),
      (e: RpcError) => e.code === 'forbidden',
    );
    await assert.rejects(
      agent.rpc.request('agent/join', { meetingId, name: 'ada' }),
      (e: RpcError) => e.code === 'forbidden',
    );
    const joined = await agent.rpc.request('agent/join', { meetingId, name: 'ext' });
    assert.equal(joined.participant.name, 'ext');
    await assert.rejects(
      intruder.rpc.request('agent/join', { meetingId, name: 'ext' }),
      (e: RpcError) => e.code === 'conflict',
    );
    // Wait for ext's turn, then try to speak as ada through the arguments: the identity wins.
    const seen: string[] = [];
    let listened = await agent.rpc.request('agent/listen', { meetingId, waitMs: 5_000 });
    seen.push(...listened.posts);
    while (!listened.turn) {
      listened = await agent.rpc.request('agent/listen', { meetingId, waitMs: 5_000 });
      seen.push(...listened.posts);
    }
    assert.match(listened.turn.messages.map((m) => m.content).join('\n'), /You are ext/);
    await agent.rpc.request('agent/speak', {
      meetingId,
      text: 'EXT-WORDS I agree. [STANCE: AGREE]',
      name: 'ada',
      from: 'ada',
    } as never);
    await assert.rejects(
      agent.rpc.request('agent/speak', { meetingId, text: 'again' }),
      (e: RpcError) => e.code === 'conflict',
    );
    for (let i = 0; i < 20; i++) {
      const r = await agent.rpc.request('agent/listen', { meetingId, waitMs: 2_000 });
      seen.push(...r.posts);
      if (r.turn) await agent.rpc.request('agent/speak', { meetingId, text: 'Still agree. [STANCE: AGREE]' });
      if (r.closed) break;
    }
    assert.ok(
      seen.some((p) => p.includes('from=ada')),
      `the agent heard the room: ${JSON.stringify(seen).slice(0, 600)}`,
    );
    assert.ok(
      seen.every((p) => !p.includes('EXT-WORDS')),
      'never its own posts',
    );
    assert.ok(
      seen.every((p) =>
        /^\[Inter-session message · from=\S+ · kind=(peer|system) · seq=\d+ · isUser=false\]\n/.test(p),
      ),
      'every post wrapped as evidence',
    );
    const { events } = await host.conn.rpc.request('meeting/get', { meetingId });
    const posted = events.filter(
      (e): e is Extract<MeetingEvent, { type: 'message_posted' }> => e.type === 'message_posted',
    );
    const extPost = posted.find((e) => e.text.includes('EXT-WORDS'));
    assert.equal(extPost?.from, 'ext', 'posted as the bound identity, not as ada');
    assert.ok(!posted.some((e) => e.from === 'ada' && e.text.includes('EXT-WORDS')));
    assert.equal(fold(events).rounds[0]?.stances.ext?.stance, 'AGREE');
    await Promise.all([agent.close(), intruder.close(), host.conn.close()]);
  });
});

describe('daemon: process lifecycle and durability', () => {
  before(ensureBuilt);

  it('refuses a second daemon on the same data dir with a clear message, and replaces a stale lock', async () => {
    const dir = await tempDataDir();
    const first = await spawnDaemonProcess(dir);
    const second = await cli(['daemon', '--data-dir', dir]);
    assert.equal(second.code, 2);
    assert.match(second.stderr, new RegExp(`already running for .* \\(pid ${first.proc.pid}, port ${first.port}\\)`));
    await first.kill9();
    assert.ok(existsSync(path.join(dir, 'daemon.lock')), 'a killed daemon leaves its lock behind');
    const third = await spawnDaemonProcess(dir);
    assert.notEqual(third.port, 0);
    assert.equal(await third.stop('SIGTERM'), 0);
    assert.ok(!existsSync(path.join(dir, 'daemon.json')), 'a clean stop removes daemon.json');
  });

  it('finishes a meeting after kill -9 mid-meeting, losing no acknowledged event and logging the interruption', async () => {
    const dir = await tempDataDir();
    let daemon = await spawnDaemonProcess(dir);
    let f = await Follower.connect(daemon.port, daemon.token);
    const { meetingId } = await f.conn.rpc.request(
      'meeting/start',
      meetingParams(slowScript, { config: { maxRounds: 4, stopWhenStable: false } }),
    );
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => ev.filter((e) => e.type === 'stance_recorded').length >= 4);
    await daemon.kill9();
    const acknowledged = [...f.events];
    await f.conn.close().catch(() => undefined);

    daemon = await spawnDaemonProcess(dir);
    f = await Follower.connect(daemon.port, daemon.token);
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => ev.some((e) => e.type === 'digest_ready'));
    assert.deepEqual(
      f.events.slice(0, acknowledged.length),
      acknowledged,
      'every event seen before the crash is still there, unchanged',
    );
    const s = fold(f.events);
    assert.equal(s.interruptions.length, 1);
    assert.equal(s.closed?.reason, 'max_rounds');
    const contributions = f.events.filter((e) => e.type === 'message_posted' && e.kind === 'contribution');
    const ids = contributions.map((e) => (e as Extract<MeetingEvent, { type: 'message_posted' }>).messageId);
    assert.equal(new Set(ids).size, ids.length, 'no reply was posted twice');
    assert.match(daemon.output(), /resumed 1 unfinished meeting/);
    await f.conn.close();
    assert.equal(await daemon.stop(), 0);
  });

  it('reads `roundtable run --context` from the folder it was run in, through the daemon too, even for the demo', async () => {
    const dir = await tempDataDir();
    const daemon = await spawnDaemonProcess(dir);
    const cwd = await tempDataDir();
    const notes = '# Release notes\nWe ship every Friday.\n';
    await writeFile(path.join(cwd, 'NOTES.md'), notes);
    const out = await tempDataDir();
    const r = await cli(
      ['run', '--topic', 'Release cadence?', '--context', 'NOTES.md', '--out', out, '--json', '--max-rounds', '1'],
      { cwd, env: { ROUNDTABLE_HOME: dir } },
    );
    // A path out of that folder is refused up front, in one line, before any meeting starts.
    const refused = await cli(['run', '--topic', 'Escape?', '--context', '../escape.md', '--out', out, '--json'], {
      cwd,
      env: { ROUNDTABLE_HOME: dir },
    });
    await daemon.stop();
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(refused.stderr.trim(), 'roundtable: context path "../escape.md" is outside the workspace');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /running in the daemon on port \d+/);
    const minutes = await readFile((JSON.parse(r.stdout) as { minutesPath: string }).minutesPath, 'utf8');
    const sha = createHash('sha256').update(notes, 'utf8').digest('hex');
    const line = minutes.split('\n').find((l) => l.includes('NOTES\\.md')) ?? '';
    assert.match(line, /^\| file \| NOTES\\\.md \|/, minutes);
    assert.ok(line.includes(sha), `the minutes show NOTES.md's sha256: ${line}`);
  });

  it('lets `roundtable run` use a running daemon so the meeting is visible there', async () => {
    const dir = await tempDataDir();
    const daemon = await spawnDaemonProcess(dir);
    const out = await tempDataDir();
    const r = await cli(['run', '--topic', 'Visible in VS Code?', '--out', out, '--json', '--max-rounds', '1'], {
      env: { ROUNDTABLE_HOME: dir },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /running in the daemon on port \d+/);
    const { meetingId } = JSON.parse(r.stdout) as { meetingId: string };
    const f = await Follower.connect(daemon.port, daemon.token);
    const list = await f.conn.rpc.request('meeting/list', {});
    assert.ok(list.meetings.some((m) => m.meetingId === meetingId && m.status === 'closed'));
    const info = await readFile(path.join(dir, 'daemon.json'), 'utf8');
    const local = await cli(
      ['run', '--topic', 'Not in the daemon', '--out', out, '--json', '--max-rounds', '1', '--no-daemon'],
      {
        env: { ROUNDTABLE_HOME: dir },
      },
    );
    assert.equal(local.code, 0, local.stderr);
    assert.doesNotMatch(local.stderr, /running in the daemon/);
    // Its own core, private to the process: the daemon's discovery file untouched, the meeting
    // not in the daemon, its log in the run dir that `roundtable resolve` and `minutes` read.
    assert.equal(await readFile(path.join(dir, 'daemon.json'), 'utf8'), info);
    const localId = (JSON.parse(local.stdout) as { meetingId: string }).meetingId;
    const after = await f.conn.rpc.request('meeting/list', {});
    assert.ok(!after.meetings.some((m) => m.meetingId === localId), 'the local meeting is not in the daemon');
    assert.ok(existsSync(path.join(dir, 'runs', localId)), 'its log is kept in its run dir');
    await f.conn.close();
    await daemon.stop();
  });

  it('tolerates a torn journal tail after a crash', async () => {
    const dir = await tempDataDir();
    let daemon = await spawnDaemonProcess(dir);
    const f = await Follower.connect(daemon.port, daemon.token);
    const { meetingId } = await f.conn.rpc.request(
      'meeting/start',
      meetingParams({ replies: {} }, { config: { maxRounds: 1 } }),
    );
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => ev.some((e) => e.type === 'digest_ready'));
    await f.conn.close();
    await daemon.kill9();
    const { journalFiles } = await import('../../daemon/src/store/storeFiles');
    const journals = await journalFiles(path.join(dir, 'store'));
    const last = journals.at(-1);
    assert.ok(last, 'a journal file exists');
    await writeFile(last, '{"meetingId":"m-torn","seq":1,"ty', { flag: 'a' });
    daemon = await spawnDaemonProcess(dir);
    const g = await Follower.connect(daemon.port, daemon.token);
    const { events } = await g.conn.rpc.request('meeting/get', { meetingId });
    assert.deepEqual(events, f.events);
    assert.match(daemon.output(), /torn/);
    await g.conn.close();
    await daemon.stop();
  });
});
