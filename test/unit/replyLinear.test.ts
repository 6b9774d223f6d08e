/**
 * The reply reader is linear in its input (issue 32): a reply of a megabyte of the worst shape
 * (repeated `<think>` openers, runs of `</s>`, an unterminated `<|`, harmony headers…) costs about
 * eight times what an eighth of it costs, never the 64 times a quadratic reader would. Measured as
 * CPU time, best of three, 1 MB against 8 x 128 KB (test/fakes/linearity.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitThinking } from '../../daemon/src/providers/reply';
import { ReplyReader } from '../../daemon/src/providers/replyReader';
import { BOUND, LARGE, SMALL, shape, workRatio } from '../fakes/linearity';

/** The reader fed `text` in pieces of `piece` characters, as a stream would. */
function streamed(text: string, piece: number): ReturnType<ReplyReader['end']> {
  let seen = 0;
  const r = new ReplyReader((t) => {
    seen += t.length;
  });
  for (let i = 0; i < text.length; i += piece) r.addContent(text.slice(i, i + piece));
  const out = r.end({ finishReason: 'stop' });
  assert.ok(seen <= text.length + 16, 'the live view never shows more than came');
  return out;
}

const SHAPES: [string, (size: number) => string][] = [
  ['repeated <think> openers', (n) => shape('<think>', n)],
  ['repeated <think> openers after a reply', (n) => 'Reply first. ' + shape('<think>', n)],
  ['repeated </think> closers', (n) => shape('</think>', n)],
  ['runs of </s> with spaces between, then text', (n) => shape('</s> ', n, 'end')],
  ['runs of </s> with spaces between, at the end', (n) => 'x ' + shape('</s> ', n)],
  ['one unterminated <| and a long word', (n) => '<|' + shape('a', n)],
  ['repeated <|a (never closed)', (n) => shape('<|a', n)],
  ['repeated <|im_start| (no >)', (n) => shape('<|im_start|', n)],
  ['repeated <|im_start|> with spaces', (n) => shape('<|im_start|>      ', n)],
  ['repeated harmony headers with no message', (n) => shape('<|channel|>analysis', n)],
  ['a harmony header that never ends', (n) => '<|channel|>' + shape('commentary ', n)],
  ['stripped analysis with many assistant words', (n) => 'analysisWe' + shape('assistant ', n)],
  ['stripped analysis with many assistantfinal', (n) => 'analysisWe' + shape('assistantfinal', n)],
  ['<think> blocks opened and closed', (n) => shape('<think>x</think>', n)],
  ['half tags: <thin repeated', (n) => shape('<thin', n)],
  ['less-than signs', (n) => shape('<', n)],
  ['<start_of_turn> repeated', (n) => shape('<start_of_turn>', n)],
  ['white space only (a model stuck in a loop)', (n) => shape(' \n', n)],
];

describe('the reply reader is linear in the reply (1 MB against 128 KB)', () => {
  for (const [name, make] of SHAPES) {
    it(`splitThinking: ${name}`, () => {
      const texts = new Map([SMALL, LARGE].map((n) => [n, make(n)]));
      const r = workRatio((n) => void splitThinking(texts.get(n) as string));
      assert.ok(r < BOUND, `${name}: 1 MB took ${r.toFixed(1)}x the work of 8 x 128 KB (linear 1x, quadratic 8x)`);
    });
    it(`ReplyReader, streamed in 1 KB and 7-character pieces: ${name}`, () => {
      const texts = new Map([SMALL, LARGE].map((n) => [n, make(n)]));
      for (const piece of [1024, 7]) {
        const r = workRatio((n) => void streamed(texts.get(n) as string, piece));
        assert.ok(r < BOUND, `${name} in ${piece}-char pieces: ${r.toFixed(1)}x (linear 1x, quadratic 8x)`);
      }
    });
  }

  it('reads the hostile shapes as a person would', () => {
    assert.deepEqual(splitThinking(shape('<think>', 7000)), { thinking: '', reply: '' });
    assert.equal(splitThinking(`Reply first. ${shape('<think>', 70)}`).reply, `Reply first. ${shape('<think>', 70)}`);
    assert.equal(splitThinking(`Done. [STANCE: AGREE]${shape('</s> ', 5000)}`).reply, 'Done. [STANCE: AGREE]');
    assert.equal(splitThinking(`<|${shape('a', 5000)}`).reply, `<|${shape('a', 5000)}`);
    // A reply streamed in 7-character pieces reads as the whole text does.
    const text = `<think>a ${shape('<think>', 700)}</think>Yes. [STANCE: AGREE]</s> </s>`;
    assert.deepEqual(streamed(text, 7), splitThinking(text));
  });
});
