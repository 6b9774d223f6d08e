/**
 * The figures of a review eval from per-case counts: precision, recall and F1 pooled over the
 * cases (micro-averaged: every label and every finding weighs the same), with 95% percentile
 * bootstrap intervals over cases — the cases are the unit sampled, so a case with two labels moves
 * as one — seeded, and the same resamples for every system (the systems are compared on the same
 * draws). Pure.
 */
import { rng } from '@roundtable/protocol/random';
import { BOOTSTRAP_RESAMPLES, quantile } from '../panelStats';
import type { CaseScore } from './match';

export interface Prf {
  /** TP / (TP + FP); undefined when the system reported nothing. */
  precision?: number;
  /** TP / labels; undefined when the cases hold no label. */
  recall?: number;
  /** 2·TP / (2·TP + FP + FN): the harmonic mean of the two, 0 when nothing was hit; undefined with neither labels nor findings. */
  f1?: number;
}

type Counts = Pick<CaseScore, 'tp' | 'fp' | 'labels'>;

export function prf({ tp, fp, labels }: Counts): Prf {
  const fn = labels - tp;
  return {
    ...(tp + fp > 0 ? { precision: tp / (tp + fp) } : {}),
    ...(labels > 0 ? { recall: tp / labels } : {}),
    ...(2 * tp + fp + fn > 0 ? { f1: (2 * tp) / (2 * tp + fp + fn) } : {}),
  };
}

/** Counts summed over cases (the indices given, with repeats). */
export function pooled(perCase: readonly Counts[], indices?: ArrayLike<number>): Counts {
  const out = { tp: 0, fp: 0, labels: 0 };
  const n = indices ? indices.length : perCase.length;
  for (let k = 0; k < n; k++) {
    const c = perCase[indices ? (indices[k] as number) : k];
    if (!c) continue;
    out.tp += c.tp;
    out.fp += c.fp;
    out.labels += c.labels;
  }
  return out;
}

/** `count` resamples of `n` case indices drawn with replacement from the seeded PRNG. */
export function resamples(n: number, seed = 1, count = BOOTSTRAP_RESAMPLES): Uint32Array[] {
  const rnd = rng(seed);
  return Array.from({ length: n > 0 ? count : 0 }, () => {
    const draw = new Uint32Array(n);
    for (let i = 0; i < n; i++) draw[i] = Math.floor(rnd() * n);
    return draw;
  });
}

export type Interval = [number, number];

export interface PrfIntervals {
  precision?: Interval;
  recall?: Interval;
  f1?: Interval;
}

/**
 * 2.5th and 97.5th percentiles of each figure over the resamples; a resample where a figure is
 * undefined (no finding, no label drawn) is left out of that figure's interval.
 */
export function bootstrapPrf(perCase: readonly Counts[], draws: readonly Uint32Array[]): PrfIntervals {
  const values: Record<keyof Prf, number[]> = { precision: [], recall: [], f1: [] };
  for (const d of draws) {
    const p = prf(pooled(perCase, d));
    for (const k of ['precision', 'recall', 'f1'] as const) {
      const v = p[k];
      if (v !== undefined) values[k].push(v);
    }
  }
  const out: PrfIntervals = {};
  for (const k of ['precision', 'recall', 'f1'] as const) {
    const v = values[k].sort((a, b) => a - b);
    if (v.length) out[k] = [quantile(v, 0.025), quantile(v, 0.975)];
  }
  return out;
}
