/**
 * Usage figures are checked where they enter (daemon/src/providers/usage.ts): real servers' usage
 * shapes are taken as they are, hostile ones are replaced by our own count with one log line, and a
 * meeting on a billed budget never sees NaN, a concatenated string or a figure that ends it early.
 * Everything goes through the real loopback OpenAI-compatible server and the official SDK.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkEvent, type Participant } from '@roundtable/protocol';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { countPromptTokens } from '../../daemon/src/providers/tokens';
import type { ChatRequest, ChatResult } from '../../daemon/src/providers/types';
import { runMeeting } from '../fakes/meetings';
import { seatOf, startFakeOpenAI, type Behaviour, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';

const MESSAGES: ChatRequest['messages'] = [
  { role: 'system', content: 'You are ada, a worker in a structured roundtable.' },
  { role: 'user', content: 'Should we adopt a monorepo? Answer in two sentences.' },
];
const COUNTED_PROMPT = countPromptTokens(MESSAGES);

function request(): ChatRequest {
  return {
    model: 'fake-model',
    messages: MESSAGES,
    maxTokens: 400,
    signal: new AbortController().signal,
    meta: { participant: 'ada', role: 'worker', purpose: 'turn', round: 1, topic: 't' },
  };
}

describe('usage from a server is checked where it enters', () => {
  let fake: FakeOpenAI;
  let provider: OpenAIProvider;
  const log: string[] = [];
  before(async () => {
    fake = await startFakeOpenAI();
    provider = new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 0, log: (l) => log.push(l) });
  });
  after(() => fake.close());

  async function call(b: Behaviour): Promise<{ r: ChatResult; lines: string[] }> {
    const from = log.length;
    fake.enqueue({ text: 'A monorepo keeps the packages in step. [STANCE: AGREE]', ...b });
    const r = await provider.chat(request());
    // Whatever was taken is a record the reader accepts.
    const e = checkEvent({
      type: 'usage_recorded',
      participant: 'ada',
      role: 'worker',
      purpose: 'turn',
      round: 1,
      usage: r.usage,
      meetingId: 'm',
      seq: 1,
      at: 0,
      v: 2,
    });
    assert.ok(e.ok, e.ok ? '' : e.error);
    return { r, lines: log.slice(from) };
  }

  /** A figure replaced by our own count: a whole number, counted, and said in one log line. */
  function assertCounted(r: ChatResult, lines: string[], field: RegExp): void {
    assert.equal(r.usage.source, 'estimate');
    assert.ok(Number.isSafeInteger(r.usage.promptTokens) && r.usage.promptTokens > 0, String(r.usage.promptTokens));
    assert.ok(Number.isSafeInteger(r.usage.completionTokens) && r.usage.completionTokens > 0);
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0] ?? '', field);
    assert.doesNotMatch(lines[0] ?? '', /\n/);
  }

  // --- Real servers' shapes, taken as they are ---

  it("takes OpenAI's own usage chunk (choices: [], before [DONE])", async () => {
    const { r, lines } = await call({ promptTokens: 30, completionTokens: 14 });
    assert.deepEqual(r.usage, { promptTokens: 30, completionTokens: 14, source: 'provider' });
    assert.deepEqual(lines, []);
  });

  it("takes vLLM's usage with prompt_tokens_details: null as no cache report", async () => {
    // vLLM's UsageInfo serialises prompt_tokens_details as null unless --enable-prompt-tokens-details
    // (vllm/entrypoints/openai/protocol.py, class UsageInfo).
    const usage = { prompt_tokens: 31, total_tokens: 45, completion_tokens: 14, prompt_tokens_details: null };
    const { r, lines } = await call({ rawUsage: usage });
    assert.deepEqual(r.usage, { promptTokens: 31, completionTokens: 14, source: 'provider' });
    assert.deepEqual(lines, []);
  });

  it('takes the last of a usage that counts up in every chunk (vLLM continuous_usage_stats)', async () => {
    // vllm-project/vllm#7262: `usage=CompletionUsage(completion_tokens=0, prompt_tokens=16, …)` on the
    // role chunk, then 1, 2, … on each content chunk, and the whole count in the final chunk.
    const { r } = await call({ usageIn: 'every', promptTokens: 16, completionTokens: 9, chunkSize: 4 });
    assert.deepEqual(r.usage, { promptTokens: 16, completionTokens: 9, source: 'provider' });
  });

  it('takes usage sent on the finish_reason chunk (llama.cpp #15443, Gemini)', async () => {
    // openai/openai-python#2641 (gemini-2.5-flash through the OpenAI endpoint): usage on the chunk
    // with finish_reason, its details' unused fields null.
    const usage = {
      completion_tokens: 1994,
      prompt_tokens: 12,
      total_tokens: 2006,
      completion_tokens_details: {
        accepted_prediction_tokens: null,
        audio_tokens: null,
        reasoning_tokens: 1269,
        rejected_prediction_tokens: null,
      },
      prompt_tokens_details: { audio_tokens: null, cached_tokens: null },
    };
    const { r, lines } = await call({ usageIn: 'finish', rawUsage: usage });
    assert.deepEqual(r.usage, { promptTokens: 12, completionTokens: 1994, source: 'provider', reasoningTokens: 1269 });
    assert.deepEqual(lines, []);
  });

  it("takes OpenRouter's usage with its cost fields and a zero cache", async () => {
    // openrouter.ai/docs/use-cases/usage-accounting, "Response Format".
    const usage = {
      completion_tokens: 2,
      completion_tokens_details: { reasoning_tokens: 0 },
      cost: 0.95,
      cost_details: { upstream_inference_cost: 19 },
      prompt_tokens: 194,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      total_tokens: 196,
    };
    const { r } = await call({ rawUsage: usage });
    assert.deepEqual(r.usage, { promptTokens: 194, completionTokens: 2, source: 'provider', cachedTokens: 0 });
  });

  it("takes llama.cpp's cached_tokens within the prompt", async () => {
    // ggml-org/llama.cpp#22081: `{"completion_tokens":123,"prompt_tokens":45,…,"prompt_tokens_details":{"cached_tokens":30}}`.
    const usage = {
      completion_tokens: 123,
      prompt_tokens: 45,
      total_tokens: 168,
      prompt_tokens_details: { cached_tokens: 30 },
    };
    const { r } = await call({ rawUsage: usage });
    assert.deepEqual(r.usage, { promptTokens: 45, completionTokens: 123, source: 'provider', cachedTokens: 30 });
  });

  it("keeps a server's count that is several times ours (another tokenizer), within what the bytes allow", async () => {
    const { r, lines } = await call({ promptTokens: COUNTED_PROMPT * 3, completionTokens: 40 });
    assert.equal(r.usage.promptTokens, COUNTED_PROMPT * 3);
    assert.equal(r.usage.source, 'provider');
    assert.deepEqual(lines, []);
  });

  // --- Hostile or broken figures, replaced by our count ---

  it('counts the prompt itself when prompt_tokens is negative', async () => {
    const { r, lines } = await call({ rawUsage: { prompt_tokens: -5, completion_tokens: 14, total_tokens: 9 } });
    assertCounted(r, lines, /prompt_tokens -5 is not a whole number of tokens; counted \d+ instead/);
    assert.equal(r.usage.promptTokens, COUNTED_PROMPT);
    assert.equal(r.usage.completionTokens, 14, 'the figure that holds is kept');
  });

  it('counts a fractional figure', async () => {
    const { r, lines } = await call({ rawUsage: { prompt_tokens: 30, completion_tokens: 12.5 } });
    assertCounted(r, lines, /completion_tokens 12\.5 is not a whole number/);
    assert.equal(r.usage.promptTokens, 30);
  });

  it('counts figures sent as strings ("126", "12e3") and never adds them up as text', async () => {
    const { r, lines } = await call({ rawUsage: { prompt_tokens: '126', completion_tokens: '12e3' } });
    assertCounted(
      r,
      lines,
      /prompt_tokens "126" is not a whole number.*completion_tokens "12e3" is not a whole number/,
    );
    assert.equal(typeof r.usage.promptTokens, 'number');
    assert.equal(r.usage.promptTokens, COUNTED_PROMPT);
  });

  it('counts a figure of 1e300', async () => {
    const { r, lines } = await call({ rawUsage: { prompt_tokens: 30, completion_tokens: 1e300 } });
    assertCounted(r, lines, /completion_tokens 1e\+300 is not a whole number/);
  });

  it('counts a figure that JSON reads as Infinity (1e999)', async () => {
    const { r, lines } = await call({ rawUsageJson: '{"prompt_tokens":1e999,"completion_tokens":14}' });
    assertCounted(r, lines, /prompt_tokens Infinity is not a whole number/);
  });

  it('counts a whole figure far beyond what the request could be', async () => {
    const { r, lines } = await call({ rawUsage: { prompt_tokens: 5_000_000, completion_tokens: 14 } });
    assertCounted(r, lines, /prompt_tokens 5000000 is more than this call can be \(at most \d+\)/);
    assert.equal(r.usage.promptTokens, COUNTED_PROMPT);
  });

  it('counts a missing prompt_tokens, and a missing completion_tokens', async () => {
    const a = await call({ rawUsage: { completion_tokens: 14, total_tokens: 14 } });
    assertCounted(a.r, a.lines, /prompt_tokens is missing; counted \d+ instead/);
    const b = await call({ rawUsage: { prompt_tokens: 30 } });
    assertCounted(b.r, b.lines, /completion_tokens is missing/);
    assert.equal(b.r.usage.promptTokens, 30);
  });

  it('counts both figures of an empty usage object', async () => {
    const { r, lines } = await call({ rawUsage: {} });
    assertCounted(r, lines, /prompt_tokens is missing.*completion_tokens is missing/);
  });

  it('takes cached_tokens above prompt_tokens as prompt_tokens', async () => {
    const usage = { prompt_tokens: 800, completion_tokens: 14, prompt_tokens_details: { cached_tokens: 900 } };
    const { r, lines } = await call({ rawUsage: usage });
    assert.equal(r.usage.cachedTokens, r.usage.promptTokens);
    assert.ok(
      lines.some((l) => /cached_tokens 900 is above prompt_tokens/.test(l)),
      lines.join('\n'),
    );
  });

  it('takes reasoning_tokens above completion_tokens as completion_tokens', async () => {
    const usage = { prompt_tokens: 30, completion_tokens: 14, completion_tokens_details: { reasoning_tokens: 5000 } };
    const { r, lines } = await call({ rawUsage: usage });
    assert.equal(r.usage.reasoningTokens, 14);
    assert.match(lines[0] ?? '', /reasoning_tokens 5000 is above completion_tokens 14; taken as 14/);
  });

  it('ignores a negative reasoning_tokens and counts the thinking it streamed', async () => {
    const usage = { prompt_tokens: 30, completion_tokens: 60, completion_tokens_details: { reasoning_tokens: -3 } };
    const { r, lines } = await call({ rawUsage: usage, reasoning: 'Let me weigh the build times first.' });
    assert.ok((r.usage.reasoningTokens ?? 0) > 0 && (r.usage.reasoningTokens ?? 0) <= 60);
    assert.match(lines[0] ?? '', /reasoning_tokens -3 is not a whole number of tokens; ignored/);
  });

  it('ignores a cached_tokens sent as a string or an object', async () => {
    const a = await call({
      rawUsage: { prompt_tokens: 30, completion_tokens: 14, prompt_tokens_details: { cached_tokens: '20' } },
    });
    assert.equal(a.r.usage.cachedTokens, undefined);
    assert.equal(a.r.usage.source, 'provider', 'the main figures held');
    const b = await call({
      rawUsage: { prompt_tokens: 30, completion_tokens: 14, prompt_tokens_details: { cached_tokens: { n: 1 } } },
    });
    assert.equal(b.r.usage.cachedTokens, undefined);
  });

  it('counts a usage that is not an object (a string, an array) as a server that sent none', async () => {
    for (const rawUsage of ['12', [30, 14], true]) {
      const { r } = await call({ rawUsage });
      assert.equal(r.usage.source, 'estimate');
      assert.equal(r.usage.promptTokens, COUNTED_PROMPT);
    }
  });

  it('keeps the log line short and free of control characters whatever the figure holds', async () => {
    const hostile = `\u001b[2J\u001b]0;pwned\u0007${'9'.repeat(5_000)}\r\nFAKE LOG LINE`;
    const { lines } = await call({ rawUsage: { prompt_tokens: hostile, completion_tokens: 14 } });
    assert.equal(lines.length, 1);
    // eslint-disable-next-line no-control-regex -- the point
    assert.doesNotMatch(lines[0] ?? '', /[\u0000-\u001f\u007f]/);
    assert.ok((lines[0] ?? '').length < 400, String(lines[0]?.length));
  });
});

