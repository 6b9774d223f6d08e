/**
 * Hostile text through a real daemon: a reply of about 1 MB with one long unbroken run (a URL)
 * is cut to size and the meeting finishes, its followers told. Before, cutting it overflowed
 * the stack and the meeting stayed "running" for ever with no failure recorded.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fold, type Participant } from '@roundtable/protocol';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { Follower, tempDataDir } from '../fakes/daemon';
import { instructionsOf, startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';

const PANEL: Participant[] = [
  { name: 'sam', role: 'assistant', provider: 'openai', model: 'm' },
  { name: 'ada', role: 'worker', provider: 'openai', model: 'm' },
  { name: 'grace', role: 'worker', provider: 'openai', model: 'm' },
];

/** One long link, then prose: what a model pasting a data: URL into its answer sends. */
const HUGE = `Here: https://example.com/${'a1B2'.repeat(25_000)} ${'and some words after it. '.repeat(36_000)} [STANCE: AGREE]`;

describe('a ~1 MB reply through a real daemon', () => {
  let d: DaemonHandle;
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI();
    fake.setResponder((body) => {
      const system = instructionsOf(body);
      if (/^You are ada, a worker/.test(system)) return { text: HUGE, chunkSize: 64_000 };
      if (/^You are grace/.test(system)) return { text: 'Fine by me. [STANCE: AGREE]' };
      return { text: 'Summary: positions noted.' };
    });
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: () => undefined });
  });
  after(async () => {
    await d.stop();
    await fake.close();
  });

  it('is cut to the reply cap, and the meeting closes with a digest its follower sees', async () => {
    assert.ok(HUGE.length > 1_000_000);
    const f = await Follower.connect(d.port, d.token);
    const { meetingId } = await f.conn.rpc.request('meeting/start', {
      topic: 'Paste the link?',
      mode: 'roundtable',
      participants: PANEL,
      providers: { baseURL: fake.baseURL },
      config: { maxRounds: 1 },
    });
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => ev.some((e) => e.type === 'digest_ready'), 60_000);
    const s = fold(f.events);
    assert.notEqual(s.closed?.reason, 'error');
    const said = s.rounds[0]?.contributions.ada?.text ?? '';
    assert.match(said, /truncated by Roundtable/);
    assert.ok(said.length < 100_000, String(said.length));
    await f.conn.close();
  });

  it('refuses a context glob outside the workspace at meeting/start, in one line, before any call', async () => {
    const f = await Follower.connect(d.port, d.token);
    const asked = fake.requests.length;
    await assert.rejects(
      f.conn.rpc.request('meeting/start', {
        topic: 'Read the neighbours?',
        mode: 'roundtable',
        participants: PANEL,
        providers: { baseURL: fake.baseURL },
        workspace: process.cwd(),
        context: { paths: ['src/*.ts', '../*.txt'] },
      }),
      (e: Error) => /^glob "\.\.\/\*\.txt" is outside the workspace$/.test(e.message),
    );
    assert.equal(fake.requests.length, asked, 'no model was asked');
    const { meetings } = await f.conn.rpc.request('meeting/list', {});
    assert.equal(meetings.filter((m) => m.topic === 'Read the neighbours?').length, 0);
    await f.conn.close();
  });
});
