import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScriptedProvider, parseScript } from '../../daemon/src/providers/scripted';
import type { ChatRequest } from '../../daemon/src/providers/types';

function req(
  participant: string,
  purpose: ChatRequest['meta']['purpose'],
  extra: Partial<ChatRequest> = {},
): ChatRequest {
  return {
    model: 'scripted',
    messages: [{ role: 'user', content: 'hello' }],
    maxTokens: 100,
    signal: new AbortController().signal,
    meta: { participant, role: 'worker', purpose, round: 1, topic: 't' },
    ...extra,
  };
}

describe('scripted provider', () => {
  it('replies per participant in order, then passes', async () => {
    const p = new ScriptedProvider(parseScript({ replies: { ada: ['one', { text: 'two' }] } }));
    assert.equal((await p.chat(req('ada', 'turn'))).text, 'one');
    assert.equal((await p.chat(req('ada', 'turn'))).text, 'two');
    assert.match((await p.chat(req('ada', 'turn'))).text, /\[PASS\]/);
  });

  it('keys replies by purpose when given an object', async () => {
    const p = new ScriptedProvider(parseScript({ replies: { sam: { summary: ['S1'], briefing: ['B1'] } } }));
    assert.equal((await p.chat(req('sam', 'briefing'))).text, 'B1');
    assert.equal((await p.chat(req('sam', 'summary'))).text, 'S1');
  });

  it('streams the reply as deltas that add up to the text', async () => {
    const p = new ScriptedProvider(parseScript({ replies: { ada: ['a few words here [STANCE: AGREE]'] } }));
    const parts: string[] = [];
    const r = await p.chat(req('ada', 'turn', { onDelta: (t) => parts.push(t) }));
    assert.ok(parts.length > 3);
    assert.equal(parts.join(''), r.text);
  });

  it('honours per-reply delays and aborts them', async () => {
    const p = new ScriptedProvider(parseScript({ replies: { ada: [{ text: 'late', delayMs: 10_000 }] } }));
    const ac = new AbortController();
    const pending = p.chat(req('ada', 'turn', { signal: ac.signal }));
    ac.abort();
    await assert.rejects(pending, /aborted/);
  });

  it('reports usage counted with the tokenizer', async () => {
    const p = new ScriptedProvider(parseScript({ replies: { ada: ['hello world'] } }));
    const r = await p.chat(req('ada', 'turn'));
    assert.equal(r.usage.completionTokens, 2);
    assert.equal(r.usage.source, 'estimate');
    assert.ok(r.usage.promptTokens > 0);
  });

  it('rejects malformed scripts with a message naming the entry', () => {
    assert.throws(() => parseScript({}), /"replies" object/);
    assert.throws(() => parseScript({ replies: { ada: [42] } }), /replies\.ada\[0\]/);
    assert.throws(() => parseScript({ replies: { sam: { chatter: [] } } }), /replies\.sam\.chatter/);
    assert.throws(() => parseScript({ replies: {}, defaultDelayMs: -1 }), /defaultDelayMs/);
  });
});
