/**
 * A run's figures from its question records: accuracy (95% Wilson interval), billed tokens and
 * wall time of each system, what the debate did to the roundtable's answers, the panel's effective
 * votes, each seat's flips, and which system to use on this set.
 */
import { answerKey } from './questions';
import type { QuestionRecord, RunKey } from './record';
import { effectiveVotes, seatFlips, type EffectiveVotes, type SeatFlips } from './panelStats';
import { SYSTEMS, seatName, type SystemName } from './systems';
import { wilson95 } from './wilson';

/** What the rounds after the first did to the roundtable's answers. */
export interface DebateEffect {
  /** Questions whose answer differs from the round-1 majority's. */
  changed: number;
  /** Round 1 wrong, final right. */
  fixed: number;
  /** Round 1 right, final wrong: talked out of a right answer. */
  broken: number;
}

export interface SystemSummary {
  name: SystemName;
  /** What the system is, in words ("m1 alone", "majority of m1, m2, m3", ...). */
  label: string;
  correct: number;
  accuracy: number;
  ci95: [number, number];
  /** Mean billed tokens per question (server-reported usage; estimated where a server reports none). */
  billedTokens: number;
  /** Mean wall time per question, ms. */
  wallMs: number;
  billedTokensTotal: number;
  wallMsTotal: number;
}

/** Which system to use on this set: the most accurate, the cheaper of a tie; the others beside it. */
export interface Recommendation {
  use: SystemName;
  /** Systems exactly as accurate that cost more. */
  tiedWith: SystemName[];
  /** Systems whose 95% interval overlaps the chosen one's: more questions would tell them apart. */
  withinInterval: SystemName[];
  /** Every other system: its accuracy and its billed tokens as a multiple of the chosen one's. */
  others: { name: SystemName; accuracy: number; costRatio: number }[];
}

export interface EvalResults {
  set: string;
  n: number;
  seed: number | null;
  models: string[];
  rounds: number;
  /** The model that picked the best round-1 answer. */
  judge: string;
  systems: SystemSummary[];
  /** The roundtable against its own round 1 (questions answered before this was recorded are left out). */
  debate: DebateEffect;
  /** Questions where the judge's reply named no answer (the best-of arm scored wrong). */
  unpicked: number;
  /** How many independent votes the panel's independent answers are worth. */
  effectiveVotes: EffectiveVotes;
  /** Per roundtable seat, then `all seats`: answers turned right→wrong and wrong→right by the debate. */
  flips: SeatFlips[];
  /** Absent when no question was answered. */
  recommendation?: Recommendation;
}

const judgeOf = (key: RunKey) => key.judge ?? key.models[0] ?? '?';

export function systemLabel(name: SystemName, key: RunKey): string {
  if (name === 'single') return `${key.models[0] ?? '?'} alone`;
  if (name === 'majority') return `majority vote of ${key.models.join(', ')}`;
  if (name === 'best') return `${judgeOf(key)} picks the best of the independent answers of ${key.models.join(', ')}`;
  return `roundtable of ${key.models.join(', ')} (${key.rounds} round${key.rounds === 1 ? '' : 's'} at most)`;
}

/** Questions each system got right so far, for the progress line (cheap: no interval, no resampling). */
export function correctCounts(records: QuestionRecord[]): Record<SystemName, number> {
  const out = Object.fromEntries(SYSTEMS.map((s) => [s, 0])) as Record<SystemName, number>;
  for (const r of records) for (const s of SYSTEMS) if (r.results[s].correct) out[s]++;
  return out;
}

/** The most accurate system, ties to the cheaper (then the earlier in SYSTEMS), and the rest beside it. */
export function recommend(systems: SystemSummary[]): Recommendation | undefined {
  const ranked = [...systems].sort((a, b) => b.correct - a.correct || a.billedTokens - b.billedTokens);
  const use = ranked[0];
  if (!use) return undefined;
  const overlaps = (s: SystemSummary) => s.ci95[0] <= use.ci95[1] && use.ci95[0] <= s.ci95[1];
  const others = systems.filter((s) => s !== use);
  return {
    use: use.name,
    tiedWith: others.filter((s) => s.correct === use.correct).map((s) => s.name),
    withinInterval: others.filter((s) => s.correct !== use.correct && overlaps(s)).map((s) => s.name),
    others: others.map((s) => ({
      name: s.name,
      accuracy: s.accuracy,
      costRatio: use.billedTokens > 0 ? s.billedTokens / use.billedTokens : s.billedTokens > 0 ? Infinity : 1,
    })),
  };
}

function debateOf(records: QuestionRecord[]): DebateEffect {
  const debate: DebateEffect = { changed: 0, fixed: 0, broken: 0 };
  for (const r of records) {
    if (!r.round1) continue;
    const before = r.round1.answer;
    const after = r.results.roundtable.answer;
    const same =
      before !== undefined && after !== undefined ? answerKey(before) === answerKey(after) : before === after;
    if (!same) debate.changed++;
    if (!r.round1.correct && r.results.roundtable.correct) debate.fixed++;
    if (r.round1.correct && !r.results.roundtable.correct) debate.broken++;
  }
  return debate;
}

export function summarize(key: RunKey, records: QuestionRecord[]): EvalResults {
  const n = records.length;
  const systems = SYSTEMS.map((name): SystemSummary => {
    const rs = records.map((r) => r.results[name]);
    const correct = rs.filter((r) => r.correct).length;
    const tokens = rs.reduce((t, r) => t + r.billedTokens, 0);
    const ms = rs.reduce((t, r) => t + r.wallMs, 0);
    return {
      name,
      label: systemLabel(name, key),
      correct,
      accuracy: n ? correct / n : 0,
      ci95: wilson95(correct, n),
      billedTokens: n ? Math.round(tokens / n) : 0,
      wallMs: n ? Math.round(ms / n) : 0,
      billedTokensTotal: tokens,
      wallMsTotal: ms,
    };
  });
  const seats = records.flatMap((r) => (r.seats ? [r.seats] : []));
  const recommendation = n ? recommend(systems) : undefined;
  return {
    set: key.set,
    n,
    seed: key.seed,
    models: key.models,
    rounds: key.rounds,
    judge: judgeOf(key),
    systems,
    debate: debateOf(records),
    unpicked: records.filter((r) => r.replies?.best !== undefined && r.picked === undefined).length,
    effectiveVotes: effectiveVotes(
      seats.map((s) => s.independent.map((right) => !right)),
      key.models.length,
    ),
    flips: seatFlips(
      key.models.map((m, i) => seatName(i, m)),
      seats.map((s) => s.round1),
      seats.map((s) => s.final),
    ),
    ...(recommendation ? { recommendation } : {}),
  };
}
