import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { arithmeticSet, loadJsonlSet } from '../../eval/src/questions';
import { checkpointPathFor, runEval } from '../../eval/src/harness';
import type { RunKey } from '../../eval/src/record';
import { wilson95 } from '../../eval/src/wilson';
import { cli, ensureBuilt } from '../fakes/cli';
import {
  COMPLETION_TOKENS,
  PROMPT_TOKENS,
  modelAnswer,
  startEvalServer,
  truth,
  type EvalServer,
} from '../fakes/evalServer';

const RATES = { m1: 0.3, m2: 0.35, m3: 0.45 };
const MODELS = Object.keys(RATES);
const PER_CALL = PROMPT_TOKENS + COMPLETION_TOKENS;

/** What each system must score, from the server's rule (computed here, not by the harness). */
function expected(exprs: string[]) {
  let single = 0;
  let majority = 0;
  let best = 0;
  let noMajority = 0;
  let fixed = 0;
  // Per seat: [right→wrong, right in round 1, wrong→right, wrong in round 1].
  const flips = MODELS.map(() => [0, 0, 0, 0]);
  for (const e of exprs) {
    const answers = MODELS.map((m) => modelAnswer(e, m, RATES));
    const right = answers.map((a) => a === truth(e));
    if (right[0]) single++;
    if (right.filter(Boolean).length >= 2) majority++;
    // The judge (never wrong here) picks a right answer whenever one was given.
    if (right.some(Boolean)) best++;
    const noMaj = new Set(answers).size === 3;
    if (noMaj) {
      // Round 1 had no majority; in round 2 everyone defers to m1.
      noMajority++;
      if (right[0]) fixed++;
    }
    const finalRight = noMaj ? right[0] : right.filter(Boolean).length >= 2;
    right.forEach((r, s) => {
      const f = flips[s] as number[];
      if (r) {
        f[1]!++;
        if (!finalRight) f[0]!++;
      } else {
        f[3]!++;
        if (finalRight) f[2]!++;
      }
    });
  }
  return {
    single,
    majority,
    best,
    roundtable: majority + fixed,
    debate: { changed: noMajority, fixed, broken: 0 },
    flips,
  };
}

async function tmp(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'rt-eval-'));
}

