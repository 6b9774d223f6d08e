/**
 * What `roundtable eval` prints: the side-by-side table of the systems, what the debate changed,
 * the panel's effective votes, each seat's flips, and which system to use on this set.
 */
import { formatCount } from '@roundtable/protocol';
import type { FlipRate } from './panelStats';
import type { EvalResults, Recommendation, SystemSummary } from './summary';

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const interval = ([lo, hi]: [number, number]) => `${pct(lo)}–${pct(hi)}`;
const cell = (s: string) => s.replace(/\|/g, '\\|');

function systemsTable(r: EvalResults): string[] {
  return [
    '| System | What | Correct | Accuracy | 95% CI (Wilson) | Billed tokens / question | Wall ms / question |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...r.systems.map(
      (s) =>
        `| ${s.name} | ${cell(s.label)} | ${s.correct}/${r.n} | ${pct(s.accuracy)} | ${interval(s.ci95)} | ${formatCount(s.billedTokens)} | ${formatCount(s.wallMs)} |`,
    ),
  ];
}

/** "1.80 of 3 (95% CI 1.42–2.31)": how many independent votes the panel's answers are worth. */
function effectiveVotesLine(r: EvalResults): string[] {
  const e = r.effectiveVotes;
  const head = 'Effective independent votes';
  const lines =
    e.nEff === undefined || e.rho === undefined
      ? [`${head}: not computable.`]
      : [
          `${head}: ${e.nEff.toFixed(2)} of ${e.seats}${e.ci95 ? ` (95% CI ${e.ci95[0].toFixed(2)}–${e.ci95[1].toFixed(2)}, bootstrap over questions)` : ''} = n / (1 + (n − 1)·ρ), ρ = ${e.rho.toFixed(3)} the mean correlation of the seats' errors in their independent answers (${e.pairs} of ${e.pairsTotal} pairs of seats).`,
        ];
  if (e.note) lines.push(`Note: ${e.note}.`);
  return lines;
}

const flip = (f: FlipRate) => `${f.count} of ${f.of} | ${pct(f.rate)} (${interval(f.ci95)})`;

function flipsTable(r: EvalResults): string[] {
  return [
    "Flips by the debate (each roundtable seat's round-1 answer against its final one):",
    '',
    '| Seat | Right → wrong | Rate (95% CI) | Wrong → right | Rate (95% CI) |',
    '| --- | --- | --- | --- | --- |',
    ...r.flips.map((f) => `| ${cell(f.seat)} | ${flip(f.rightToWrong)} | ${flip(f.wrongToRight)} |`),
  ];
}

function ratio(v: number): string {
  return Number.isFinite(v) ? `${v.toFixed(2)}×` : 'tokens where it billed none';
}

/** "Use best on arithmetic (seed 1): the most accurate, 86.0% at 440 billed tokens per question; …" */
export function recommendationLine(r: EvalResults, rec: Recommendation): string {
  const by = new Map<string, SystemSummary>(r.systems.map((s) => [s.name, s]));
  const use = by.get(rec.use);
  if (!use) return '';
  const tie = rec.tiedWith.length ? ` (tied with ${rec.tiedWith.join(', ')}, which cost more)` : '';
  const others = rec.others.map((o) => `${o.name} ${pct(o.accuracy)} at ${ratio(o.costRatio)}`).join(', ');
  const close = rec.withinInterval.length
    ? ` Within its 95% interval: ${rec.withinInterval.join(', ')} (more questions would tell them apart).`
    : '';
  return `Use ${use.name} on ${r.set}${r.seed !== null ? ` (seed ${r.seed})` : ''}: the most accurate${tie}, ${pct(use.accuracy)} at ${formatCount(use.billedTokens)} billed tokens per question; the others, with their tokens as a multiple of ${use.name}'s: ${others}.${close}`;
}

/** The whole report, Markdown. */
export function renderTable(r: EvalResults): string {
  const d = r.debate;
  return [
    `Eval of ${r.set}${r.seed !== null ? ` (seed ${r.seed})` : ''}: ${r.n} question${r.n === 1 ? '' : 's'}`,
    '',
    ...systemsTable(r),
    '',
    `Debate: the roundtable's answer differs from its own round-1 majority on ${d.changed} of ${r.n} questions (fixed ${d.fixed}, broke ${d.broken}).`,
    ...(r.unpicked
      ? [`Best of round 1: the judge (${r.judge}) named no answer on ${r.unpicked} of ${r.n} questions, scored wrong.`]
      : []),
    '',
    ...effectiveVotesLine(r),
    '',
    ...flipsTable(r),
    ...(r.recommendation ? ['', recommendationLine(r, r.recommendation)] : []),
  ].join('\n');
}
