import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { PrefixCache, serializePrompt, startFakeOpenAI } from '../fakes/openaiServer';

describe("the fake server's prefix cache", () => {
  it("serves the longest common prefix with any earlier prompt, by OpenAI's 1,024-token minimum and 128-token blocks", () => {
    const cache = new PrefixCache();
    // One token per four characters, as the fake server counts by default.
    const ask = (c: PrefixCache, text: string) => c.lookup(text, Math.ceil(text.length / 4));
    const a = 'a'.repeat(4 * 2_000);
    assert.equal(ask(cache, a), 0, 'nothing before it');
    // 1,500 common tokens: 11 whole blocks of 128.
    assert.equal(ask(cache, `${a.slice(0, 6_000)}b${'c'.repeat(400)}`), 1_408);
    assert.equal(ask(cache, 'a'.repeat(4 * 1_000)), 0, 'under the minimum');
    assert.equal(ask(cache, a), 1_920, 'a repeat: whole blocks only');
    const small = new PrefixCache({ minTokens: 0, blockTokens: 16 });
    ask(small, 'x'.repeat(400));
    assert.equal(ask(small, 'x'.repeat(200)), 48);
  });

  it('reports cached_tokens, which the provider reads into the usage', async () => {
    const fake = await startFakeOpenAI(() => 'ok', { prefixCache: {} });
    try {
      const provider = new OpenAIProvider({ baseURL: fake.baseURL });
      const long = 'word '.repeat(1_200);
      const ask = (tail: string) =>
        provider.chat({
          model: 'fake-model',
          messages: [
            { role: 'system', content: long },
            { role: 'user', content: tail },
          ],
          maxTokens: 10,
          signal: new AbortController().signal,
          meta: { participant: 'ada', role: 'worker', purpose: 'turn', round: 1, topic: 't' },
        });
      const first = await ask('one');
      const second = await ask('two');
      assert.equal(first.usage.cachedTokens ?? 0, 0);
      const text = serializePrompt([
        { role: 'system', content: long },
        { role: 'user', content: 'two' },
      ]);
      assert.equal(second.usage.promptTokens, Math.ceil(text.length / 4));
      assert.equal(second.usage.cachedTokens, 1_408);
      assert.equal(fake.requests.at(-1)?.usage?.cachedTokens, 1_408);
    } finally {
      await fake.close();
    }
  });
});
