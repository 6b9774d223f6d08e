/**
 * gpt-oss served without harmony parsing (issue 32): the analysis and commentary channels are
 * thinking, never speech — a stance marker or a CONVERGED written there is not the speaker's —
 * and the final channel is the reply, its markers counted. With the special tokens or stripped of
 * them, whole or streamed in pieces cut anywhere. Recorded samples are in
 * test/fixtures/real-replies/split.json (read by conformance.test.ts); these are the rules.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitThinking, type ReplyChannel } from '../../daemon/src/providers/reply';
import { ReplyReader, answerInReasoning } from '../../daemon/src/providers/replyReader';
import { parseStance } from '@roundtable/protocol/stance';
import { parseJudge } from '../../daemon/src/meeting/judge';

const RAW =
  '<|channel|>analysis<|message|>The user wants a stance. Maybe [STANCE: DISAGREE]? CONVERGED: draft.<|end|>' +
  '<|start|>assistant<|channel|>final<|message|>We should ship B. [STANCE: AGREE]<|return|>';
const STRIPPED =
  'analysisThe user wants a stance. Maybe [STANCE: DISAGREE]? CONVERGED: draft.' +
  'assistantfinalWe should ship B. [STANCE: AGREE]';

/** The reader fed `pieces`; the final split and what the live view showed per channel. */
function read(pieces: string[]) {
  const live: Record<ReplyChannel, string> = { reply: '', thinking: '' };
  const r = new ReplyReader((t, c) => {
    live[c] += t;
  });
  for (const p of pieces) r.addContent(p);
  return { ...r.end(), live };
}

describe('gpt-oss harmony channels', () => {
  it('reads the analysis as thinking and the final channel as the reply, with tokens or without', () => {
    for (const text of [RAW, STRIPPED]) {
      const r = splitThinking(text);
      assert.equal(r.reply, 'We should ship B. [STANCE: AGREE]', text);
      assert.match(r.thinking, /^The user wants a stance/);
    }
  });

  it("never takes a stance or a CONVERGED written in the analysis as the speaker's", () => {
    const onlyAnalysis = '<|channel|>analysis<|message|>I will say [STANCE: DISAGREE]. CONVERGED: all agree';
    assert.equal(parseStance(splitThinking(onlyAnalysis).reply), 'UNKNOWN');
    assert.equal(parseJudge(splitThinking(onlyAnalysis).reply, ['ada']).converged, undefined);
    assert.equal(parseStance(splitThinking('analysisI lean [STANCE: AGREE]').reply), 'UNKNOWN');
    // The final channel's marker is the one that counts.
    assert.equal(parseStance(splitThinking(RAW).reply), 'AGREE');
    assert.equal(parseStance(splitThinking(STRIPPED).reply), 'AGREE');
  });

  it('reads a judge CONVERGED in the final channel, not the one drafted in the analysis', () => {
    const judge =
      '<|channel|>analysis<|message|>ada: needs a source. CONVERGED: maybe<|end|><|start|>assistant<|channel|>final<|message|>CONVERGED: both workers agree on B.';
    const v = parseJudge(splitThinking(judge).reply, ['ada']);
    assert.equal(v.converged, 'both workers agree on B.');
    assert.deepEqual(v.corrections, []);
  });

  it('keeps commentary (preambles, tool calls to=functions.x) out of the reply', () => {
    const text =
      '<|channel|>analysis<|message|>Need the file.<|end|><|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path":"a.ts"}<|call|>' +
      '<|start|>assistant<|channel|>final<|message|>It reads a.ts. [STANCE: NEUTRAL]<|return|>';
    const r = splitThinking(text);
    assert.equal(r.reply, 'It reads a.ts. [STANCE: NEUTRAL]');
    assert.match(r.thinking, /Need the file\.\n\n\{"path":"a.ts"\}/);
    assert.doesNotMatch(r.thinking + r.reply, /to=functions|constrain|<\|/);
    const stripped =
      'analysisNeed the file.assistantcommentary to=functions.read_file json{"path":"a.ts"}assistantfinalDone.';
    assert.equal(splitThinking(stripped).reply, 'Done.');
  });

  it('reads an analysis cut off by the cap (no final channel) as all thinking', () => {
    assert.deepEqual(splitThinking('<|channel|>analysis<|message|>Still weighing [STANCE: AGREE]'), {
      thinking: 'Still weighing [STANCE: AGREE]',
      reply: '',
    });
    assert.equal(splitThinking('analysisStill weighing [STANCE: AGREE]').reply, '');
  });

  it('leaves prose that only looks like a header alone', () => {
    for (const text of [
      'analysis of the options: B wins. [STANCE: AGREE]',
      'Analysis: B wins.',
      'The assistant final answer is B.',
      'Models print `assistantfinal` when tokens are stripped.',
    ])
      assert.equal(splitThinking(text).reply, text);
  });

  it('splits a stream however the channel markers are cut, live and at the end', () => {
    for (const text of [RAW, STRIPPED]) {
      for (let i = 0; i <= text.length; i++) {
        const r = read([text.slice(0, i), text.slice(i)]);
        const at = `${JSON.stringify(text.slice(0, 20))}… cut at ${i}`;
        assert.equal(r.reply, 'We should ship B. [STANCE: AGREE]', at);
        assert.equal(r.live.reply, 'We should ship B. [STANCE: AGREE]', at);
        assert.doesNotMatch(r.live.thinking, /<\||assistant|final/, at);
        assert.match(r.live.thinking, /^The user wants a stance/, at);
      }
      const one = read(Array.from(text));
      assert.equal(one.live.reply, 'We should ship B. [STANCE: AGREE]', 'one character at a time');
    }
  });
});

describe('an answer left in the reasoning field (content empty)', () => {
  const ballot = '{"votes":[{"option":"O1","vote":"accept","confidence":0.8,"rationale":"fits"}]}';
  const reader = (reasoning: string, content = '') => {
    const r = new ReplyReader();
    r.addReasoning(reasoning);
    r.addContent(content);
    return r;
  };

  it('takes the JSON asked for as the reply, flagged', () => {
    assert.deepEqual(reader(ballot).end({ finishReason: 'stop', json: true }), {
      thinking: '',
      reply: ballot,
      fromReasoning: true,
    });
    assert.equal(answerInReasoning('```json\n' + ballot + '\n```', { finishReason: 'stop', json: true }), ballot);
  });

  it('never takes thinking: prose, JSON inside prose, a cut stream, a reply not asked as JSON, content present', () => {
    const stop = { finishReason: 'stop' as const, json: true };
    for (const [what, r, how] of [
      ['prose with a stance', reader('I agree with B. [STANCE: AGREE]'), stop],
      ['JSON inside thinking', reader(`Let me draft: ${ballot} then check it.`), stop],
      ['cut by the cap', reader(ballot), { finishReason: 'length' as const, json: true }],
      ['no JSON asked', reader(ballot), { finishReason: 'stop' as const, json: false }],
      ['a bare number', reader('42'), stop],
      ['content present', reader(ballot, 'My ballot follows.'), stop],
    ] as const) {
      const got = r.end(how);
      assert.notEqual(got.fromReasoning, true, what);
      assert.ok(!got.reply.includes('"votes"') || what === 'content present', what);
    }
  });
});
