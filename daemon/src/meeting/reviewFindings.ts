/**
 * A review's findings between the proposals and the vote: duplicates across reviewers merged, the
 * list capped, and the mechanical checks that refute a finding before any vote (its file or lines
 * are not in the change; its decision does not exist or is not accepted). Pure.
 */
import type { ConsensusOption, Finding, LineRange, ReviewScope } from '@roundtable/protocol';
import { SEVERITIES, findingLabel } from '@roundtable/protocol';
import { resolveCitation } from '../decisions/ids';
import { normalizeStatus } from '../decisions/status';

/**
 * Findings put to the vote at most (maxOptions is for a decision's options, 5 by default): a
 * change of a few hundred lines read by three reviewers yields a dozen or so distinct findings;
 * past 20 the ballot prompt grows long and each vote gets little attention. Refuted findings are
 * capped apart, since they are never voted on.
 */
export const REVIEW_MAX_FINDINGS = 20;

const overlaps = (a: LineRange, b: LineRange) => a.start <= b.end && b.start <= a.end;

/**
 * A decision id as cited, for comparison: `ADR-0003`, `0003`, `3` all read 3; anything more (a
 * record's file name, the id of one of two records sharing a number) is compared whole.
 * `reviewOptions` writes each citation as the rulebook's id first (`resolveCitation`).
 */
export function decisionKey(id: string): string {
  const digits = /^\D*?0*(\d+)$/.exec(id.trim());
  return digits ? String(Number(digits[1])) : id.trim().toLowerCase();
}

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
 * A path as a model wrote it, made repository-relative where that is certain: backslashes as
 * slashes, a `file://` URI's path, the workspace root taken off an absolute path inside it,
 * `./` and repeated slashes dropped. Whatever it names, it stays data: never a pattern.
 */
export function repoRelative(raw: string, root?: string): string {
  let p = raw.trim().replace(/\\/g, '/');
  if (/^file:\/\//i.test(p)) p = p.replace(/^file:\/\/(?:localhost)?/i, '').replace(/^\/([A-Za-z]:\/)/, '$1');
  p = p.replace(/\/{2,}/g, '/').replace(/\/(?:\.\/)+/g, '/');
  const base = root?.replace(/\\/g, '/').replace(/\/+$/, '');
  if (base && p.startsWith(`${base}/`)) p = p.slice(base.length + 1);
  return p.replace(/^(?:\.\/)+/, '');
}

const isAbsolute = (p: string) => p.startsWith('/') || /^[A-Za-z]:\//.test(p);

/**
 * The changed file a finding's path names, matched on the repository-relative form of what the
 * reviewer wrote against each file's real name and the name it was shown (`shown`): as written,
 * then without a diff side's `a/` or `b/`, then, for an absolute path outside the workspace (a
 * root the model made up: it is never shown one), the one changed file it ends with.
 */
export function changedFileOf<C extends { file: string; shown?: string }>(
  written: string,
  scope: { changed: C[] },
  root?: string,
): C | undefined {
  const p = repoRelative(written, root);
  const named = (q: string) =>
    scope.changed.find((c) => c.file === q || (c.shown !== undefined && repoRelative(c.shown) === q));
  const exact = named(p) ?? (/^[ab]\//.test(p) ? named(p.slice(2)) : undefined);
  if (exact || !isAbsolute(p)) return exact;
  const tails = scope.changed.filter(
    (c) => p.endsWith(`/${c.file}`) || (c.shown !== undefined && p.endsWith(`/${repoRelative(c.shown)}`)),
  );
  return tails.length === 1 ? tails[0] : undefined;
}

/** The file of the change a finding's path names among those the review could not read. */
const unreadFileOf = (written: string, scope: ReviewScope, root?: string) =>
  changedFileOf(written, { changed: scope.unread ?? [] }, root);

const span = (r: LineRange) => (r.start === r.end ? `line ${r.start}` : `lines ${r.start}-${r.end}`);

/** True when `file` names a changed file the review did not read (by its name or as it is shown). */
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
    return `${span(f.lines)} of ${changed.file} ${f.lines.start === f.lines.end ? 'is' : 'are'} not in the change`;
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
 * A finding as the review reads it before merging: on the real name of the file it names (so the
 * same finding written two ways is one) and citing the rulebook's id of its record (so two records
 * sharing a number stay apart). The review eval reads the lone reviewers' findings so too.
 */
export function findingAsRead(f: Finding, scope: ReviewScope, root?: string): Finding {
  const cited = f.decision === undefined ? undefined : resolveCitation(f.decision, scope.decisions);
  return {
    ...f,
    file: (changedFileOf(f.file, scope, root) ?? unreadFileOf(f.file, scope, root))?.file ?? repoRelative(f.file, root),
    ...(cited?.ok ? { decision: cited.decision.id } : {}),
  };
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
