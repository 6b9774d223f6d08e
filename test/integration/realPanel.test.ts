/**
 * Issue 24's "done when", end to end on loopback servers that behave like the real ones
 * (test/fakes/openaiServer.ts personalities, each with its public source):
 * - a roundtable whose assistant and a worker are gpt-5-style models, with a DeepSeek-R1 judge, an
 *   Ollama Qwen3 and a vLLM worker, answering in the decorated formats recorded real models write
 *   (test/fixtures/real-replies), runs with no failed call, reads each worker's evident stance,
 *   ends on the judge's `**CONVERGED:**`, keeps the heading-style digest, and no thinking reaches
 *   another participant or the minutes' speech;
 * - a consensus vote on LM Studio (which refuses `json_object`) reaches the verdict every ballot supports.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Participant } from '@roundtable/protocol';
import { evidenceChecker } from '../../daemon/src/meeting/evidence';
import { fold } from '@roundtable/protocol';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { resetServerProfiles } from '../../daemon/src/providers/serverProfile';
import type { ChatProvider } from '../../daemon/src/providers/types';
import { eventsOfType, runMeeting } from '../fakes/meetings';
import { seatOf, startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';
import { realRoom as room } from '../fakes/realRoom';

describe('a panel of the models people run, on servers that behave like the real ones', () => {
  const fakes: Record<string, FakeOpenAI> = {};
  before(async () => {
    resetServerProfiles();
    for (const personality of ['openai-reasoning', 'deepseek', 'ollama', 'vllm', 'lmstudio'] as const)
      fakes[personality] = await startFakeOpenAI(room, { personality });
  });
  after(async () => {
    await Promise.all(Object.values(fakes).map((f) => f.close()));
    resetServerProfiles();
  });

  it('gpt-5, DeepSeek-R1, Ollama Qwen3 and vLLM: no failed call, evident stances, the judge converges, the digest is kept', async () => {
    const server: Record<string, string> = {
      sam: 'openai-reasoning',
      ada: 'openai-reasoning',
      jude: 'deepseek',
      grace: 'ollama',
      linus: 'vllm',
    };
    const participants: Participant[] = [
      { name: 'sam', role: 'assistant', provider: 'openai', model: 'gpt-5-mini' },
      { name: 'jude', role: 'judge', provider: 'openai', model: 'deepseek-reasoner' },
      { name: 'ada', role: 'worker', provider: 'openai', model: 'gpt-5' },
      { name: 'grace', role: 'worker', provider: 'openai', model: 'qwen3:8b' },
      { name: 'linus', role: 'worker', provider: 'openai', model: 'mistralai/Mistral-Small-3.2-24B-Instruct-2506' },
    ];
    const providers = new Map<string, ChatProvider>();
    for (const [name, personality] of Object.entries(server)) {
      const fake = fakes[personality];
      assert.ok(fake);
      providers.set(name, new OpenAIProvider({ baseURL: fake.baseURL }));
    }
    const { state, events } = await runMeeting({
      script: { replies: {} },
      participants,
      config: { maxRounds: 4 },
      deps: {
        providerFor: (p) => {
          const provider = providers.get(p.name);
          if (!provider) throw new Error(`no server for ${p.name}`);
          return provider;
        },
      },
    });
    assert.deepEqual(eventsOfType(events, 'turn_failed'), [], 'no failed call');
    const requests = Object.values(fakes).flatMap((f) => f.requests);
    assert.equal(requests.filter((r) => r.status === 400).length, 0, 'models known by name are never refused');
    assert.deepEqual(
      Object.fromEntries(Object.entries(state.rounds[0]?.stances ?? {}).map(([w, c]) => [w, c.stance])),
      { ada: 'DISAGREE', grace: 'AGREE', linus: 'NEUTRAL' },
    );
    assert.equal(state.rounds.length, 2, 'the judge ended it after round 2');
    assert.deepEqual(
      state.rounds[0]?.judge?.corrections.map((c) => c.worker),
      ['ada', 'grace'],
    );
    assert.equal(state.closed?.reason, 'judge_converged');
    assert.equal(state.digest?.digest.consensusStatement, 'Migrate to a monorepo incrementally, service by service.');
    assert.equal(state.digest?.digest.noDecision, undefined);
    // No participant ever saw another's (or its own) thinking, and the minutes' speech has none.
    for (const r of requests)
      for (const m of r.body.messages ?? []) assert.doesNotMatch(m.content ?? '', /PRIVATE-THOUGHT/);
    for (const m of state.messages) assert.doesNotMatch(m.text, /PRIVATE-THOUGHT/);
    assert.doesNotMatch(renderMinutes(fold(events)), /PRIVATE-THOUGHT/);
    // The thinking is kept on the posts, folded, and billed.
    assert.match(state.rounds[0]?.contributions.grace?.thinking ?? '', /PRIVATE-THOUGHT/);
    assert.ok((state.usageByParticipant.grace?.reasoningTokens ?? 0) > 0);
    // gpt-5 is capped with max_completion_tokens, the others with max_tokens.
    const ollama = fakes.ollama?.requests.filter((r) => r.path.includes('chat')) ?? [];
    assert.ok(ollama.length > 0 && ollama.every((r) => typeof r.body.max_tokens === 'number'));
    const openai = fakes['openai-reasoning']?.requests.filter((r) => r.path.includes('chat')) ?? [];
    assert.ok(openai.length > 0 && openai.every((r) => typeof r.body.max_completion_tokens === 'number'));
  });

  it('LM Studio: a consensus vote reaches the verdict every ballot supports; json_object refused once, then json_schema', async () => {
    const lm = fakes.lmstudio;
    assert.ok(lm);
    const before = lm.requests.length;
    lm.setResponder((body) => {
      const { me, system } = seatOf(body);
      if (/voting in a structured consensus/.test(system))
        return {
          // A ballot as recorded models write it: fenced, percent confidence, "O1: label" ids, plain-path evidence.
          text:
            '```json\n{"votes": [{"option": "O1: Monorepo", "vote": "accept", "confidence": "85%", "rationale": "atomic commits", "evidence": ["package.json"]},\n' +
            ` {"option": "O2", "vote": "reject", "confidence": 80, "rationale": "${me} sees release overhead",},]}\n\`\`\``,
          reasoning: `${me}: draft {"votes": [{"option": "O2", "vote": "accept", "confidence": 1, "rationale": "x"}]}`,
        };
      return { text: 'CONSENSUS_STATEMENT: go with O1' };
    });
    const { state } = await runMeeting({
      mode: 'consensus',
      options: ['Monorepo', 'Polyrepo'],
      script: { replies: {} },
      participants: [
        { name: 'sam', role: 'assistant', provider: 'openai', model: 'qwen3-8b' },
        { name: 'ada', role: 'worker', provider: 'openai', model: 'qwen3-8b' },
        { name: 'grace', role: 'worker', provider: 'openai', model: 'gemma-3-12b' },
        { name: 'linus', role: 'worker', provider: 'openai', model: 'phi-4' },
      ],
      provider: new OpenAIProvider({ baseURL: lm.baseURL }),
      deps: { checkEvidence: evidenceChecker(process.cwd()) },
    });
    const last = state.rounds.at(-1);
    assert.ok(
      Object.values(last?.ballots ?? {}).every((b) => b.valid),
      JSON.stringify(last?.ballots),
    );
    assert.equal(last?.verdict?.decision, 'O1');
    assert.equal(state.closed?.reason, 'verdict_reached');
    const chats = lm.requests.slice(before).filter((r) => r.path.includes('chat') && r.body.response_format);
    const refused = chats.filter((r) => r.status === 400);
    assert.ok(
      refused.every((r) => r.body.response_format?.type === 'json_object'),
      'only json_object is refused',
    );
    assert.ok(refused.length >= 1 && refused.length <= 3, `once per model at most (${refused.length})`);
    assert.ok(chats.some((r) => r.status === 200 && r.body.response_format?.type === 'json_schema'));
  });
});
