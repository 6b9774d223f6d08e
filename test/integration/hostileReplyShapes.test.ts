/**
 * A reply shaped to make a backtracking reader slow (issue 32: repeated `<think>` openers and
 * runs of `</s>` took 20 s and more to read, and a healthy worker in the same meeting was recorded
 * TIMEOUT) read in a real meeting against the loopback OpenAI-compatible server: the worker who
 * answered normally keeps its stance, and the meeting finishes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Participant } from '@roundtable/protocol';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { runMeeting } from '../fakes/meetings';
import { instructionsOf, startFakeOpenAI, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';

const panel: Participant[] = [
  { name: 'sam', role: 'assistant', provider: 'openai', model: 'm' },
  { name: 'ada', role: 'worker', provider: 'openai', model: 'm' },
  { name: 'grace', role: 'worker', provider: 'openai', model: 'm' },
];

const MB = 1024 * 1024;

/** `unit` repeated to about a megabyte. */
const mega = (unit: string) => unit.repeat(Math.ceil(MB / unit.length));

describe('a megabyte of a hostile reply shape does not stall the meeting', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI();
  });
  after(() => fake.close());

  const shapes: [string, string, string][] = [
    ['repeated <think> openers', mega('<think>'), 'UNKNOWN'],
    ['runs of </s> with spaces, after the stance', `I agree. [STANCE: AGREE] ${mega('</s> ')}`, 'AGREE'],
    ['repeated <|im_start|> tokens with spaces', `${mega('<|im_start|> ')}[STANCE: DISAGREE]`, 'DISAGREE'],
  ];
  for (const [name, text, stance] of shapes) {
    it(`${name}: the healthy worker is not TIMEOUT`, async () => {
      fake.setResponder((body: ChatBody) => {
        const system = instructionsOf(body);
        if (/^You are ada, a worker/.test(system)) return { text, chunkSize: 65_536 };
        if (/^You are grace/.test(system)) return { text: 'The plan holds. [STANCE: AGREE]' };
        return { text: 'Summary: positions noted.' };
      });
      const { state } = await runMeeting({
        participants: panel,
        // Both workers at once: a reader that blocks the thread while grace's turn is timed out.
        config: { maxRounds: 1, order: 'parallel', turnTimeoutMs: 20_000 },
        script: { replies: {} },
        provider: new OpenAIProvider({ baseURL: fake.baseURL, timeoutMs: 20_000 }),
      });
      const round = state.rounds[0];
      assert.equal(round?.stances.grace?.stance, 'AGREE', 'grace answered at once and is not TIMEOUT');
      assert.equal(round?.failures.grace, undefined);
      assert.equal(round?.failures.ada, undefined, 'the hostile reply is read, not timed out');
      assert.equal(round?.stances.ada?.stance, stance);
      assert.ok(state.digest, 'the meeting finishes with a digest');
    });
  }
});
