/**
 * `roundtable eval`'s report of issue 35, run as a user runs it, against a loopback server whose
 * seats err with KNOWN, correlated patterns: alpha and beta are wrong on exactly the same
 * questions, gamma independently of them, so the panel's true effective votes are exact —
 * ρ = (1 + 0 + 0) / 3, n_eff = 3 / (1 + 2·⅓) = 1.8 — and the best-of arm, each seat's flips and
 * the recommendation follow from the server's rule, computed here.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { candidateOrder } from '../../eval/src/bestOf';
import { arithmeticSet } from '../../eval/src/questions';
import type { EvalResults } from '../../eval/src/summary';
import { cli, ensureBuilt } from '../fakes/cli';
import { judgeErrs, modelAnswer, startEvalServer, truth, type EvalServer } from '../fakes/evalServer';

const MODELS = ['alpha', 'beta', 'gamma'];
/** A multiple of 4, so each error pattern occurs equally often and the figure is exact. */
const N = 20;
const SEED = 5;
const JUDGE_ERROR_RATE = 0.25;
const QUESTIONS = arithmeticSet(N, SEED);
const INDEX = new Map(QUESTIONS.map((q, k) => [q.question, k]));
/** alpha and beta are wrong on k%4 ∈ {0, 1}, gamma on k%4 ∈ {0, 2}: ρ(alpha, beta) = 1, the others 0. */
const rule = (expr: string, model: string): boolean => {
  const k = INDEX.get(expr) ?? -1;
  return model === 'gamma' ? k % 4 === 0 || k % 4 === 2 : k % 4 < 2;
};
/** The true effective votes of that panel (Kish): 3 / (1 + 2/3). */
const TRUE_N_EFF = 3 / (1 + 2 * (1 / 3));
/** The printed figure has two decimals; the JSON one is exact up to rounding of doubles. */
const TOLERANCE = 1e-9;

/** Every system's right answers and each seat's flips, from the server's rule. */
function expected() {
  const correct = { single: 0, majority: 0, best: 0, roundtable: 0 };
  const flips = MODELS.map(() => [0, 0, 0, 0]);
  for (const q of QUESTIONS) {
    const t = truth(q.question);
    const answers = MODELS.map((m) => modelAnswer(q.question, m, rule));
    const right = answers.map((a) => a === t);
    const majority = answers.find((a) => answers.filter((b) => b === a).length >= 2);
    if (right[0]) correct.single++;
    if (majority === t) correct.majority++;
    // The judge picks a right answer unless it errs here; then (or when none is right) answer-1.
    const shownFirst = candidateOrder(q, MODELS.length)[0] ?? 0;
    if ((!judgeErrs(q.question, JUDGE_ERROR_RATE) && right.some(Boolean)) || right[shownFirst]) correct.best++;
    // Round 2: every seat takes the round-1 majority, else alpha's answer (alpha sorts first).
    const finalRight = (majority ?? answers[0]) === t;
    if (finalRight) correct.roundtable++;
    right.forEach((r, s) => {
      const f = flips[s] as number[];
      f[r ? 1 : 3]!++;
      if (r && !finalRight) f[0]!++;
      if (!r && finalRight) f[2]!++;
    });
  }
  return { correct, flips };
}

describe('roundtable eval: best of round 1, effective votes, flips, which to use', () => {
  let server: EvalServer;
  before(async () => {
    assert.equal(INDEX.size, N, 'every question of the set is a distinct expression');
    server = await startEvalServer(rule, { models: MODELS, judgeErrorRate: JUDGE_ERROR_RATE });
  });
  after(() => server.fake.close());

  it('CLI: prints the effective votes of a panel with correlated errors at their true value, the new arm, the flips and the recommendation', async () => {
    ensureBuilt();
    const dir = await mkdtemp(path.join(tmpdir(), 'rt-evalarms-'));
    const out = path.join(dir, 'r.json');
    const picks0 = server.judgePicks();
    const r = await cli(
      [
        'eval',
        '--set',
        'arithmetic',
        '--n',
        String(N),
        '--seed',
        String(SEED),
        '--models',
        MODELS.join(','),
        '--concurrency',
        '4',
        '--base-url',
        server.fake.baseURL,
        '--out',
        out,
      ],
      { timeoutMs: 120_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.judgePicks() - picks0, N, 'one judge call per question');
    const json = JSON.parse(await readFile(out, 'utf8')) as EvalResults;
    const want = expected();

    // Effective votes: the exact figure, printed and in the JSON.
    assert.ok(Math.abs((json.effectiveVotes.nEff ?? NaN) - TRUE_N_EFF) < TOLERANCE, `nEff ${json.effectiveVotes.nEff}`);
    assert.ok(Math.abs((json.effectiveVotes.rho ?? NaN) - 1 / 3) < TOLERANCE);
    assert.match(
      r.stdout,
      new RegExp(`Effective independent votes: ${TRUE_N_EFF.toFixed(2)} of 3 \\(95% CI \\d\\.\\d\\d–\\d\\.\\d\\d`),
    );
    assert.match(
      r.stdout,
      /ρ = 0\.333 the mean correlation of the seats' errors in their independent answers \(3 of 3 pairs of seats\)/,
    );
    assert.match(r.stdout, /Note: a rough figure from 20 questions \(30 or more give a steadier one\)\./);
    const [lo, hi] = json.effectiveVotes.ci95 ?? [NaN, NaN];
    assert.ok(lo <= TRUE_N_EFF && TRUE_N_EFF <= hi, `the interval ${lo}–${hi} holds the true value`);

    // The new arm, scored by the server's rule and billed for the independent answers and the pick.
    assert.deepEqual(Object.fromEntries(json.systems.map((s) => [s.name, s.correct])), want.correct);
    const by = Object.fromEntries(json.systems.map((s) => [s.name, s]));
    assert.equal(by.best?.billedTokens, 4 * 110);
    assert.equal(json.unpicked, 0, "every judge's reply named an answer");
    assert.match(
      r.stdout,
      new RegExp(
        `\\| best \\| alpha picks the best of the independent answers of alpha, beta, gamma \\| ${want.correct.best}/${N} \\|`,
      ),
    );

    // Flips per seat and in total, with Wilson intervals.
    assert.deepEqual(
      json.flips.map((f) => [f.seat, f.rightToWrong.count, f.rightToWrong.of, f.wrongToRight.count, f.wrongToRight.of]),
      [
        ...MODELS.map((m, s) => [`w${s + 1}-${m}`, ...(want.flips[s] as number[])]),
        ['all seats', ...[0, 1, 2, 3].map((i) => want.flips.reduce((n, f) => n + (f[i] ?? 0), 0))],
      ],
    );
    const [w1] = json.flips;
    assert.match(
      r.stdout,
      new RegExp(
        `\\| w1-alpha \\| ${w1?.rightToWrong.count} of ${w1?.rightToWrong.of} \\| [\\d.]+% \\([\\d.]+%–[\\d.]+%\\) \\| ${w1?.wrongToRight.count} of ${w1?.wrongToRight.of} \\|`,
      ),
    );
    assert.match(r.stdout, /\| all seats \|/);

    // Which to use: the most accurate, the cheaper of a tie (single < majority < best < roundtable in tokens).
    const order = ['single', 'majority', 'best', 'roundtable'] as const;
    const top = Math.max(...Object.values(want.correct));
    const use = order.find((s) => want.correct[s] === top);
    assert.equal(json.recommendation?.use, use);
    assert.match(r.stdout, new RegExp(`Use ${use} on arithmetic \\(seed ${SEED}\\): the most accurate`));
  });
});
