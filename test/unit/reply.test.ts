import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitThinking, type ReplyChannel } from '../../daemon/src/providers/reply';
import { ReplyReader } from '../../daemon/src/providers/replyReader';
import { countTokens } from '../../daemon/src/providers/tokens';
import { VscodeLmBridge } from '../../daemon/src/providers/vscodeLm';

/** Feeds `pieces` as content deltas; gives the final split and what the live view saw per channel. */
function read(pieces: string[], reasoning: string[] = []) {
  const live: Record<ReplyChannel, string> = { reply: '', thinking: '' };
  const r = new ReplyReader((t, c) => {
    live[c] += t;
  });
  for (const p of reasoning) r.addReasoning(p);
  for (const p of pieces) r.addContent(p);
  return { ...r.end(), live };
}

/** Every way to cut `text` into two chunks. */
function everySplit(text: string): string[][] {
  const out: string[][] = [];
  for (let i = 0; i <= text.length; i++) out.push([text.slice(0, i), text.slice(i)]);
  return out;
}

describe('splitThinking', () => {
  it('takes a leading <think> block out of the reply', () => {
    assert.deepEqual(splitThinking('<think>\nweigh it\n</think>\n\nYes. [STANCE: AGREE]'), {
      thinking: 'weigh it',
      reply: 'Yes. [STANCE: AGREE]',
    });
    assert.deepEqual(splitThinking('  <THINKING>a</THINKING>b'), { thinking: 'a', reply: 'b' });
  });

  it('drops chat-template special tokens a broken server template leaks', () => {
    assert.deepEqual(splitThinking('140<|eot_id|>'), { thinking: '', reply: '140' });
    assert.deepEqual(splitThinking('<think>\n5 - 2 = 3\n</think>\n\n**Final Answer:** 3<|im_end|>'), {
      thinking: '5 - 2 = 3',
      reply: '**Final Answer:** 3',
    });
    assert.equal(splitThinking('<|im_start|>assistant\nYes. [STANCE: AGREE]<|im_end|>').reply, 'Yes. [STANCE: AGREE]');
    assert.equal(
      splitThinking('<|start_header_id|>assistant<|end_header_id|>\n\nNo.<|eom_id|><|end|><|endoftext|>').reply,
      'No.',
    );
    assert.equal(splitThinking('<start_of_turn>model\nFine.<end_of_turn><eos>').reply, 'Fine.');
    assert.equal(splitThinking('<BOS_TOKEN>The answer is (I).<EOS_TOKEN>').reply, 'The answer is (I).');
    assert.equal(splitThinking('Done.</s></s>').reply, 'Done.');
  });

  it('keeps text that only looks like a token: <s> strikethrough, a pipe table, a </s> mid-text', () => {
    assert.equal(splitThinking('use <s>old</s> new').reply, 'use <s>old</s> new');
    assert.equal(splitThinking('| a | b |\n|---|---|').reply, '| a | b |\n|---|---|');
    assert.equal(splitThinking('x <| y |> z').reply, 'x <| y |> z');
  });

  it('reads an unclosed leading block as all thinking (the cap ran out while thinking)', () => {
    assert.deepEqual(splitThinking('<think>first this, then'), { thinking: 'first this, then', reply: '' });
  });

  it('reads a </think> with no opening tag as thinking opened by the chat template', () => {
    assert.deepEqual(splitThinking('the template opened it</think>\nNo.'), {
      thinking: 'the template opened it',
      reply: 'No.',
    });
  });

  it('drops an empty <think></think> (a model told not to think)', () => {
    assert.deepEqual(splitThinking('<think>\n\n</think>\n\nShort answer.'), { thinking: '', reply: 'Short answer.' });
  });

  it('leaves a reply without tags alone, and an unclosed tag after the reply in it', () => {
    assert.deepEqual(splitThinking('Plain reply.'), { thinking: '', reply: 'Plain reply.' });
    assert.deepEqual(splitThinking('Reply, then <think> half'), { thinking: '', reply: 'Reply, then <think> half' });
  });
});