describe('roundtable eval', () => {
  let server: EvalServer;
  before(async () => {
    server = await startEvalServer(RATES);
  });
  after(() => server.fake.close());

  const setup = () => ({
    provider: new OpenAIProvider({ baseURL: server.fake.baseURL, maxRetries: 0 }),
    models: MODELS,
    maxTokens: 256,
    rounds: 2,
    budget: 50_000,
    // Not a test of timeouts: a turn of a loaded machine must not be cut (the CLI's default).
    turnTimeoutMs: 120_000,
  });

  it('scores one model and the majority exactly as the panel errs, and bills what the server reported', async () => {
    const questions = arithmeticSet(30, 7);
    const dir = await tmp();
    const key: RunKey = { set: 'arithmetic', seed: 7, models: MODELS, rounds: 2 };
    const calls0 = server.chatCalls();
    const indep0 = server.independentCalls();
    const turns0 = server.workerTurns();
    const picks0 = server.judgePicks();
    const { results } = await runEval({
      setup: setup(),
      key,
      questions,
      concurrency: 3,
      checkpoint: path.join(dir, 'c.jsonl'),
      resume: false,
    });
    const want = expected(questions.map((q) => q.question));
    const by = Object.fromEntries(results.systems.map((s) => [s.name, s]));
    assert.equal(by.single?.correct, want.single);
    assert.equal(by.majority?.correct, want.majority);
    // The fake's workers adopt a visible majority, else defer to m1: the debate fixes only where m1 was right.
    assert.equal(by.roundtable?.correct, want.roundtable);
    assert.equal(by.best?.correct, want.best, 'the judge picked a right answer wherever one was given');
    assert.deepEqual(results.debate, want.debate);
    assert.deepEqual(
      results.flips
        .slice(0, 3)
        .map((f) => [f.rightToWrong.count, f.rightToWrong.of, f.wrongToRight.count, f.wrongToRight.of]),
      want.flips,
      "each seat's flips as the server's rule makes them",
    );
    assert.ok(want.debate.changed > 0, 'the set has questions where round 1 had no majority');
    assert.notEqual(want.single, want.majority, 'the rates are chosen so that voting changes the score');
    assert.deepEqual(by.majority?.ci95, wilson95(want.majority, 30));
    assert.equal(server.independentCalls() - indep0, 30 * 3, 'one independent call per model and question');
    assert.equal(by.single?.billedTokensTotal, 30 * PER_CALL);
    assert.equal(by.majority?.billedTokensTotal, 30 * 3 * PER_CALL);
    assert.equal(server.judgePicks() - picks0, 30, 'one judge call per question');
    assert.equal(by.best?.billedTokensTotal, 30 * 4 * PER_CALL, 'the independent answers and the judge call');
    const meetingCalls = server.chatCalls() - calls0 - 30 * 4;
    assert.equal(by.roundtable?.billedTokensTotal, meetingCalls * PER_CALL, 'every meeting call is billed');
    assert.equal(server.workerTurns() - turns0, 30 * 3 * 2, 'every meeting ran its two rounds');
  });

  it('CLI: prints the three-way table, writes eval-results.json, and a resumed run asks only what is left', async () => {
    ensureBuilt();
    const dir = await tmp();
    const out = path.join(dir, 'eval-results.json');
    const args = [
      'eval',
      '--set',
      'arithmetic',
      '--n',
      '40',
      '--seed',
      '3',
      '--models',
      MODELS.join(','),
      '--base-url',
      server.fake.baseURL,
      '--out',
      out,
    ];
    const indep0 = server.independentCalls();
    const first = await cli([...args, '--limit', '15'], { timeoutMs: 120_000 });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(server.independentCalls() - indep0, 15 * 3);
    assert.match(first.stderr, /eval 15\/15/);

    const indep1 = server.independentCalls();
    const r = await cli([...args, '--resume', '--concurrency', '4'], { timeoutMs: 120_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.independentCalls() - indep1, 25 * 3, 'the 15 answered questions are not asked again');
    assert.match(r.stderr, /resuming: 15 of 40/);
    assert.match(
      r.stdout,
      /\| System \| What \| Correct \| Accuracy \| 95% CI \(Wilson\) \| Billed tokens \/ question \| Wall ms \/ question \|/,
    );
    assert.match(r.stdout, /\| single \| m1 alone \|/);
    assert.match(r.stdout, /\| majority \| majority vote of m1, m2, m3 \|/);
    assert.match(r.stdout, /\| best \| m1 picks the best of the independent answers of m1, m2, m3 \|/);
    assert.match(r.stdout, /\| roundtable \| roundtable of m1, m2, m3/);

    const json = JSON.parse(await readFile(out, 'utf8')) as {
      set: string;
      n: number;
      seed: number;
      systems: {
        name: string;
        correct: number;
        accuracy: number;
        ci95: [number, number];
        billedTokens: number;
        wallMs: number;
      }[];
    };
    assert.equal(json.set, 'arithmetic');
    assert.equal(json.n, 40);
    assert.equal(json.seed, 3);
    assert.deepEqual(
      json.systems.map((s) => s.name),
      ['single', 'majority', 'best', 'roundtable'],
    );
    const want = expected(arithmeticSet(40, 3).map((q) => q.question));
    const [single, majority, best, roundtable] = json.systems;
    assert.equal(best?.correct, want.best);
    assert.equal(single?.correct, want.single);
    assert.equal(majority?.correct, want.majority);
    assert.equal(roundtable?.correct, want.roundtable);
    assert.match(
      r.stdout,
      new RegExp(
        `differs from its own round-1 majority on ${want.debate.changed} of 40 questions \\(fixed ${want.debate.fixed}, broke 0\\)`,
      ),
    );
    for (const s of json.systems) {
      assert.equal(s.accuracy, s.correct / 40);
      assert.deepEqual(s.ci95, wilson95(s.correct, 40));
      assert.ok(s.ci95[0] <= s.accuracy && s.accuracy <= s.ci95[1]);
      assert.equal(typeof s.wallMs, 'number');
    }
    assert.equal(single?.billedTokens, PER_CALL);
    assert.equal(majority?.billedTokens, 3 * PER_CALL);
    assert.ok(existsSync(checkpointPathFor(out)));

    const other = await cli([...args, '--resume', '--rounds', '3']);
    assert.equal(other.code, 2, 'a checkpoint of other settings is refused, not mixed in');
    assert.match(other.stderr, /belongs to another run .*: run without --resume to start over\n$/);
  });

  it('a JSONL set is checked numerically, and a checkpoint of another run is refused', async () => {
    const dir = await tmp();
    const file = path.join(dir, 'set.jsonl');
    const exprs = arithmeticSet(12, 99).map((q) => q.question);
    // Answers written as a person would: with a thousands separator or a decimal point.
    await writeFile(
      file,
      exprs
        .map((e, i) =>
          JSON.stringify({ id: `q${i}`, question: `What is ${e}?`, answer: i % 2 ? `${truth(e)}.0` : truth(e) }),
        )
        .join('\n'),
    );
    const key: RunKey = { set: file, seed: null, models: MODELS, rounds: 2 };
    const checkpoint = path.join(dir, 'c.jsonl');
    const { results } = await runEval({
      setup: setup(),
      key,
      questions: loadJsonlSet(file),
      concurrency: 2,
      checkpoint,
      resume: false,
    });
    const want = expected(exprs);
    assert.deepEqual(
      results.systems.map((x) => x.correct),
      [want.single, want.majority, want.best, want.roundtable],
    );
    await assert.rejects(
      runEval({
        setup: setup(),
        key: { ...key, rounds: 3 },
        questions: loadJsonlSet(file),
        concurrency: 1,
        checkpoint,
        resume: true,
      }),
      /belongs to another run .*run without --resume to start over/,
    );
  });

  it('CLI: a bad line of a JSONL set is one error naming the line, exit 2', async () => {
    ensureBuilt();
    const dir = await tmp();
    const bad = path.join(dir, 'bad.jsonl');
    await writeFile(bad, '{"id":1,"question":"2+2?","answer":4}\n{"id":2,"question":"x"}\n');
    const r = await cli([
      'eval',
      '--set',
      bad,
      '--models',
      'm1,m2',
      '--base-url',
      server.fake.baseURL,
      '--out',
      path.join(dir, 'r.json'),
    ]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /bad\.jsonl:2 needs "id"/);
  });
});
