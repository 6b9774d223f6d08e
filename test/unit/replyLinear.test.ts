/**
 * The reply reader is linear in its input (issue 32): a reply of a megabyte of the worst shape
 * (repeated `<think>` openers, runs of `</s>`, an unterminated `<|`, harmony headers…) costs about
 * eight times what an eighth of it costs, never the 64 times a quadratic reader would. Measured as
 * CPU time, 1 MB against 128 KB (test/fakes/linear.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitThinking } from '../../daemon/src/providers/reply';
import { ReplyReader } from '../../daemon/src/providers/replyReader';
import { LINEAR_RATIO, repeated, workRatio } from '../fakes/linear';

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
  ['repeated <think> openers', (n) => repeated('<think>', n)],
  ['repeated <think> openers after a reply', (n) => 'Reply first. ' + repeated('<think>', n)],
  ['repeated </think> closers', (n) => repeated('</think>', n)],
  ['runs of </s> with spaces between, then text', (n) => repeated('</s> ', n, 'end')],
  ['runs of </s> with spaces between, at the end', (n) => 'x ' + repeated('</s> ', n)],
  ['one unterminated <| and a long word', (n) => '<|' + repeated('a', n)],
  ['repeated <|a (never closed)', (n) => repeated('<|a', n)],
  ['repeated <|im_start| (no >)', (n) => repeated('<|im_start|', n)],
  ['repeated <|im_start|> with spaces', (n) => repeated('<|im_start|>      ', n)],
  ['repeated harmony headers with no message', (n) => repeated('<|channel|>analysis', n)],
  ['a harmony header that never ends', (n) => '<|channel|>' + repeated('commentary ', n)],
  ['stripped analysis with many assistant words', (n) => 'analysisWe' + repeated('assistant ', n)],
  ['stripped analysis with many assistantfinal', (n) => 'analysisWe' + repeated('assistantfinal', n)],
  ['<think> blocks opened and closed', (n) => repeated('<think>x</think>', n)],
  ['half tags: <thin repeated', (n) => repeated('<thin', n)],
  ['less-than signs', (n) => repeated('<', n)],
  ['<start_of_turn> repeated', (n) => repeated('<start_of_turn>', n)],
  ['white space only (a model stuck in a loop)', (n) => repeated(' \n', n)],
];

describe('the reply reader is linear in the reply (1 MB against 128 KB)', () => {
  for (const [name, make] of SHAPES) {
    it(`splitThinking: ${name}`, () => {
      const r = workRatio(splitThinking, make);
      assert.ok(r < LINEAR_RATIO, `${name}: 1 MB took ${r.toFixed(1)}x the work of 128 KB (linear 8x, quadratic 64x)`);
    });
    it(`ReplyReader, streamed in 1 KB and 7-character pieces: ${name}`, () => {
      for (const piece of [1024, 7]) {
        const r = workRatio((text) => streamed(text, piece), make);
        assert.ok(r < LINEAR_RATIO, `${name} in ${piece}-char pieces: ${r.toFixed(1)}x (linear 8x, quadratic 64x)`);
      }
    });
  }

  it('reads the hostile shapes as a person would', () => {
    assert.deepEqual(splitThinking(repeated('<think>', 7000)), { thinking: '', reply: '' });
    assert.equal(
      splitThinking(`Reply first. ${repeated('<think>', 70)}`).reply,
      `Reply first. ${repeated('<think>', 70)}`,
    );
    assert.equal(splitThinking(`Done. [STANCE: AGREE]${repeated('</s> ', 5000)}`).reply, 'Done. [STANCE: AGREE]');
    assert.equal(splitThinking(`<|${repeated('a', 5000)}`).reply, `<|${repeated('a', 5000)}`);
    // A reply streamed in 7-character pieces reads as the whole text does.
    const text = `<think>a ${repeated('<think>', 700)}</think>Yes. [STANCE: AGREE]</s> </s>`;
    assert.deepEqual(streamed(text, 7), splitThinking(text));
  });
});