describe('ReplyReader', () => {
  it('channels a leading <think> block live and splits it at the end', () => {
    const r = read(['<think>', 'a plan', '</think>', '\n\nThe reply.']);
    assert.deepEqual({ thinking: r.thinking, reply: r.reply }, { thinking: 'a plan', reply: 'The reply.' });
    assert.equal(r.live.thinking, 'a plan');
    assert.equal(r.live.reply.trim(), 'The reply.');
  });

  it('finds the tags however the stream cuts them', () => {
    const text = '<think>why not</think>Because.';
    for (const pieces of everySplit(text)) {
      const r = read(pieces);
      assert.equal(r.thinking, 'why not', JSON.stringify(pieces));
      assert.equal(r.reply, 'Because.', JSON.stringify(pieces));
      assert.equal(r.live.thinking, 'why not', JSON.stringify(pieces));
      assert.equal(r.live.reply, 'Because.', JSON.stringify(pieces));
    }
    // One character at a time, with a closing tag of the long form.
    const r = read(Array.from('<thinking>x y</thinking> z'));
    assert.deepEqual([r.thinking, r.reply, r.live.thinking, r.live.reply], ['x y', 'z', 'x y', 'z']);
  });

  it('keeps an unclosed leading block in thinking, live and at the end', () => {
    const r = read(['<think>still', ' going']);
    assert.deepEqual([r.thinking, r.reply, r.live.thinking, r.live.reply], ['still going', '', 'still going', '']);
  });

  it('corrects a template-opened block at the end (live it looked like reply)', () => {
    const r = read(['thought', '</think>', 'Answer']);
    assert.equal(r.thinking, 'thought');
    assert.equal(r.reply, 'Answer');
  });

  it('reads an empty block as no thinking', () => {
    const r = read(['<think>', '</think>', '\n\nOK']);
    assert.deepEqual([r.thinking, r.reply, r.live.thinking, r.live.reply.trim()], ['', 'OK', '', 'OK']);
  });

  it('puts the reasoning fields in thinking, first, and never in the reply', () => {
    const r = read(['The answer.'], ['step one, ', 'step two']);
    assert.equal(r.thinking, 'step one, step two');
    assert.equal(r.reply, 'The answer.');
    assert.equal(r.live.thinking, 'step one, step two');
    assert.equal(r.live.reply, 'The answer.');
    const both = read(['<think>inline</think>Done.'], ['field']);
    assert.equal(both.thinking, 'field\n\ninline');
    assert.equal(both.reply, 'Done.');
  });

  it('hands out a held-back piece that never became a tag when the reply ends', () => {
    const r = read(['<th']);
    assert.equal(r.reply, '<th');
    assert.equal(r.live.reply, '<th', 'the live view is not missing the end');
    const t = read(['<think>almost</thi']);
    assert.equal(t.live.thinking, 'almost</thi');
  });

  it('sends nothing for empty pieces', () => {
    const seen: string[] = [];
    const r = new ReplyReader((t) => seen.push(t));
    r.addContent('');
    r.addReasoning('');
    assert.deepEqual(r.end(), { thinking: '', reply: '' });
    assert.deepEqual(seen, []);
  });
});

describe('the vscode-lm bridge reads through the same reader', () => {
  it('strips inline <think> from a VS Code model (no stable thinking part in the API)', async () => {
    const bridge = new VscodeLmBridge();
    bridge.register({
      chat: (_r, o) => {
        for (const text of ['<thi', 'nk>weigh', '</think>', 'Hello.']) o.onProgress({ text });
        return Promise.resolve({ ok: true, text: '<think>weigh</think>Hello.', promptTokens: 5, completionTokens: 9 });
      },
    });
    const seen: Record<ReplyChannel, string> = { reply: '', thinking: '' };
    const call = bridge.chat({
      model: 'copilot-gpt',
      messages: [{ role: 'user', content: 'Hi' }],
      maxTokens: 50,
      signal: new AbortController().signal,
      onDelta: (t, c) => void (seen[c] += t),
      meta: { participant: 'ada', role: 'worker', purpose: 'turn', round: 1, topic: 't' },
    });
    const r = await call;
    assert.equal(r.text, 'Hello.');
    assert.equal(r.thinking, 'weigh');
    assert.deepEqual(seen, { reply: 'Hello.', thinking: 'weigh' });
    assert.equal(r.usage.completionTokens, 9, 'the count VS Code gave, thinking included, never added to');
    assert.equal(r.usage.reasoningTokens, countTokens('weigh'));
  });
});
