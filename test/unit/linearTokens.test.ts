/**
 * Tokens of text a model, an agent or a file can send are counted and cut in time linear in its length: 1 MB of the
 * worst shape we know costs about eight times 128 KB of it (see test/fakes/linear.ts), never the
 * sixty-four of a quadratic reader, and never a stack overflow.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countTokens, truncateToTokens } from '../../daemon/src/providers/tokens';
import { ASCII_SHAPES, checkTokenShape, reference } from '../fakes/linear';

describe('counting and cutting tokens of 1 MB of a hostile shape', () => {
  for (const [name, shape] of Object.entries(ASCII_SHAPES))
    it(`${name}: counted in linear time, exactly as js-tiktoken counts it, and cut to size`, () =>
      checkTokenShape(shape));

  it('a ~1 MB reply with one long link among prose is cut to size instead of overflowing the stack', () => {
    const text = `See ${ASCII_SHAPES.url?.(100_000)} and then ${'words and more words. '.repeat(40_000)}`;
    const cut = truncateToTokens(text, 500);
    assert.equal(countTokens(cut), 500);
    assert.ok(text.startsWith(cut));
  });

  it('counts normal prose and code exactly as the library does, long texts included (no slices)', async () => {
    const { readFile } = await import('node:fs/promises');
    const texts = [
      await readFile('docs/security.md', 'utf8'),
      await readFile('daemon/src/meeting/runner.ts', 'utf8'),
      await readFile('README.md', 'utf8'),
      'Ünïcödé — “quotes”, emoji 🎉, 中文, עברית, and numbers 1234567.89\r\n\ttabs',
    ];
    // Longer than the 20,000-character slices the old counter cut at, mid-word and mid-emoji.
    texts.push(`${'🎉 word '.repeat(3_000)}🎉🎉`);
    for (const t of texts) assert.equal(countTokens(t), reference().encode(t, [], []).length);
    assert.ok(texts.some((t) => t.length > 20_000));
  });

  it('cuts on a token boundary: the cut is the first tokens of the text, as the library cuts it', () => {
    const text = `${'The quick brown fox. '.repeat(300)}${' '.repeat(1_500)}end`;
    const ids = reference().encode(text, [], []);
    for (const max of [1, 7, 100, 1_000, 1_200]) {
      const expected = ids.length <= max ? text : reference().decode(ids.slice(0, max));
      assert.equal(truncateToTokens(text, max), expected, `max ${max}`);
    }
  });
});
