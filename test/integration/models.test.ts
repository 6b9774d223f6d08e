import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { listModels, probeLocalServers } from '../../daemon/src/modelLists';
import { preflightPanel } from '../../daemon/src/providers/preflight';
import type { Participant } from '@roundtable/protocol';
import { closedPort, startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';

/** A server that accepts the request and never answers. */
async function silentServer(): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const s = http.createServer(() => undefined);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () => {
      s.closeAllConnections();
      return new Promise<void>((r) => s.close(() => r()));
    },
  };
}

const worker = (name: string, model: string): Participant => ({ name, role: 'worker', provider: 'openai', model });

describe('model lists of OpenAI-compatible servers', () => {
  let fake: FakeOpenAI;
  let locked: FakeOpenAI;
  let silent: Awaited<ReturnType<typeof silentServer>>;
  let down: string;
  before(async () => {
    fake = await startFakeOpenAI(undefined, { models: ['llama3.1:8b', 'qwen2.5:7b'] });
    locked = await startFakeOpenAI(undefined, { apiKey: 'right', models: ['gpt-4o'] });
    silent = await silentServer();
    down = `http://127.0.0.1:${await closedPort()}/v1`;
  });
  after(async () => {
    await fake.close();
    await locked.close();
    await silent.close();
  });

  it('lists what a server offers, with the key when it needs one', async () => {
    assert.deepEqual(await listModels(fake.baseURL), { ok: true, models: ['llama3.1:8b', 'qwen2.5:7b'] });
    assert.deepEqual(await listModels(locked.baseURL, { apiKey: 'right' }), { ok: true, models: ['gpt-4o'] });
    assert.equal(locked.requests.at(-1)?.headers.authorization, 'Bearer right');
  });

  it('says why when it cannot: down, refused key, no answer in time', async () => {
    const d = await listModels(down);
    assert.ok(!d.ok && d.kind === 'unreachable' && d.error.includes(down), JSON.stringify(d));
    const a = await listModels(locked.baseURL, { apiKey: 'wrong' });
    assert.ok(!a.ok && a.kind === 'auth' && !a.error.includes('wrong'), JSON.stringify(a));
    const started = Date.now();
    const t = await listModels(silent.baseUrl, { timeoutMs: 300 });
    assert.ok(!t.ok && t.kind === 'unreachable' && /did not answer within 300 ms/.test(t.error), JSON.stringify(t));
    assert.ok(Date.now() - started < 3_000, 'the timeout bounds the wait');
  });

  it('probes servers in parallel and keeps those that answer with models, in order', async () => {
    const started = Date.now();
    const found = await probeLocalServers({
      servers: [
        { name: 'slow', baseUrl: silent.baseUrl },
        { name: 'down', baseUrl: down },
        { name: 'fake', baseUrl: fake.baseURL },
      ],
    });
    assert.deepEqual(found, [{ name: 'fake', baseUrl: fake.baseURL, models: ['llama3.1:8b', 'qwen2.5:7b'] }]);
    // Parallel: one 300 ms timeout in all, not one per server (generous bound for a loaded machine).
    assert.ok(Date.now() - started < 2_000);
  });

  describe('preflight', () => {
    it('passes a panel whose models the server lists', async () => {
      const panel = [worker('ada', 'llama3.1:8b'), worker('grace', 'qwen2.5:7b')];
      assert.deepEqual(await preflightPanel(panel, { baseUrl: fake.baseURL, listModels }), []);
    });

    it('names each missing model once, with what the server has and what to do', async () => {
      const panel = [worker('ada', 'llama3.2'), worker('grace', 'llama3.2'), worker('linus', 'mixtral')];
      const problems = await preflightPanel(panel, { baseUrl: fake.baseURL, listModels });
      assert.deepEqual(problems, [
        `model "llama3.2" is not on ${fake.baseURL} (it has: llama3.1:8b, qwen2.5:7b) — load it on the server or pick one with --models`,
        `model "mixtral" is not on ${fake.baseURL} (it has: llama3.1:8b, qwen2.5:7b) — load it on the server or pick one with --models`,
      ]);
    });

    it('says how to fix a server that is down or refuses the key, in one line', async () => {
      const panel = [worker('ada', 'gpt-4o')];
      const [downLine, ...more] = await preflightPanel(panel, { baseUrl: down, listModels });
      assert.equal(more.length, 0);
      assert.match(downLine ?? '', /unreachable.* — start it, or point --base-url/);
      const auth = await preflightPanel(panel, { baseUrl: locked.baseURL, apiKey: 'wrong', listModels });
      assert.equal(auth.length, 1);
      assert.match(auth[0] ?? '', /refused the API key .* set ROUNDTABLE_API_KEY/);
    });

    it('asks nothing of scripted seats', async () => {
      const scripted: Participant = { name: 'ada', role: 'worker', provider: 'scripted', model: 'scripted' };
      assert.deepEqual(await preflightPanel([scripted], { baseUrl: down, listModels }), []);
    });
  });
});
