/**
 * What the engine does with what reasoning models send back (issue 24): thinking is billed and
 * kept folded on the post, never spoken, posted to peers, parsed or summarised; a reply cut off
 * while thinking is a failed turn with one line; a missing stance gets one follow-up; a meeting
 * with no stance or no statement is not a decision.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Participant } from '@roundtable/protocol';
import { THINKING_ALLOWANCE } from '../../daemon/src/meeting/budget';
import type { ChatProvider, ChatRequest, ChatResult } from '../../daemon/src/providers/types';
import { eventsOfType, runMeeting } from '../fakes/meetings';

type Answer = Omit<ChatResult, 'usage'> & { usage?: Partial<ChatResult['usage']> };

/** A provider that answers each call from a function of the request, as a reasoning model would. */
function modelOf(answer: (req: ChatRequest) => Answer): ChatProvider {
  return {
    id: 'reasoning-fake',
    chat(req: ChatRequest): Promise<ChatResult> {
      const a = answer(req);
      if (a.thinking) req.onDelta?.(a.thinking, 'thinking');
      if (a.text) req.onDelta?.(a.text, 'reply');
      return Promise.resolve({
        ...a,
        usage: { promptTokens: 100, completionTokens: 50, source: 'provider', ...a.usage },
      });
    },
  };
}

const seats = (model = 'deepseek-r1:8b'): Participant[] => [
  { name: 'sam', role: 'assistant', provider: 'openai', model: 'chair' },
  { name: 'jude', role: 'judge', provider: 'openai', model },
  { name: 'ada', role: 'worker', provider: 'openai', model },
  { name: 'grace', role: 'worker', provider: 'openai', model: 'llama3.1' },
];

const DIGEST = 'CONSENSUS_STATEMENT: adopt it\nCONTRIBUTORS: ada, grace\nDISSENT: none';

function byPurpose(req: ChatRequest, turn: (name: string, round: number) => Answer): Answer {
  switch (req.meta.purpose) {
    case 'briefing':
      return { text: 'Welcome.', thinking: 'plan the briefing', usage: { reasoningTokens: 4 } };
    case 'judge':
      return { text: 'CONVERGED: both agree', thinking: 'the judge thinks [STANCE: DISAGREE]' };
    case 'summary':
      return { text: 'summary' };
    case 'digest':
      return { text: DIGEST };
    default:
      return turn(req.meta.participant, req.meta.round);
  }
}

