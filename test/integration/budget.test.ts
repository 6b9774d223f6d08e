/**
 * The budget is a hard ceiling and every reply has a cap, whatever the model server does with
 * `max_tokens` (the loopback server here ignores it). The time limit bounds the whole run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Participant } from '@roundtable/protocol';
import { billOf } from '@roundtable/protocol';
import { BRIEFING_MAX_TOKENS, JUDGE_MAX_TOKENS } from '../../daemon/src/meeting/budget';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { countTokens } from '../../daemon/src/providers/tokens';
import type { ChatProvider, ChatRequest, ChatResult } from '../../daemon/src/providers/types';
import { MemoryStore } from '../../daemon/src/store/memoryStore';
import { FakeClock } from '../fakes/clock';
import { eventsOfType, panel, runMeeting } from '../fakes/meetings';
import { startFakeOpenAI, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';

const HUGE = 'lorem ipsum dolor sit amet '.repeat(15_000); // about 400 KB

function seats(workers: string[]): Participant[] {
  return [
    { name: 'sam', role: 'assistant', provider: 'openai', model: 'chair' },
    { name: 'jude', role: 'judge', provider: 'openai', model: 'judge' },
    ...workers.map((name): Participant => ({ name, role: 'worker', provider: 'openai', model: name })),
  ];
}

/** Long replies for everyone; 400 KB for the assistant and the judge when `huge` is set. */
function responder(huge: boolean) {
  return (body: ChatBody) => {
    const model = body.model ?? '';
    if (model === 'chair' || model === 'judge') return { text: huge ? HUGE : 'Noted.', chunkSize: 65_536 };
    const stance = model === 'ada' ? 'AGREE' : 'DISAGREE';
    return { text: `${'an argument with evidence '.repeat(150)}[STANCE: ${stance}]`, delayMs: 30, chunkSize: 512 };
  };
}

describe('budget and reply caps against a server that ignores max_tokens', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI(responder(false));
  });
  after(() => fake.close());

  it('never records spoken tokens past the budget, even from parallel replies; one number everywhere', async () => {
    fake.setResponder(responder(false));
    const budget = 2000;
    const { state, events } = await runMeeting({
      script: { replies: {} },
      provider: new OpenAIProvider({ baseURL: fake.baseURL }),
      participants: seats(['ada', 'grace', 'linus', 'mary']),
      config: { tokenBudget: budget, replyMaxTokens: 800, order: 'parallel', maxRounds: 5 },
    });
    const spoken =
      eventsOfType(events, 'message_posted').reduce((n, e) => n + e.tokens, 0) +
      eventsOfType(events, 'judge_feedback').reduce((n, e) => n + e.tokens, 0);
    assert.ok(spoken <= budget, `${spoken} of ${budget} tokens recorded`);
    assert.equal(state.spokenTokens, spoken);
    for (const m of eventsOfType(events, 'message_posted')) assert.ok(countTokens(m.text) <= m.tokens + 1, m.messageId);
    assert.equal(state.closed?.reason, 'budget_exhausted');
    assert.equal(state.closed?.detail, `${state.spokenTokens} of ${budget} tokens spoken`);
    const n = (x: number) => x.toLocaleString('en-US');
    assert.ok(
      state.digest?.text.includes(`TOKEN COST: spoken ${n(state.spokenTokens)} / ${n(budget)} budget · billed `),
      state.digest?.text,
    );
    // Parallel calls were planned to share what was left.
    const workerAsks = fake.requests.filter((r) => !['chair', 'judge'].includes(r.body.model ?? ''));
    assert.ok(
      workerAsks.every((r) => (r.body.max_tokens ?? Infinity) <= budget / 4),
      'max_tokens shared',
    );
  });

  it('caps 400 KB briefing, judge, summary and digest replies, so prompts stay small', async () => {
    fake.setResponder(responder(true));
    const first = fake.requests.length;
    const { state, events } = await runMeeting({
      script: { replies: {} },
      provider: new OpenAIProvider({ baseURL: fake.baseURL }),
      participants: seats(['ada', 'grace']),
      config: { tokenBudget: 1_000_000, maxRounds: 2 },
    });
    assert.ok((state.briefing?.tokens ?? Infinity) <= BRIEFING_MAX_TOKENS, `briefing ${state.briefing?.tokens}`);
    const judged = eventsOfType(events, 'judge_feedback');
    assert.ok(judged.length > 0, 'the judge spoke');
    for (const j of judged) assert.ok(countTokens(j.text) <= JUDGE_MAX_TOKENS, `judge ${countTokens(j.text)}`);
    for (const s of eventsOfType(events, 'summary_updated')) assert.ok(s.tokens <= state.config.summaryMaxTokens);
    assert.ok((state.digest?.text.length ?? Infinity) < 20_000, `digest ${state.digest?.text.length} chars`);
    const biggest = Math.max(
      ...fake.requests.slice(first).map((r) => (r.body.messages ?? []).reduce((n, m) => n + m.content.length, 0)),
    );
    assert.ok(biggest < 40_000, `largest prompt ${biggest} chars`);
  });
});