/** Every role played from what the prompt says, usage as `usage` makes it. */
function room(usage: (body: ChatBody) => Partial<Behaviour>) {
  return (body: ChatBody): Behaviour => {
    const { me, round, system } = seatOf(body);
    const text = /the judge/.test(system)
      ? 'No corrections.'
      : /Update the rolling summary/.test(system)
        ? `Summary of round ${round}.`
        : /closing digest/.test(system)
          ? 'CONSENSUS_STATEMENT: adopt it\nCONTRIBUTORS: ada, grace\nDISSENT: none'
          : /chairs a structured roundtable/.test(system)
            ? 'Welcome.'
            : `${me} in round ${round}: an argument. [STANCE: AGREE]`;
    return { text, ...usage(body) };
  };
}

const PANEL: Participant[] = [
  { name: 'sam', role: 'assistant', provider: 'openai', model: 'm' },
  { name: 'jude', role: 'judge', provider: 'openai', model: 'm' },
  { name: 'ada', role: 'worker', provider: 'openai', model: 'm' },
  { name: 'grace', role: 'worker', provider: 'openai', model: 'm' },
];

describe('a meeting on a billed budget against a server whose usage is broken', () => {
  async function meet(usage: (body: ChatBody) => Partial<Behaviour>) {
    const fake = await startFakeOpenAI(room(usage));
    try {
      const provider = new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 0 });
      return await runMeeting({
        script: { replies: {} },
        provider,
        participants: PANEL,
        config: { tokenBudget: 15_000, budgetBasis: 'billed', maxRounds: 2 },
      });
    } finally {
      await fake.close();
    }
  }

  function billed(events: Awaited<ReturnType<typeof meet>>['events']): number {
    let n = 0;
    for (const e of events) if (e.type === 'usage_recorded') n += e.usage.promptTokens + e.usage.completionTokens;
    return n;
  }

  it('never turns the budget into NaN when prompt_tokens is missing: the meeting runs and writes its digest', async () => {
    const { state, events } = await meet(() => ({ rawUsage: { completion_tokens: 20, total_tokens: 20 } }));
    assert.ok(Number.isFinite(billed(events)) && billed(events) > 0, String(billed(events)));
    assert.ok(state.rounds.length >= 1);
    assert.ok(state.digest, `no digest; closed ${state.closed?.reason}: ${state.closed?.detail}`);
  });

  it('is not ended before round 1 by a completion of 1e300', async () => {
    const { state } = await meet(() => ({ rawUsage: { prompt_tokens: 40, completion_tokens: 1e300 } }));
    assert.ok(state.rounds[0]?.stances.ada, `round 1 never ran: ${state.closed?.reason} ${state.closed?.detail}`);
    assert.notEqual(state.closed?.reason, 'budget_exhausted');
  });

  it('adds figures sent as strings as numbers, never as text', async () => {
    const { state, events } = await meet(() => ({ rawUsage: { prompt_tokens: '126', completion_tokens: '100' } }));
    for (const t of Object.values(state.usageByParticipant)) {
      assert.equal(typeof t.promptTokens, 'number');
      assert.ok(t.promptTokens < 100_000, `concatenated? ${t.promptTokens}`);
    }
    assert.ok(Number.isFinite(billed(events)));
  });
});
