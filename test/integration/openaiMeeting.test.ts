import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Participant } from '@roundtable/protocol';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { cli, ensureBuilt } from '../fakes/cli';
import { runMeeting } from '../fakes/meetings';
import { instructionsOf, seatOf, startFakeOpenAI, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';

/** Plays every role from what the prompt says: who is asked, and which round it is. */
function roomResponder(body: ChatBody) {
  const { me, round, system } = seatOf(body);
  if (/the judge/.test(system))
    return { text: round >= 2 ? 'CONVERGED: the room agrees' : `@grace: give evidence — cite a source` };
  if (/Update the rolling summary/.test(system)) return { text: `Round summary: ${me} noted the positions.` };
  if (/closing digest/.test(system)) {
    return {
      text: 'CONSENSUS_STATEMENT: adopt it\nCONTRIBUTORS: ada argued for, grace raised cost\nDISSENT: grace on cost',
    };
  }
  if (/chairs a structured roundtable/.test(system)) return { text: 'Welcome; let us begin.' };
  const stance = me === 'grace' && round === 1 ? 'DISAGREE' : 'NEUTRAL';
  return { text: `${me} in round ${round}: an argument with evidence. [STANCE: ${stance}]`, chunkSize: 6 };
}

const openaiPanel = (models: string[]): Participant[] => [
  { name: 'sam', role: 'assistant', provider: 'openai', model: 'chair-model' },
  { name: 'jude', role: 'judge', provider: 'openai', model: 'judge-model' },
  { name: 'ada', role: 'worker', provider: 'openai', model: models[0] ?? 'm' },
  { name: 'grace', role: 'worker', provider: 'openai', model: models[1] ?? 'm' },
];

describe('whole meetings against a loopback OpenAI-compatible server', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI(roomResponder, { models: ['llama3.1', 'qwen2.5'] });
    ensureBuilt();
  });
  after(() => fake.close());

  it('runs a meeting to judge convergence with each worker on its own model and provider usage', async () => {
    const provider = new OpenAIProvider({ baseURL: fake.baseURL });
    const first = fake.requests.length;
    const { state } = await runMeeting({
      script: { replies: {} },
      provider,
      participants: openaiPanel(['llama3.1', 'qwen2.5']),
    });
    assert.equal(state.closed?.reason, 'judge_converged');
    assert.equal(state.rounds.length, 2);
    assert.equal(state.rounds[0]?.stances.grace?.stance, 'DISAGREE');
    assert.equal(state.usageByParticipant.ada?.estimatedCalls, 0, 'usage came from the server');
    const models = new Set(fake.requests.slice(first).map((r) => `${seatOf(r.body).me}:${r.body.model}`));
    assert.ok(models.has('ada:llama3.1') && models.has('grace:qwen2.5'), [...models].join(' '));
    assert.match(state.digest?.text ?? '', /CONTRIBUTORS: ada argued for, grace raised cost/);
    assert.match(state.digest?.text ?? '', /DISSENT: grace on cost/);
  });

  it('runs from the CLI with --provider openai --base-url and writes minutes naming the models', async () => {
    const out = await mkdtemp(path.join(tmpdir(), 'rt-oa-'));
    const r = await cli([
      'run',
      '--topic',
      'Adopt Postgres?',
      '--provider',
      'openai',
      '--model',
      'llama3.1',
      '--base-url',
      fake.baseURL,
      '--out',
      out,
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout) as { terminatedBy: string; minutesPath: string; tokens: { prompt: number } };
    assert.equal(j.terminatedBy, 'judge_converged');
    assert.ok(j.tokens.prompt > 0);
    const minutes = await readFile(j.minutesPath, 'utf8');
    assert.match(minutes, /\| ada \| worker \| openai \| llama3\.1 \|/);
  });

  it('records a worker whose server keeps failing as an error turn, drops it and keeps the meeting going', async () => {
    fake.setResponder((body) => {
      const system = instructionsOf(body);
      if (/^You are grace/.test(system)) return { status: 500 };
      return roomResponder(body);
    });
    try {
      const provider = new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 0 });
      const { state, events } = await runMeeting({
        script: { replies: {} },
        provider,
        // Two workers remain when grace leaves: enough to go on.
        participants: [...openaiPanel(['a', 'b']), { name: 'linus', role: 'worker', provider: 'openai', model: 'c' }],
      });
      const failures = events.filter((e) => e.type === 'turn_failed' && e.participant === 'grace');
      assert.equal(failures.length, 1, 'failed once, then left');
      assert.equal(state.rounds[0]?.stances.grace?.stance, 'UNKNOWN');
      assert.ok(state.left?.grace, 'grace left the meeting');
      assert.ok(state.closed && state.closed.reason !== 'error', 'one failing worker does not end the meeting');
    } finally {
      fake.setResponder(roomResponder);
    }
  });
});