/** Answers the assistant at once; a worker's turn waits until it is aborted. */
class StallingWorkers implements ChatProvider {
  readonly id = 'stalling';
  readonly purposes: string[] = [];
  private waiting = 0;
  private onWaiting: (() => void) | undefined;

  chat(req: ChatRequest): Promise<ChatResult> {
    this.purposes.push(req.meta.purpose);
    if (req.meta.purpose !== 'turn') {
      return Promise.resolve({ text: 'Welcome.', usage: { promptTokens: 1, completionTokens: 1, source: 'estimate' } });
    }
    return new Promise((_, reject) => {
      req.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      if (++this.waiting === 3) this.onWaiting?.();
    });
  }

  /** Resolves once every worker is waiting on its turn. */
  allWaiting(): Promise<void> {
    return new Promise((resolve) => (this.onWaiting = resolve));
  }
}

describe('the time limit bounds the whole run', () => {
  it('closes on time_limit and writes the digest without asking the model when no time is left', async () => {
    const clock = new FakeClock();
    const provider = new StallingWorkers();
    const waiting = provider.allWaiting();
    const { state } = await runMeeting({
      script: { replies: {} },
      provider,
      clock,
      store: new MemoryStore(() => clock.now()),
      participants: panel(['ada', 'grace', 'linus'], false),
      config: { timeLimitMs: 5_000, turnTimeoutMs: 60_000, order: 'parallel' },
      during: async () => {
        await waiting;
        clock.advance(5_000);
      },
    });
    assert.equal(state.closed?.reason, 'time_limit');
    assert.ok(state.digest, 'the digest is written');
    assert.ok(!provider.purposes.includes('digest'), `calls: ${provider.purposes.join(', ')}`);
  });
});

describe('a billed budget is a ceiling on tokens, not on money', () => {
  it('counts prompt tokens served from the cache in full: the same meeting stops at the same point with or without a cache', async () => {
    const runOn = async (prefixCache?: { minTokens: number; blockTokens: number }) => {
      const server = await startFakeOpenAI(
        (body) => ({ text: `${body.model ?? ''}: ${'an argument with evidence '.repeat(20)}[STANCE: DISAGREE]` }),
        prefixCache ? { prefixCache } : {},
      );
      try {
        return await runMeeting({
          script: { replies: {} },
          provider: new OpenAIProvider({ baseURL: server.baseURL }),
          participants: seats(['ada', 'grace', 'linus']),
          // 10,000: the cut falls past 80% (12,000 did before the judge's rules left the system
          // message every call is sent; with the smaller prompts its cut fell at 71%).
          config: { tokenBudget: 10_000, budgetBasis: 'billed', order: 'parallel', maxRounds: 20 },
        });
      } finally {
        await server.close();
      }
    };
    const cached = await runOn({ minTokens: 0, blockTokens: 16 });
    const plain = await runOn();
    const bill = (s: typeof cached.state) => billOf(s);
    assert.ok(bill(cached.state).cachedTokens > bill(cached.state).promptTokens / 3, 'the cache served little');
    assert.equal(cached.state.closed?.reason, 'budget_exhausted');
    assert.equal(cached.state.rounds.length, plain.state.rounds.length, 'cached tokens bought extra rounds');
    assert.equal(bill(cached.state).calls, bill(plain.state).calls);
    // The ceiling was reached on tokens the cache served: without them the room was far from it.
    const spent = Number(/^(\d+) of 10000 tokens billed/.exec(cached.state.closed?.detail ?? '')?.[1]);
    assert.ok(spent >= 0.8 * 10_000, cached.state.closed?.detail);
    assert.ok(
      spent - bill(cached.state).cachedTokens < 0.5 * 10_000,
      `${spent} billed, ${bill(cached.state).cachedTokens} cached`,
    );
    assert.equal(bill(plain.state).cachedTokens, 0);
  });
});
