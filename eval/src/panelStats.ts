/**
 * What the panel's seats did, question by question: how many independent votes the panel is worth
 * given how often its seats are wrong together, and which answers the debate turned from right to
 * wrong or from wrong to right. Pure functions of per-seat correctness; the harness feeds them.
 */
import { rng } from '@roundtable/protocol/random';
import { wilson95 } from './wilson';

/** Fewer questions than this give an effective-votes figure marked rough. */
export const ROUGH_BELOW_QUESTIONS = 30;
/** Resamples of the bootstrap interval of the effective votes (seeded: the same run prints the same interval). */
export const BOOTSTRAP_RESAMPLES = 1000;

export interface EffectiveVotes {
  /** Seats of the panel (n). */
  seats: number;
  questions: number;
  /**
   * Mean over pairs of seats of the phi coefficient (Pearson's r of two 0/1 variables) of their
   * wrong-indicators: 1 = always wrong together, 0 = independent errors. Undefined when no pair has
   * both seats sometimes right and sometimes wrong.
   */
  rho?: number;
  /** Pairs that entered `rho`, of `seats·(seats−1)/2`. */
  pairs: number;
  pairsTotal: number;
  /** n / (1 + (n−1)·rho), clamped to [1, n]. */
  nEff?: number;
  /** Percentile bootstrap over questions (`BOOTSTRAP_RESAMPLES`, seeded). */
  ci95?: [number, number];
  /** Why the figure is missing or rough, in words. */
  note?: string;
}

/** Counts of one pair of seats over questions: [both wrong, only a wrong, only b wrong, both right]. */
type PairCounts = [number, number, number, number];

function phi([n11, n10, n01, n00]: PairCounts): number | undefined {
  const d = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00);
  return d > 0 ? (n11 * n00 - n10 * n01) / Math.sqrt(d) : undefined;
}

/**
 * The effective number of independent votes from the mean pairwise error correlation, in Kish's
 * design-effect form: n equally correlated votes carry the information of n / (1 + (n−1)·ρ)
 * independent ones (L. Kish, Survey Sampling, Wiley 1965, §5.4: deff = 1 + (m−1)·ρ for clusters
 * of m; the variance of a mean of n equicorrelated variables is σ²(1 + (n−1)ρ)/n). Clamped to
 * [1, n]: negatively correlated seats are not counted as more than n votes.
 */
export function kishEffective(n: number, rho: number): number {
  const deff = 1 + (n - 1) * rho;
  // ρ ≤ −1/(n−1) (possible when pairs were left out): errors that never coincide, n votes at most.
  return deff <= 0 ? n : Math.min(n, Math.max(1, n / deff));
}

/** Distinct wrong-patterns of the questions and how often each occurs. */
function patternsOf(wrong: boolean[][]): { bits: boolean[][]; of: number[] } {
  const index = new Map<string, number>();
  const bits: boolean[][] = [];
  const of = wrong.map((w) => {
    const k = w.map((x) => (x ? '1' : '0')).join('');
    let i = index.get(k);
    if (i === undefined) {
      i = bits.length;
      index.set(k, i);
      bits.push(w);
    }
    return i;
  });
  return { bits, of };
}

/** Mean pairwise phi and the pairs it is defined on, from how many questions show each pattern. */
function meanPhi(bits: boolean[][], counts: number[], seats: number): { rho?: number; pairs: number } {
  let sum = 0;
  let pairs = 0;
  for (let a = 0; a < seats; a++)
    for (let b = a + 1; b < seats; b++) {
      const c: PairCounts = [0, 0, 0, 0];
      bits.forEach((w, p) => {
        c[w[a] ? (w[b] ? 0 : 1) : w[b] ? 2 : 3] += counts[p] ?? 0;
      });
      const r = phi(c);
      if (r !== undefined) {
        sum += r;
        pairs++;
      }
    }
  return pairs ? { rho: sum / pairs, pairs } : { pairs };
}

/** The `q` quantile of sorted values, linearly interpolated (the percentile bootstrap's ends). */
export function quantile(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return (sorted[lo] ?? 0) + ((sorted[hi] ?? 0) - (sorted[lo] ?? 0)) * (at - lo);
}

