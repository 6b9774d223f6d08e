/**
 * Streaming text through a real daemon keeps its channel: the daemon coalesces the pieces of one
 * message that arrive within a frame, and a model's thinking followed at once by its reply (a
 * local server answers in one burst) must still reach the room as thinking, then reply. Before,
 * the pieces were merged under the first piece's channel, so the reply showed in the thinking
 * fold (or thinking as the reply).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MessageDelta, Participant } from '@roundtable/protocol';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { Follower, tempDataDir } from '../fakes/daemon';
import { seatOf, startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';

const PANEL: Participant[] = [
  { name: 'sam', role: 'assistant', provider: 'openai', model: 'm' },
  { name: 'ada', role: 'worker', provider: 'openai', model: 'm' },
  { name: 'grace', role: 'worker', provider: 'openai', model: 'm' },
];

const THOUGHT = 'PRIVATE: weigh the cost of the migration first.';
const REPLY = 'Migrate service by service. [STANCE: AGREE]';

describe('live text through a real daemon', () => {
  let d: DaemonHandle;
  let fake: FakeOpenAI;
  before(async () => {
    // Ollama's shape: thinking in `delta.reasoning`, then the content, all in one burst.
    fake = await startFakeOpenAI(
      (body) => {
        const { me } = seatOf(body);
        return me === 'ada' ? { reasoning: THOUGHT, text: REPLY, chunkSize: 6 } : { text: 'Noted. [STANCE: AGREE]' };
      },
      { personality: 'ollama' },
    );
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: () => undefined });
  });
  after(async () => {
    await d.stop();
    await fake.close();
  });

  it('sends a thinking piece as thinking and a reply piece as reply, however close together they come', async () => {
    const f = await Follower.connect(d.port, d.token);
    const { meetingId } = await f.conn.rpc.request('meeting/start', {
      topic: 'Monorepo?',
      mode: 'roundtable',
      participants: PANEL,
      providers: { baseURL: fake.baseURL },
      config: { maxRounds: 1 },
      follow: true,
    });
    await f.until((ev) => ev.some((e) => e.type === 'digest_ready'), 60_000);
    const ada = f.deltas.filter((x: MessageDelta) => x.meetingId === meetingId && x.from === 'ada');
    const thinking = ada
      .filter((x) => x.thinking)
      .map((x) => x.text)
      .join('');
    const reply = ada
      .filter((x) => !x.thinking)
      .map((x) => x.text)
      .join('');
    assert.equal(thinking, THOUGHT, 'the fold holds the thinking, and only it');
    assert.equal(reply.trim(), REPLY, 'the reply holds the reply, and only it');
    await f.conn.close();
  });
});
