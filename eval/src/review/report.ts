/** What `roundtable eval --review` prints: the systems side by side, then which one to use on this set. */
import { formatCount, formatUsd } from '@roundtable/protocol';
import type { FlipRate } from '../panelStats';
import type { Interval } from './metrics';
import type { ReviewEvalResults, ReviewRecommendation, ReviewSystemSummary } from './summary';

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const interval = (i: Interval | undefined) => (i ? `${pct(i[0])}–${pct(i[1])}` : 'n/a');
const cell = (s: string) => s.replace(/\|/g, '\\|');

/** The words under the scripted demo's figures: they check the harness, they measure no model. */
export const SCRIPTED_NOTE =
  'Scripted reviewers (--provider scripted) answer from each case’s labels: right reports them all, noisy adds a false finding to every clean control, misses leaves out every second label of the set. These figures check the harness and show how to read the report; they measure no model.';

/** `66.7% (6/9), 95% CI 44.4–88.9%`, or why there is no figure. */
function figure(value: number | undefined, num: number, den: number, ci: Interval | undefined, none: string): string {
  return value === undefined ? none : `${pct(value)} (${num}/${den}), ${interval(ci)}`;
}

const share = (r: FlipRate) => `${r.count} of ${r.of}${r.of ? ` (${pct(r.rate)})` : ''}`;

function row(s: ReviewSystemSummary, priced: boolean): string {
  return [
    s.name,
    cell(s.label),
    figure(s.precision, s.tp, s.tp + s.fp, s.ci95.precision, 'n/a: reported nothing'),
    figure(s.recall, s.tp, s.labels, s.ci95.recall, 'n/a: no label'),
    s.f1 === undefined ? 'n/a' : `${pct(s.f1)}, ${interval(s.ci95.f1)}`,
    share(s.falsePositiveRate),
    share(s.exitAgreement),
    formatCount(s.billedTokens),
    ...(priced ? [s.costUsd !== undefined ? formatUsd(s.costUsd) : 'n/a'] : []),
  ].join(' | ');
}

function systemsTable(r: ReviewEvalResults): string[] {
  const priced = r.systems.some((s) => s.costUsd !== undefined);
  const head = [
    'System',
    'What',
    'Precision (TP/reported), 95% CI',
    'Recall (TP/labels), 95% CI',
    'F1, 95% CI',
    'Clean controls flagged',
    'Gate right',
    'Billed tokens / case',
    ...(priced ? ['Cost / case'] : []),
  ];
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...r.systems.map((s) => `| ${row(s, priced)} |`),
  ];
}

function ratio(v: number): string {
  return Number.isFinite(v) ? `${v.toFixed(2)}×` : 'tokens where it billed none';
}

/** "Use majority on builtin: the best F1, …, at 1,234 billed tokens per case; its gate …" */
export function reviewRecommendationLine(r: ReviewEvalResults, rec: ReviewRecommendation): string {
  const use = r.systems.find((s) => s.name === rec.use);
  if (!use) return '';
  const tie = rec.tiedWith.length ? ` (tied with ${rec.tiedWith.join(', ')}, which cost more)` : '';
  const cost = use.costUsd !== undefined ? ` (${formatUsd(use.costUsd)})` : '';
  const f1 =
    use.f1 === undefined ? 'no F1 (no label and no finding)' : `F1 ${pct(use.f1)} (95% CI ${interval(use.ci95.f1)})`;
  const others = rec.others
    .map((o) => `${o.name} ${o.f1 === undefined ? 'n/a' : pct(o.f1)} at ${ratio(o.costRatio)}`)
    .join(', ');
  const close = rec.withinInterval.length
    ? ` Within its 95% interval: ${rec.withinInterval.join(', ')} (more cases would tell them apart).`
    : '';
  return (
    `Use ${use.name} on ${r.set}: the best${tie}, ${f1}, at ${formatCount(use.billedTokens)} billed tokens per case${cost}; ` +
    `its gate was right on ${use.exitAgreement.count} of ${use.exitAgreement.of} cases and flagged ${use.falsePositiveRate.count} of ${use.falsePositiveRate.of} clean controls. ` +
    `The others, F1 and billed tokens as a multiple of ${use.name}'s: ${others}.${close}`
  );
}

/** The whole report, Markdown. */
export function renderReviewReport(r: ReviewEvalResults): string {
  const dups = r.systems.filter((s) => s.duplicates > 0).map((s) => `${s.name} ${s.duplicates}`);
  const failed = r.systems.filter((s) => s.couldNotReview > 0).map((s) => `${s.name} ${s.couldNotReview}`);
  const unpriced = [...new Set(r.systems.flatMap((s) => s.unpricedModels))];
  return [
    `Review eval of ${r.set}: ${r.cases} case${r.cases === 1 ? '' : 's'} (${r.clean} clean control${r.clean === 1 ? '' : 's'}), ${r.labels} label${r.labels === 1 ? '' : 's'}; panel ${r.models.join(', ')}; the gate fails on ${r.failOn}.`,
    ...(r.provider === 'scripted' ? ['', SCRIPTED_NOTE] : []),
    '',
    ...systemsTable(r),
    '',
    `A finding hits a label on the same file, within ${r.lineTolerance} lines, for the same decision or defect class; each label counts once. Intervals: ${formatCount(r.bootstrap.resamples)} bootstrap resamples over cases (seed ${r.bootstrap.seed}). Clean controls flagged: any finding reported on a change with no label. Gate right: exit 1 on a case with a label, 0 on a clean one.`,
    ...(dups.length ? [`Duplicates (a label hit again, counted neither right nor wrong): ${dups.join(', ')}.`] : []),
    ...(failed.length
      ? [`Could not review (exit 3: counted as reporting nothing and a wrong exit): ${failed.join(', ')} case(s).`]
      : []),
    ...(unpriced.length ? [`No price for ${unpriced.join(', ')}: the cost leaves them out.`] : []),
    ...(r.recommendation ? ['', reviewRecommendationLine(r, r.recommendation)] : []),
  ].join('\n');
}