describe('reasoning models in a whole roundtable', () => {
  it('keeps thinking out of speech, peers, stances and budget, and on the post folded', async () => {
    const secret = 'PRIVATE-THOUGHT [STANCE: DISAGREE]';
    const { state, events, provider } = await runMeeting({
      script: {},
      participants: seats(),
      config: { maxRounds: 2 },
      provider: modelOf((req) =>
        byPurpose(req, (name) => ({
          text: `${name} argues. [STANCE: ${name === 'ada' ? 'AGREE' : 'DISAGREE'}]`,
          thinking: `${name} ${secret}`,
          finishReason: 'stop',
          usage: { reasoningTokens: 30 },
        })),
      ),
    });
    assert.equal(state.rounds[0]?.stances.ada?.stance, 'AGREE', 'the stance inside the thinking is not read');
    const post = state.rounds[0]?.contributions.ada;
    assert.ok(post && !post.text.includes('PRIVATE'), post?.text);
    assert.equal(post?.thinking, `ada ${secret}`);
    assert.equal(post?.thinkingTokens, 30);
    assert.equal(state.briefing?.thinking, 'plan the briefing');
    // No later prompt carries anybody's thinking.
    for (const r of provider.requests)
      for (const m of r.messages) assert.ok(!m.content.includes('PRIVATE'), `${r.meta.purpose} saw thinking`);
    // Spoken tokens are the replies alone; the bill counts the thinking inside completion tokens.
    const spoken = eventsOfType(events, 'message_posted').reduce((n, e) => n + e.tokens, 0);
    assert.ok(state.spokenTokens <= spoken + 50, `${state.spokenTokens} vs ${spoken}`);
    assert.ok((state.usageByParticipant.ada?.reasoningTokens ?? 0) >= 30);
    assert.match(state.digest?.text ?? '', /of which \d[\d,]* thinking/);
    assert.equal(state.closed?.reason, 'judge_converged');
  });

  it('gives a reasoning model room to think on top of its reply cap, and none to others', async () => {
    const { provider } = await runMeeting({
      script: {},
      participants: seats(),
      config: { maxRounds: 1 },
      provider: modelOf((req) => byPurpose(req, (name) => ({ text: `${name}: ok [STANCE: AGREE]` }))),
    });
    const ada = provider.turnsOf('ada')[0];
    const grace = provider.turnsOf('grace')[0];
    assert.ok(ada && grace);
    assert.equal(ada.maxTokens - grace.maxTokens, THINKING_ALLOWANCE);
  });

  it('holds a billed budget with thinking room: max_tokens never exceeds what is left', async () => {
    const { provider } = await runMeeting({
      script: {},
      participants: seats(),
      config: { maxRounds: 3, tokenBudget: 3_000, budgetBasis: 'billed' },
      provider: modelOf((req) => byPurpose(req, (name) => ({ text: `${name}: ok [STANCE: NEUTRAL]` }))),
    });
    for (const r of provider.turnsOf('ada')) assert.ok(r.maxTokens <= 3_000, String(r.maxTokens));
  });

  it('a reply cut off while thinking is a failed turn with one line, and an empty judge review is no clean round', async () => {
    const { state, events } = await runMeeting({
      script: {},
      participants: seats(),
      // Two rounds: the judge reviews round 1 (never the last round, whose review nobody could act on).
      config: { maxRounds: 2 },
      provider: modelOf((req) => {
        if (req.meta.purpose === 'judge') return { text: '', thinking: 'thinking about it', finishReason: 'length' };
        return byPurpose(req, (name) =>
          name === 'ada'
            ? { text: '', thinking: 'so much thinking', finishReason: 'length', usage: { reasoningTokens: 600 } }
            : { text: 'grace: yes [STANCE: AGREE]' },
        );
      }),
    });
    const failed = eventsOfType(events, 'turn_failed');
    const ada = failed.find((e) => e.participant === 'ada');
    assert.match(
      ada?.detail ?? '',
      /^ada \(deepseek-r1:8b\) spent its [\d,]+-token cap thinking \(600 tokens\) and gave no reply$/,
    );
    assert.equal(state.rounds[0]?.stances.ada?.stance, 'UNKNOWN');
    assert.equal(state.rounds[0]?.contributions.ada, undefined, 'nothing is posted for ada');
    assert.ok(
      failed.some((e) => e.participant === 'jude'),
      'the judge that said nothing failed',
    );
    // Its cap ran out while thinking: the model may answer next round, so the seat is kept.
    assert.deepEqual(eventsOfType(events, 'seat_left'), [], 'no seat left: its server did not fail');
    assert.equal(state.rounds.length, 2);
  });

  it('asks a worker once for the stance marker it left out, and appends it to the post', async () => {
    const { state, provider } = await runMeeting({
      script: {},
      participants: seats('llama3.1'),
      config: { maxRounds: 1 },
      provider: modelOf((req) => {
        if (req.meta.purpose === 'followup')
          return { text: req.meta.participant === 'ada' ? '[STANCE: DISAGREE]' : 'hmm' };
        return byPurpose(req, (name) => ({ text: `${name} argues without a marker.` }));
      }),
    });
    assert.equal(state.rounds[0]?.stances.ada?.stance, 'DISAGREE');
    assert.match(state.rounds[0]?.contributions.ada?.text ?? '', /without a marker\.\n\n\[STANCE: DISAGREE\]$/);
    assert.equal(state.rounds[0]?.stances.grace?.stance, 'UNKNOWN', 'one follow-up only, then UNKNOWN');
    const followups = provider.requests.filter((r) => r.meta.purpose === 'followup');
    assert.deepEqual(followups.map((r) => r.meta.participant).sort(), ['ada', 'grace']);
    assert.match(followups[0]?.messages.at(-1)?.content ?? '', /no stance marker/);
    assert.equal(followups[0]?.messages.at(-2)?.role, 'assistant', 'its own reply comes back as its own');
    assert.equal(state.usageByParticipant.ada?.calls, 2, 'the follow-up is on the bill');
  });

  it('a meeting where every worker was refused is no decision, and says which model and which refusal', async () => {
    const refusal = "the model server refused the request (400): Unsupported parameter: 'max_tokens'";
    const { state } = await runMeeting({
      script: {},
      participants: seats('gpt-5'),
      config: { maxRounds: 1 },
      provider: {
        id: 'refusing',
        chat(req: ChatRequest): Promise<ChatResult> {
          if (req.meta.purpose === 'turn' || req.meta.purpose === 'digest') return Promise.reject(new Error(refusal));
          return Promise.resolve({
            text: 'Welcome.',
            usage: { promptTokens: 1, completionTokens: 1, source: 'provider' },
          });
        },
      },
    });
    const why = state.digest?.digest.noDecision ?? '';
    assert.match(why, /^No worker stated a stance — ada \(gpt-5\): .*Unsupported parameter: 'max_tokens'/);
    assert.match(why, /The digest has no statement — sam \(chair\) failed: .*Unsupported parameter/);
    assert.match(state.digest?.text ?? '', /^NO DECISION: /m);
  });

  it('a meeting with stances and a statement is a decision, and a scripted one says demo', async () => {
    const real = await runMeeting({
      script: {},
      participants: seats('llama3.1'),
      config: { maxRounds: 1 },
      provider: modelOf((req) => byPurpose(req, (name) => ({ text: `${name}: yes [STANCE: AGREE]` }))),
    });
    assert.equal(real.state.digest?.digest.noDecision, undefined);
    assert.equal(real.state.digest?.digest.demo, undefined);
    const demo = await runMeeting({ script: { replies: { ada: ['x [STANCE: AGREE]'] } }, config: { maxRounds: 1 } });
    assert.equal(demo.state.digest?.digest.demo, true);
  });
});
