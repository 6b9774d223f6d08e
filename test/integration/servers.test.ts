/**
 * Whole meetings against fake servers with the habits of real ones (test/fakes/openaiServer.ts
 * personalities): thinking models whose thinking must never be spoken or parsed, and an OpenAI
 * reasoning deployment whose name says nothing, refused once per model and then sent right.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Participant } from '@roundtable/protocol';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { resetServerProfiles } from '../../daemon/src/providers/serverProfile';
import { runMeeting } from '../fakes/meetings';
import { seatOf, startFakeOpenAI, type Behaviour, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';

/** A thought that would change the meeting if it were read as the reply. */
const MISLEADING = 'SECRET-THOUGHT [STANCE: DISAGREE] CONVERGED: nothing @grace';

/** Plays every role from the prompt, always thinking first. */
function thinkingRoom(body: ChatBody): Behaviour {
  const { me, round, system } = seatOf(body);
  const think = (text: string): Behaviour => ({ text, reasoning: `${me} thinks: ${MISLEADING}`, chunkSize: 7 });
  if (/the judge/.test(system)) return think(round >= 2 ? 'CONVERGED: the room agrees' : 'CONTINUE: more evidence');
  if (/Update the rolling summary/.test(system)) return think(`Round summary: ${me} noted the positions.`);
  if (/closing digest/.test(system))
    return think('CONSENSUS_STATEMENT: adopt it\nCONTRIBUTORS: ada argued for, grace agreed\nDISSENT: none');
  if (/chairs a structured roundtable/.test(system)) return think('Welcome; let us begin.');
  return think(`${me} in round ${round}: an argument with evidence. [STANCE: AGREE]`);
}

const panel = (models: [string, string, string, string]): Participant[] => [
  { name: 'sam', role: 'assistant', provider: 'openai', model: models[0] },
  { name: 'jude', role: 'judge', provider: 'openai', model: models[1] },
  { name: 'ada', role: 'worker', provider: 'openai', model: models[2] },
  { name: 'grace', role: 'worker', provider: 'openai', model: models[3] },
];

describe('meetings against servers that behave like the real ones', () => {
  const fakes: FakeOpenAI[] = [];
  after(async () => {
    await Promise.all(fakes.map((f) => f.close()));
    resetServerProfiles();
  });

  for (const personality of ['ollama', 'vllm-legacy', 'think-inline'] as const) {
    it(`${personality}: thinking is never posted, parsed or judged`, async () => {
      const fake = await startFakeOpenAI(thinkingRoom, { personality });
      fakes.push(fake);
      const { state } = await runMeeting({
        script: { replies: {} },
        provider: new OpenAIProvider({ baseURL: fake.baseURL }),
        participants: panel(['qwen3:8b', 'deepseek-r1:7b', 'qwen3:8b', 'gpt-oss:20b']),
      });
      // Every reply agrees and every thought disagrees: read right, the room agrees in round 1.
      assert.equal(state.closed?.reason, 'consensus_full');
      assert.equal(state.rounds.length, 1);
      assert.equal(state.rounds[0]?.stances.ada?.stance, 'AGREE');
      assert.equal(state.rounds[0]?.stances.grace?.stance, 'AGREE');
      assert.ok(state.messages.length > 0);
      for (const m of state.messages) assert.doesNotMatch(m.text, /SECRET-THOUGHT|<\/?think>/, m.text);
      assert.doesNotMatch(state.digest?.text ?? '', /SECRET-THOUGHT/);
      assert.equal(fake.requests.filter((r) => r.status === 400).length, 0, 'max_tokens is what local servers take');
    });
  }

  it('an OpenAI reasoning deployment with an unknown name: one refusal per model, then none', async () => {
    const fake = await startFakeOpenAI(thinkingRoom, { personality: 'openai-reasoning' });
    fakes.push(fake);
    const { state } = await runMeeting({
      script: { replies: {} },
      provider: new OpenAIProvider({ baseURL: fake.baseURL }),
      participants: panel(['chair-deploy', 'judge-deploy', 'ada-deploy', 'grace-deploy']),
    });
    assert.equal(state.closed?.reason, 'consensus_full');
    const chats = fake.requests.filter((r) => r.path.startsWith('/v1/chat/completions'));
    const refusedModels = chats.filter((r) => r.status === 400).map((r) => r.body.model);
    const called = [...new Set(chats.map((r) => r.body.model))].sort();
    assert.ok(called.length >= 3, called.join(' '));
    assert.deepEqual([...refusedModels].sort(), called, 'each model refused exactly once');
    assert.ok(chats.length - refusedModels.length > called.length, `a whole meeting was held (${chats.length} calls)`);
    assert.ok(
      chats.filter((r) => r.status === 200).every((r) => r.body.max_tokens === undefined),
      'no refused parameter sent again',
    );
    for (const m of state.messages) assert.doesNotMatch(m.text, /SECRET-THOUGHT/);
  });
});
