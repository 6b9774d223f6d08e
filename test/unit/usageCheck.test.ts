/**
 * The one check of reported usage (daemon/src/providers/usage.ts), on values JSON over HTTP cannot
 * carry to the integration tests (NaN, -0, a BigInt-sized figure), and on the VS Code window's counts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_CALL_TOKENS, UsageSchema } from '@roundtable/protocol';
import { checkUsage, openAiReported, tokenCeiling, type Counted } from '../../daemon/src/providers/usage';
import { VscodeLmBridge } from '../../daemon/src/providers/vscodeLm';
import type { ChatRequest } from '../../daemon/src/providers/types';

const counted = (over: Partial<Counted> = {}): Counted => ({
  promptTokens: () => 40,
  completionTokens: () => 12,
  reasoningTokens: 0,
  promptCeiling: tokenCeiling(['x'.repeat(200)]),
  ...over,
});

describe('checkUsage', () => {
  for (const [what, v] of [
    ['NaN', NaN],
    ['-Infinity', -Infinity],
    ['a figure past MAX_CALL_TOKENS', MAX_CALL_TOKENS + 1],
    ['a number past 2^53', 2 ** 60],
    ['a boolean', true],
    ['null', null],
    ['an object', { value: 30 }],
  ] as const) {
    it(`replaces ${what} by our count, and the result is a record the reader takes`, () => {
      const { usage, notes } = checkUsage({ prompt: v, completion: 12 }, counted());
      assert.equal(usage.promptTokens, 40);
      assert.equal(usage.source, 'estimate');
      assert.equal(notes.length, 1);
      assert.ok(UsageSchema.safeParse(usage).success);
    });
  }

  it('takes -0 as zero, a whole count', () => {
    assert.equal(checkUsage({ prompt: -0, completion: 12 }, counted()).usage.promptTokens, 0);
  });

  it('counts nothing it does not need: our tokenizer runs only for a replaced figure', () => {
    let asked = 0;
    const c = counted({ promptTokens: () => (asked++, 40), completionTokens: () => (asked++, 12) });
    checkUsage({ prompt: 30, completion: 10 }, c);
    assert.equal(asked, 0);
  });

  it('bills an over-reported completion as reported (hidden thinking is not ours to doubt), up to MAX_CALL_TOKENS', () => {
    // OpenAI's reasoning models stream no thinking, yet bill it: a completion has no bound we can see.
    assert.deepEqual(checkUsage({ prompt: 30, completion: 1_000_000 }, counted()).usage, {
      promptTokens: 30,
      completionTokens: 1_000_000,
      source: 'provider',
    });
    assert.equal(checkUsage({ prompt: 30, completion: MAX_CALL_TOKENS + 1 }, counted()).usage.completionTokens, 12);
  });

  it('bounds the prompt by the bytes sent, whatever the tokenizer', () => {
    const ceiling = tokenCeiling(['x'.repeat(200)]);
    assert.equal(checkUsage({ prompt: ceiling, completion: 1 }, counted()).usage.promptTokens, ceiling);
    assert.equal(checkUsage({ prompt: ceiling + 1, completion: 1 }, counted()).usage.promptTokens, 40);
    // Four bytes a character, one token a byte at worst: a CJK or emoji prompt is not refused.
    assert.ok(tokenCeiling(['😀'.repeat(100)]) >= 400);
  });

  it('takes a server that sent no usage as counted, with no note', () => {
    const { usage, notes } = checkUsage(undefined, counted({ reasoningTokens: 5 }));
    assert.deepEqual(usage, { promptTokens: 40, completionTokens: 12, source: 'estimate', reasoningTokens: 5 });
    assert.deepEqual(notes, []);
  });

  it('never reports more thinking than the completion holds, counted or reported', () => {
    const { usage } = checkUsage({ prompt: 30, completion: 3 }, counted({ reasoningTokens: 50 }));
    assert.equal(usage.reasoningTokens, 3);
  });

  it('reads the OpenAI shape whatever its details hold', () => {
    assert.deepEqual(openAiReported({ prompt_tokens: 1, completion_tokens: 2, prompt_tokens_details: null }), {
      prompt: 1,
      completion: 2,
      cached: undefined,
      reasoning: undefined,
    });
    assert.equal(openAiReported(null), undefined);
    assert.equal(openAiReported([1, 2]), undefined);
  });
});

describe("the VS Code window's counts", () => {
  function ask(bridge: VscodeLmBridge): Promise<Awaited<ReturnType<VscodeLmBridge['chat']>>> {
    const req: ChatRequest = {
      model: 'copilot-gpt',
      messages: [{ role: 'user', content: 'Should we adopt a monorepo?' }],
      maxTokens: 200,
      signal: new AbortController().signal,
      meta: { participant: 'ada', role: 'worker', purpose: 'turn', round: 1, topic: 't' },
    };
    return bridge.chat(req);
  }

  it('replaces a prompt count no tokenizer could make of what was sent, and says so in the log', async () => {
    const lines: string[] = [];
    const bridge = new VscodeLmBridge((l) => lines.push(l));
    bridge.register({
      chat: () =>
        Promise.resolve({ ok: true, text: 'Yes. [STANCE: AGREE]', promptTokens: 99_000_000, completionTokens: 6 }),
    });
    const r = await ask(bridge);
    assert.ok(r.usage.promptTokens < 100, String(r.usage.promptTokens));
    assert.equal(r.usage.completionTokens, 6);
    assert.equal(r.usage.source, 'estimate');
    assert.match(
      lines[0] ?? '',
      /usage from the VS Code window \(model "copilot-gpt"\).*prompt_tokens 99000000 is more than this call can be/,
    );
  });
});
