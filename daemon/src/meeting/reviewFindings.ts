/**
 * A review's findings between the proposals and the vote: duplicates across reviewers merged, the
 * list capped, and the mechanical checks that refute a finding before any vote (its file or lines
 * are not in the change; its decision does not exist or is not accepted). Pure.
 */
import type { ConsensusOption, Finding, LineRange, ReviewScope } from '@roundtable/protocol';
import { SEVERITIES, findingLabel, lineSpan } from '@roundtable/protocol';
import { normalizeStatus } from '../decisions/status';
import { resolveCitation } from '../decisions/ids';
import { changedFileOf, decisionKey, findingAsRead, unreadFileOf } from '../review/findingPlace';

/**
 * Findings put to the vote at most (maxOptions is for a decision's options, 5 by default): a
 * change of a few hundred lines read by three reviewers yields a dozen or so distinct findings;
 * past 20 the ballot prompt grows long and each vote gets little attention. Refuted findings are
 * capped apart, since they are never voted on.
 */
export const REVIEW_MAX_FINDINGS = 20;

const overlaps = (a: LineRange, b: LineRange) => a.start <= b.end && b.start <= a.end;

/** What a finding is about: the decision it breaks, else its defect class. */
function subject(f: Finding): string {
  return f.decision ? `decision:${decisionKey(f.decision)}` : `defect:${(f.defect ?? '').trim().toLowerCase()}`;
}

/** The same finding: same file, overlapping lines, same decision (or, without one, same defect class). */
export function sameFinding(a: Finding, b: Finding): boolean {
  return a.file === b.file && overlaps(a.lines, b.lines) && subject(a) === subject(b);
}

const rank = (f: Finding) => SEVERITIES.indexOf(f.severity);

/**
 * Every reviewer's findings merged: a finding that is the same as one kept (`sameFinding`) adds
 * its reviewer to `proposedBy`, widens the line range to cover both, and raises the severity to
 * the more severe; the first wording is kept. Ordered by how many reviewers found it, then by
 * severity, then in order of proposal.
 */
export function mergeFindings(byReviewer: [reviewer: string, findings: Finding[]][]): Finding[] {
  const kept: { f: Finding; by: string[]; first: number }[] = [];
  for (const [reviewer, list] of byReviewer) {
    for (const f of list) {
      const same = kept.find((k) => sameFinding(k.f, f));
      if (!same) {
        kept.push({ f: { ...f }, by: [reviewer], first: kept.length });
        continue;
      }
      if (!same.by.includes(reviewer)) same.by.push(reviewer);
      const lines = {
        start: Math.min(same.f.lines.start, f.lines.start),
        end: Math.max(same.f.lines.end, f.lines.end),
      };
      same.f = { ...same.f, lines, severity: rank(f) < rank(same.f) ? f.severity : same.f.severity };
      if (!same.f.quote && f.quote) same.f.quote = f.quote;
    }
  }
  return kept
    .sort((a, b) => b.by.length - a.by.length || rank(a.f) - rank(b.f) || a.first - b.first)
    .map((k) => ({ ...k.f, proposedBy: k.by }));
}

/**
 * Why a finding is refuted before any vote, in one line, or undefined when it stands: its file is
 * not in the change, its lines touch none of that file's hunks, or it cites a decision that is not
 * in the rulebook or not accepted.
 */
export function refutation(f: Finding, scope: ReviewScope, root?: string): string | undefined {
  const changed = changedFileOf(f.file, scope, root);
  // A file the review did not read is in the change all the same: the finding stands for the vote.
  if (!changed) return unreadFileOf(f.file, scope, root) ? undefined : `${f.file} is not in the change`;
  if (!changed.ranges.some((r) => overlaps(r, f.lines)))
    return `${lineSpan(f.lines)} of ${changed.file} ${f.lines.start === f.lines.end ? 'is' : 'are'} not in the change`;
  if (f.decision === undefined) return undefined;
  const cited = resolveCitation(f.decision, scope.decisions);
  if (!cited.ok && cited.why === 'ambiguous')
    return `cites ${f.decision}, which ${cited.candidates.map((d) => d.id).join(' and ')} share: a finding cites one record by its id`;
  if (!cited.ok) return `cites ${f.decision}, which is not in the rulebook`;
  const record = cited.decision;
  const status = normalizeStatus(record.status);
  return status === 'accepted' ? undefined : `cites ${record.id}, which is ${status}`;
}

/**
 * The options of a review: the findings merged, checked, and capped (REVIEW_MAX_FINDINGS standing
 * and as many refuted), standing ones first; a cited decision is written with the rulebook's id.
 * Each option's label is the finding in one line.
 */
export function reviewOptions(byReviewer: [string, Finding[]][], scope: ReviewScope, root?: string): ConsensusOption[] {
  const checked = mergeFindings(
    byReviewer.map(([who, list]) => [who, list.map((f) => findingAsRead(f, scope, root))]),
  ).map((f) => {
    const why = refutation(f, scope, root);
    return { ...f, ...(why ? { refuted: why } : {}) };
  });
  const standing = checked.filter((f) => f.refuted === undefined).slice(0, REVIEW_MAX_FINDINGS);
  const refuted = checked.filter((f) => f.refuted !== undefined).slice(0, REVIEW_MAX_FINDINGS);
  return [...standing, ...refuted].map((finding, i) => ({ id: `O${i + 1}`, label: findingLabel(finding), finding }));
}

/** The options still to be voted on: those whose finding was not refuted mechanically. */
export function ballotOptions(options: ConsensusOption[]): ConsensusOption[] {
  return options.filter((o) => o.finding?.refuted === undefined);
}
