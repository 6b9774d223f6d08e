/**
 * `roundtable eval` scores a model that is always right at 100%, whatever real format it answers
 * in (issue 24). The formats are the ones recorded real models write (see
 * test/fixtures/real-replies/answer.json for the sources): `\boxed{}`, a `### Final Answer:` label
 * with the value on the next line in `$$…$$`, bold labels, U+2212 for minus, units, and a draft
 * answer inside `<think>` that differs from the final one.
 */
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { arithmeticSet } from '../../eval/src/questions';
import { runEval } from '../../eval/src/harness';
import { truth } from '../fakes/evalServer';
import { instructionsOf, startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';

const EXPR = /\d+\+\d+\*\d+\+\d+-\d+\*\d+/;

/** Every way a right answer `n` is written by the models in the corpus. */
const FORMATS: ((n: number) => string)[] = [
  (n) => `Step by step, the products first.\nANSWER: \\boxed{${n}}`,
  (n) => `Computing.\n\n### Final Answer:\n$$\\boxed{${n}}$$`,
  (n) => `**Final Answer:** ${n}`,
  (n) => `ANSWER: ${String(n).replace('-', '\u2212')}`,
  (n) => `ANSWER: **${n}**.`,
  (n) => `ANSWER: ${n} units`,
  (n) => `<think>\nMaybe it is ${n + 1}? ANSWER: ${n + 1}\nNo, recheck.\n</think>\n\nANSWER: ${n}`,
  (n) => `| ANSWER: ${n + 3} (a peer's quoted line)\nMy own result.\nANSWER: ${n}`,
];

/** The best-of judge's verdict as a judge writes it (MT-Bench's `[[A]]` with a number, a label line). */
const PICKS = ['Answer 2 checks out.\nBEST: [[2]]', '**BEST:** [[1]]', 'All agree.\n\nBest answer: answer-3'];

describe('roundtable eval reads real answer formats', () => {
  let fake: FakeOpenAI;
  let served = 0;
  before(async () => {
    fake = await startFakeOpenAI((body) => {
      const system = instructionsOf(body);
      // The question is the topic, in the transcript; the seat comes in the last message.
      const asked = (body.messages ?? [])
        .filter((m) => m.role === 'user')
        .map((m) => m.content)
        .join('\n');
      const expr = EXPR.exec(asked)?.[0];
      if (!expr || /chairs|meeting's assistant/.test(system)) return { text: 'Noted.' };
      if (/the judge/.test(system)) return { text: '[CLEAN]' };
      // The best-of judge: every answer is right, so any pick is; in the verdict formats parsePick reads.
      if (system.startsWith('You pick the best')) return { text: PICKS[served++ % PICKS.length] ?? '' };
      const format = FORMATS[served++ % FORMATS.length];
      const text = format ? format(truth(expr)) : '';
      const worker = /a worker in a structured roundtable/.test(system);
      return { text: worker ? `${text}\n\n**Stance:** AGREE` : text };
    });
  });
  after(() => fake.close());

  it('a model that is always right scores 100% as one model, a majority, a pick of the best and a roundtable', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rt-evalfmt-'));
    const models = ['m1', 'm2', 'm3'];
    const { results } = await runEval({
      setup: {
        provider: new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 0 }),
        models,
        maxTokens: 256,
        budget: 50_000,
        turnTimeoutMs: 20_000,
        rounds: 2,
      },
      key: { set: 'arithmetic', seed: 3, models, rounds: 2 },
      questions: arithmeticSet(16, 3),
      concurrency: 2,
      checkpoint: path.join(dir, 'c.jsonl'),
      resume: false,
    });
    assert.ok(served >= FORMATS.length * 4, `every format was served several times (${served})`);
    for (const s of results.systems) assert.equal(s.correct, 16, `${s.name}: ${s.correct}/16`);
  });
});