/**
 * The panel's effective votes from `wrong[question][seat]` (true = that seat's answer was wrong or
 * missing). Work: O(questions + patterns · pairs) per resample, patterns ≤ min(questions, 2^seats).
 */
export function effectiveVotes(wrong: boolean[][], seats: number): EffectiveVotes {
  const questions = wrong.length;
  const pairsTotal = (seats * (seats - 1)) / 2;
  const { bits, of } = patternsOf(wrong);
  const counts = bits.map(() => 0);
  for (const p of of) counts[p] = (counts[p] ?? 0) + 1;
  const { rho, pairs } = meanPhi(bits, counts, seats);
  if (rho === undefined)
    return {
      seats,
      questions,
      pairs,
      pairsTotal,
      note: `not computable from ${questions} question${questions === 1 ? '' : 's'}: no two seats were each both right and wrong somewhere; ask more (or harder) questions`,
    };
  const rnd = rng(1);
  const boot: number[] = [];
  for (let b = 0; b < BOOTSTRAP_RESAMPLES; b++) {
    const c = bits.map(() => 0);
    for (let i = 0; i < questions; i++) {
      const p = of[Math.floor(rnd() * questions)] ?? 0;
      c[p] = (c[p] ?? 0) + 1;
    }
    const r = meanPhi(bits, c, seats).rho;
    if (r !== undefined) boot.push(kishEffective(seats, r));
  }
  boot.sort((x, y) => x - y);
  const notes: string[] = [];
  if (questions < ROUGH_BELOW_QUESTIONS)
    notes.push(`a rough figure from ${questions} questions (${ROUGH_BELOW_QUESTIONS} or more give a steadier one)`);
  if (pairs < pairsTotal)
    notes.push(
      `${pairsTotal - pairs} of ${pairsTotal} pairs left out: a seat in them was always right or always wrong`,
    );
  return {
    seats,
    questions,
    rho,
    pairs,
    pairsTotal,
    nEff: kishEffective(seats, rho),
    ...(boot.length ? { ci95: [quantile(boot, 0.025), quantile(boot, 0.975)] as [number, number] } : {}),
    ...(notes.length ? { note: notes.join('; ') } : {}),
  };
}

/** How often one kind of flip happened, out of the answers that could flip that way. */
export interface FlipRate {
  count: number;
  of: number;
  rate: number;
  ci95: [number, number];
}

export interface SeatFlips {
  /** The seat's name in the meeting (`w1-<model>`), or `all seats` for the total. */
  seat: string;
  /** Right in round 1, wrong at the end: out of the seat's right round-1 answers. */
  rightToWrong: FlipRate;
  /** Wrong (or none) in round 1, right at the end: out of its wrong round-1 answers. */
  wrongToRight: FlipRate;
}

/** `count` of `of`, as a share with its 95% Wilson interval. */
export function rate(count: number, of: number): FlipRate {
  return { count, of, rate: of ? count / of : 0, ci95: wilson95(count, of) };
}

/**
 * Per seat and in total, answers the debate turned right→wrong and wrong→right, from
 * `round1[question][seat]` and `final[question][seat]` (true = right). The total pools every
 * seat's answers, so its interval treats them as independent (they are not quite: see the
 * effective votes).
 */
export function seatFlips(seats: string[], round1: boolean[][], final: boolean[][]): SeatFlips[] {
  const tally = seats.map(() => ({ right: 0, r2w: 0, wrong: 0, w2r: 0 }));
  round1.forEach((before, q) => {
    seats.forEach((_, s) => {
      const t = tally[s];
      const after = final[q]?.[s] ?? false;
      if (!t) return;
      if (before[s]) {
        t.right++;
        if (!after) t.r2w++;
      } else {
        t.wrong++;
        if (after) t.w2r++;
      }
    });
  });
  const all = tally.reduce(
    (a, t) => ({ right: a.right + t.right, r2w: a.r2w + t.r2w, wrong: a.wrong + t.wrong, w2r: a.w2r + t.w2r }),
    { right: 0, r2w: 0, wrong: 0, w2r: 0 },
  );
  const rows = [...tally.map((t, s) => ({ seat: seats[s] ?? '?', ...t })), { seat: 'all seats', ...all }];
  return rows.map((t) => ({ seat: t.seat, rightToWrong: rate(t.r2w, t.right), wrongToRight: rate(t.w2r, t.wrong) }));
}
