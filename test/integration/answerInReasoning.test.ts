/**
 * A server that streams the whole answer in the reasoning field and leaves `content` empty (vLLM
 * with a reasoning parser and thinking disabled or guided JSON: vllm-project/vllm#17349, #18255,
 * #19222), in real meetings on the loopback server. A JSON ballot there is taken, and the minutes
 * say so; prose there — with a stance marker in it — stays thinking and never becomes a stance.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Participant } from '@roundtable/protocol';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { fold } from '@roundtable/protocol';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { ballot, panel, runMeeting } from '../fakes/meetings';
import { instructionsOf, startFakeOpenAI, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';

describe('an answer left in the reasoning field, content empty', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI();
  });
  after(() => fake.close());

  it('takes a JSON ballot from the reasoning field, and the minutes say where it came from', async () => {
    fake.setResponder((body: ChatBody) => {
      const system = instructionsOf(body);
      if (/voting in a structured consensus/.test(system)) {
        const vote = ballot(['O1', 'accept', 0.9], ['O2', 'reject', 0.8]);
        // ada's server sends nothing in content: the ballot is all in reasoning_content.
        if (/^You are ada/.test(system)) return { text: '', reasoning: vote, reasoningField: 'reasoning_content' };
        return { text: vote };
      }
      return { text: 'CONSENSUS_STATEMENT: go with O1\nCONTRIBUTORS: ada and grace' };
    });
    const participants = panel(['ada', 'grace'], false).map((p) => ({ ...p, provider: 'openai' as const, model: 'm' }));
    const { state, events } = await runMeeting({
      mode: 'consensus',
      options: ['Monorepo', 'Polyrepo'],
      participants,
      script: { replies: {} },
      provider: new OpenAIProvider({ baseURL: fake.baseURL }),
    });
    const ada = state.rounds[0]?.ballots.ada;
    assert.equal(ada?.valid, true, 'the ballot is read');
    assert.equal(ada?.votes.find((v) => v.option === 'O1')?.vote, 'accept');
    assert.equal(ada?.fromReasoning, true);
    assert.equal(state.rounds[0]?.ballots.grace?.fromReasoning, undefined);
    assert.match(renderMinutes(fold(events)), /\| ada \|[^\n]*answer taken from the reasoning field/);
  });

  it('never makes a stance out of prose in the reasoning field', async () => {
    const seats: Participant[] = [
      { name: 'sam', role: 'assistant', provider: 'openai', model: 'm' },
      { name: 'ada', role: 'worker', provider: 'openai', model: 'm' },
      { name: 'grace', role: 'worker', provider: 'openai', model: 'm' },
    ];
    fake.setResponder((body: ChatBody) => {
      const system = instructionsOf(body);
      if (/^You are ada, a worker/.test(system))
        return { text: '', reasoning: 'The plan looks fine, so I will say [STANCE: AGREE].' };
      if (/^You are grace/.test(system)) return { text: 'The plan holds. [STANCE: DISAGREE]' };
      return { text: 'Summary: positions noted.' };
    });
    const { state } = await runMeeting({
      participants: seats,
      config: { maxRounds: 1 },
      script: { replies: {} },
      provider: new OpenAIProvider({ baseURL: fake.baseURL }),
    });
    const round = state.rounds[0];
    assert.notEqual(round?.stances.ada?.stance, 'AGREE', 'thinking is never a stance');
    assert.doesNotMatch(round?.contributions.ada?.text ?? '', /STANCE/, 'nor spoken');
    assert.equal(round?.stances.grace?.stance, 'DISAGREE');
  });
});
