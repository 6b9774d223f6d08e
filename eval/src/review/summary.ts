/**
 * A review eval's figures from its case results: per system, precision, recall and F1 with 95%
 * bootstrap intervals over cases, the false-positive rate on the clean controls, how often its gate
 * gave the exit a careful reviewer's would, billed tokens and money per case; then which system to
 * use on this set.
 */
import type { FailOn } from '@roundtable/protocol';
import { REVIEW_EXIT } from '@roundtable/protocol';
import { BOOTSTRAP_RESAMPLES, rate, type FlipRate } from '../panelStats';
import { LINE_TOLERANCE } from './match';
import { bootstrapPrf, pooled, prf, resamples, type PrfIntervals } from './metrics';
import { expectedExit, type CaseResult, type ReviewRunKey, type SystemCase } from './record';

/** The seed of the bootstrap's resamples: the same run prints the same intervals. */
export const BOOTSTRAP_SEED = 1;

export interface ReviewSystemSummary {
  name: string;
  /** The system in words. */
  label: string;
  /** Findings reported over all cases. */
  reported: number;
  tp: number;
  fp: number;
  duplicates: number;
  labels: number;
  precision?: number;
  recall?: number;
  f1?: number;
  ci95: PrfIntervals;
  /** Clean controls on which it reported any finding, of the clean controls. */
  falsePositiveRate: FlipRate;
  /** Cases whose exit code was the one expected (1 with a label, 0 without), of all cases. */
  exitAgreement: FlipRate;
  /** Cases it could not review (exit 3): counted as reporting nothing and as a wrong exit. */
  couldNotReview: number;
  /** Mean per case. */
  billedTokens: number;
  billedTokensTotal: number;
  calls: number;
  /** Mean US dollars per case, with --prices. */
  costUsd?: number;
  costUsdTotal?: number;
  unpricedModels: string[];
}

export interface ReviewRecommendation {
  use: string;
  /** As good (F1, then exit agreement) and dearer. */
  tiedWith: string[];
  /** Systems whose F1 interval overlaps the chosen one's: more cases would tell them apart. */
  withinInterval: string[];
  others: { name: string; f1?: number; costRatio: number }[];
}

export interface ReviewEvalResults {
  kind: 'review';
  set: string;
  cases: number;
  clean: number;
  labels: number;
  models: string[];
  provider: 'openai' | 'scripted';
  failOn: FailOn;
  /** Findings and labels count as the same place within this many lines. */
  lineTolerance: number;
  bootstrap: { resamples: number; seed: number };
  systems: ReviewSystemSummary[];
  recommendation?: ReviewRecommendation;
  perCase: {
    id: string;
    clean: boolean;
    labels: number;
    systems: Record<string, { exit: number; tp: number; fp: number; dup: number; billedTokens: number }>;
  }[];
}

export function systemLabel(name: string, key: ReviewRunKey, seats: readonly string[]): string {
  const panel = key.models.join(', ');
  if (name.startsWith('alone:')) {
    const i = seats.indexOf(name.slice('alone:'.length));
    return `${key.models[i] ?? name.slice('alone:'.length)} reviewing alone`;
  }
  if (name === 'union') return `every finding of ${panel}, reviewing alone (the union)`;
  if (name === 'majority') return `findings proposed by more than half of ${panel}`;
  return `the review of ${panel}: proposals, checks, a vote`;
}

/** A system's row of a case; a case without one (never, short of a bug) counts as not reviewed. */
function rowOf(r: CaseResult, name: string): SystemCase {
  return (
    r.systems.find((x) => x.name === name) ?? {
      name,
      tp: 0,
      fp: 0,
      dup: 0,
      labels: r.labels,
      reported: 0,
      exit: REVIEW_EXIT.couldNotReview,
      billedTokens: 0,
      calls: 0,
      unpricedModels: [],
    }
  );
}

