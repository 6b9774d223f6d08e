/**
 * The panel's effective votes and each seat's flips (issue 35), on panels whose errors are
 * correlated by construction, so the true figure is known exactly: n / (1 + (n−1)·ρ) with ρ the
 * mean pairwise correlation of the seats' wrong-indicators.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ROUGH_BELOW_QUESTIONS, effectiveVotes, kishEffective, seatFlips } from '../../eval/src/panelStats';
import { wilson95 } from '../../eval/src/wilson';

/** `questions` rows of `seats` seats, seat s wrong on question k when `wrongAt(k, s)`. */
function panel(questions: number, seats: number, wrongAt: (k: number, s: number) => boolean): boolean[][] {
  return Array.from({ length: questions }, (_, k) => Array.from({ length: seats }, (_, s) => wrongAt(k, s)));
}

/** Sylvester's Hadamard matrix of order 8: any two of its columns after the first agree on exactly half the rows. */
function hadamard8(): number[][] {
  let h = [[1]];
  for (let i = 0; i < 3; i++) h = [...h.map((r) => [...r, ...r]), ...h.map((r) => [...r, ...r.map((x) => -x)])];
  return h;
}

describe('effective independent votes', () => {
  it('nine seats wrong on exactly the same questions are worth one vote', () => {
    const e = effectiveVotes(
      panel(40, 9, (k) => k % 3 === 0),
      9,
    );
    assert.equal(e.rho, 1);
    assert.equal(e.nEff, 1);
    assert.equal(e.pairs, 36);
    assert.equal(e.note, undefined);
  });

  it('seven seats whose errors are pairwise independent (Hadamard columns) are worth all seven', () => {
    const h = hadamard8();
    // 40 questions: five passes over the 8 rows; seat s is wrong where column s+1 is −1.
    const e = effectiveVotes(
      panel(40, 7, (k, s) => h[k % 8]?.[s + 1] === -1),
      7,
    );
    assert.ok(Math.abs(e.rho ?? NaN) < 1e-12, `rho ${e.rho}`);
    assert.ok(Math.abs((e.nEff ?? 0) - 7) < 1e-9, `nEff ${e.nEff}`);
  });

  it('two seats wrong together and one independent of them: rho 1/3, 1.8 votes of 3', () => {
    // A and B wrong on k%4 ∈ {0,1}; C on k%4 ∈ {0,2}: phi(A,B) = 1, phi(A,C) = phi(B,C) = 0.
    const e = effectiveVotes(
      panel(40, 3, (k, s) => (s < 2 ? k % 4 < 2 : k % 4 === 0 || k % 4 === 2)),
      3,
    );
    assert.ok(Math.abs((e.rho ?? NaN) - 1 / 3) < 1e-12);
    assert.ok(Math.abs((e.nEff ?? 0) - 1.8) < 1e-12);
    const [lo, hi] = e.ci95 ?? [NaN, NaN];
    assert.ok(lo <= 1.8 && 1.8 <= hi && lo >= 1 && hi <= 3, `interval ${lo}–${hi}`);
    assert.ok(hi > lo, 'a real interval from resampled questions');
    assert.deepEqual(
      effectiveVotes(
        panel(40, 3, (k, s) => (s < 2 ? k % 4 < 2 : (k % 4) % 2 === 0)),
        3,
      ).ci95,
      e.ci95,
    );
  });

  it('a seat that is never wrong leaves its pairs out, and seats that are never wrong together count as n', () => {
    // A wrong on even questions, B on odd ones (phi −1), C never wrong: only the pair A–B is defined.
    const e = effectiveVotes(
      panel(40, 3, (k, s) => (s === 0 ? k % 2 === 0 : s === 1 ? k % 2 === 1 : false)),
      3,
    );
    assert.equal(e.rho, -1);
    assert.equal(e.pairs, 1);
    assert.equal(e.nEff, 3, 'never more than the seats, never a negative or infinite count');
    assert.match(e.note ?? '', /2 of 3 pairs left out: a seat in them was always right or always wrong/);
  });

  it('a panel that is never wrong: not computable, and says why', () => {
    const e = effectiveVotes(
      panel(50, 3, () => false),
      3,
    );
    assert.equal(e.nEff, undefined);
    assert.equal(e.ci95, undefined);
    assert.match(e.note ?? '', /not computable from 50 questions: no two seats were each both right and wrong/);
  });

  it(`fewer than ${ROUGH_BELOW_QUESTIONS} questions: the figure is given and marked rough`, () => {
    const e = effectiveVotes(
      panel(12, 3, (k, s) => (s < 2 ? k % 4 < 2 : k % 4 === 0 || k % 4 === 2)),
      3,
    );
    assert.ok(Math.abs((e.nEff ?? 0) - 1.8) < 1e-12);
    assert.match(e.note ?? '', /a rough figure from 12 questions \(30 or more give a steadier one\)/);
  });

  it('the Kish form at its ends', () => {
    assert.equal(kishEffective(5, 0), 5);
    assert.equal(kishEffective(5, 1), 1);
    assert.equal(kishEffective(9, 0.5), 1.8);
    assert.equal(kishEffective(3, -0.2), 3, 'clamped to n');
  });
});

describe('flips by the debate, per seat', () => {
  it('counts right→wrong out of the right round-1 answers and wrong→right out of the wrong ones, with Wilson intervals', () => {
    // Seat 0: right, right, wrong, wrong → right, wrong, right, wrong at the end.
    // Seat 1: always right in round 1, wrong at the end on one question.
    const round1 = [
      [true, true],
      [true, true],
      [false, true],
      [false, true],
    ];
    const final = [
      [true, true],
      [false, false],
      [true, true],
      [false, true],
    ];
    const [a, b, all] = seatFlips(['w1-x', 'w2-y'], round1, final);
    assert.deepEqual(
      [a?.seat, a?.rightToWrong.count, a?.rightToWrong.of, a?.wrongToRight.count, a?.wrongToRight.of],
      ['w1-x', 1, 2, 1, 2],
    );
    assert.deepEqual(
      [b?.rightToWrong.count, b?.rightToWrong.of, b?.wrongToRight.count, b?.wrongToRight.of],
      [1, 4, 0, 0],
    );
    assert.equal(b?.wrongToRight.rate, 0, 'no wrong answer to fix: rate 0 of 0');
    assert.deepEqual(b?.wrongToRight.ci95, [0, 1]);
    assert.equal(all?.seat, 'all seats');
    assert.deepEqual([all?.rightToWrong.count, all?.rightToWrong.of], [2, 6]);
    assert.deepEqual(all?.rightToWrong.ci95, wilson95(2, 6));
    assert.equal(a?.rightToWrong.rate, 0.5);
  });
});
