/**
 * Does a reported finding hit a label? Same file, lines that overlap or lie within
 * `LINE_TOLERANCE` lines of each other (a reviewer quoting the call where the label has the
 * import, or one line off), and the same decision (ids compared as the review compares them:
 * `ADR-0003`, `0003`, `3` are one) or the same defect class (case-insensitive). A label with both a
 * decision and a defect class is hit by a finding naming either.
 *
 * Counting is one-to-one: each label is credited to at most one finding (a maximum matching), so
 * a label found twice is one true positive and one duplicate — neither right nor wrong — and a
 * finding that hits no label is a false positive.
 */
import type { Finding, LineRange } from '@roundtable/protocol';
import { decisionKey } from '../../../daemon/src/review/findingPlace';
import type { Label } from './cases';

/** Lines apart that still count as the same place. */
export const LINE_TOLERANCE = 3;

/** Gap in lines between two ranges (0 when they overlap). */
function gap(a: LineRange, b: LineRange): number {
  return Math.max(0, a.start - b.end, b.start - a.end);
}

const normPath = (p: string) => p.trim().replace(/^\.\//, '');
const normDefect = (d: string) => d.trim().toLowerCase();

/** Whether `f` reports what `label` is about. */
export function hits(f: Pick<Finding, 'file' | 'lines' | 'decision' | 'defect'>, label: Label): boolean {
  if (normPath(f.file) !== normPath(label.file) || gap(f.lines, label.lines) > LINE_TOLERANCE) return false;
  const sameDecision =
    label.decision !== undefined && f.decision !== undefined && decisionKey(f.decision) === decisionKey(label.decision);
  const sameDefect =
    label.defect !== undefined && f.defect !== undefined && normDefect(f.defect) === normDefect(label.defect);
  return sameDecision || sameDefect;
}

/** One system's findings on one case against its labels. */
export interface CaseScore {
  /** Labels credited to a finding (= findings credited to a label). */
  tp: number;
  /** Findings that hit no label. */
  fp: number;
  /** Findings that hit only labels already credited to another finding. */
  dup: number;
  /** Labels of the case. */
  labels: number;
}

/**
 * Credits labels to findings one-to-one with the most labels credited (Kuhn's augmenting paths;
 * a case has a handful of each, so O(findings · edges) is nothing).
 */
export function scoreFindings(
  findings: readonly Pick<Finding, 'file' | 'lines' | 'decision' | 'defect'>[],
  labels: readonly Label[],
): CaseScore {
  const edges = findings.map((f) => labels.flatMap((l, j) => (hits(f, l) ? [j] : [])));
  const owner: (number | undefined)[] = labels.map(() => undefined);
  const augment = (i: number, seen: boolean[]): boolean => {
    for (const j of edges[i] ?? []) {
      if (seen[j]) continue;
      seen[j] = true;
      const o = owner[j];
      if (o === undefined || augment(o, seen)) {
        owner[j] = i;
        return true;
      }
    }
    return false;
  };
  let tp = 0;
  findings.forEach((_, i) => {
    if (
      augment(
        i,
        labels.map(() => false),
      )
    )
      tp++;
  });
  const fp = edges.filter((e) => e.length === 0).length;
  return { tp, fp, dup: findings.length - tp - fp, labels: labels.length };
}