function summarizeSystem(
  name: string,
  label: string,
  results: readonly CaseResult[],
  draws: Uint32Array[],
): ReviewSystemSummary {
  const per = results.map((r) => rowOf(r, name));
  const n = results.length;
  const sum = (f: (s: SystemCase) => number) => per.reduce((t, s) => t + f(s), 0);
  const cleanRows = per.filter((_, i) => results[i]?.clean);
  const priced = per.some((s) => s.costUsd !== undefined);
  const costTotal = sum((s) => s.costUsd ?? 0);
  return {
    name,
    label,
    reported: sum((s) => s.reported),
    tp: sum((s) => s.tp),
    fp: sum((s) => s.fp),
    duplicates: sum((s) => s.dup),
    labels: sum((s) => s.labels),
    ...prf(pooled(per)),
    ci95: bootstrapPrf(per, draws),
    falsePositiveRate: rate(cleanRows.filter((s) => s.reported > 0).length, cleanRows.length),
    exitAgreement: rate(per.filter((s) => s.exit === expectedExit(s.labels)).length, n),
    couldNotReview: per.filter((s) => s.exit === REVIEW_EXIT.couldNotReview).length,
    billedTokens: n ? Math.round(sum((s) => s.billedTokens) / n) : 0,
    billedTokensTotal: sum((s) => s.billedTokens),
    calls: n ? +(sum((s) => s.calls) / n).toFixed(2) : 0,
    ...(priced ? { costUsd: n ? costTotal / n : 0, costUsdTotal: costTotal } : {}),
    unpricedModels: [...new Set(per.flatMap((s) => s.unpricedModels))].sort(),
  };
}

const f1Of = (s: ReviewSystemSummary) => s.f1 ?? -1;

/** The best F1, then the gate right more often, then the fewer billed tokens; the rest beside it. */
export function recommendReview(systems: readonly ReviewSystemSummary[]): ReviewRecommendation | undefined {
  const ranked = [...systems].sort(
    (a, b) => f1Of(b) - f1Of(a) || b.exitAgreement.rate - a.exitAgreement.rate || a.billedTokens - b.billedTokens,
  );
  const use = ranked[0];
  if (!use) return undefined;
  const others = systems.filter((s) => s !== use);
  const overlaps = (s: ReviewSystemSummary) =>
    use.ci95.f1 !== undefined &&
    s.ci95.f1 !== undefined &&
    s.ci95.f1[0] <= use.ci95.f1[1] &&
    use.ci95.f1[0] <= s.ci95.f1[1];
  const tied = (s: ReviewSystemSummary) => f1Of(s) === f1Of(use) && s.exitAgreement.rate === use.exitAgreement.rate;
  return {
    use: use.name,
    tiedWith: others.filter(tied).map((s) => s.name),
    withinInterval: others.filter((s) => !tied(s) && overlaps(s)).map((s) => s.name),
    others: others.map((s) => ({
      name: s.name,
      ...(s.f1 !== undefined ? { f1: s.f1 } : {}),
      costRatio: use.billedTokens > 0 ? s.billedTokens / use.billedTokens : s.billedTokens > 0 ? Infinity : 1,
    })),
  };
}

export function summarizeReview(
  key: ReviewRunKey,
  seats: readonly string[],
  names: readonly string[],
  failOn: FailOn,
  results: readonly CaseResult[],
): ReviewEvalResults {
  const draws = resamples(results.length, BOOTSTRAP_SEED);
  const systems = names.map((name) => summarizeSystem(name, systemLabel(name, key, seats), results, draws));
  const recommendation = results.length ? recommendReview(systems) : undefined;
  return {
    kind: 'review',
    set: key.set,
    cases: results.length,
    clean: results.filter((r) => r.clean).length,
    labels: results.reduce((n, r) => n + r.labels, 0),
    models: key.models,
    provider: key.provider,
    failOn,
    lineTolerance: LINE_TOLERANCE,
    bootstrap: { resamples: BOOTSTRAP_RESAMPLES, seed: BOOTSTRAP_SEED },
    systems,
    ...(recommendation ? { recommendation } : {}),
    perCase: results.map((r) => ({
      id: r.id,
      clean: r.clean,
      labels: r.labels,
      systems: Object.fromEntries(
        r.systems.map((s) => [s.name, { exit: s.exit, tp: s.tp, fp: s.fp, dup: s.dup, billedTokens: s.billedTokens }]),
      ),
    })),
  };
}

/** F1 of each system over the cases so far, for the progress line (no resampling). */
export function f1SoFar(names: readonly string[], results: readonly CaseResult[]): Record<string, number | undefined> {
  return Object.fromEntries(
    names.map((name) => [name, prf(pooled(results.flatMap((r) => r.systems.filter((s) => s.name === name)))).f1]),
  );
}
