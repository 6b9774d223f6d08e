/**
 * What a review concluded, read from its meeting state alone: each finding with its verdict and
 * votes, and the exit code of `roundtable review` (docs/review.md). One reading for the CLI, the
 * GitHub Action, the MCP tool and the extension. An infrastructure failure (a reviewer's call that
 * failed, a meeting cut or out of budget before every finding had a verdict) is exit 3, never 1.
 */
import type { Verdict, VoteKind } from './consensus';
import type { TerminationReason } from './domain';
import { oneLine } from './markdown';
import {
  SEVERITIES,
  REVIEW_EXIT,
  type DecisionException,
  type FailOn,
  type Finding,
  type ReviewScope,
  type Severity,
} from './review';
import type { MeetingState } from './state';

export interface FindingVote {
  worker: string;
  vote: VoteKind;
  confidence: number;
  rationale: string;
}

/** The exception that waived a finding: its reason and where it was said. */
export type Waiver = Pick<DecisionException, 'reason' | 'from' | 'commit'>;

/**
 * A finding as the review concluded on it: its option id (`O1`), its verdict and the votes cast
 * on it, and `waived` beside the panel's verdict when an exception of the change names its decision.
 */
export type ReviewedFinding = Finding & { id: string; verdict: Verdict; votes: FindingVote[]; waived?: Waiver };

/** An exception and what it did: `waived` the findings named, `unused` (the change breaks no such decision), or `invalid`. */
export type ExceptionUse = DecisionException & { use: 'waived' | 'unused' | 'invalid'; findings: string[] };

export interface ReviewOutcome {
  findings: ReviewedFinding[];
  exit: 0 | 1 | 3;
  /** One line, when the review could not be done (exit 3). */
  why?: string;
  scope?: ReviewScope;
  /** Every exception the change carries, with what it did. */
  exceptions?: ExceptionUse[];
}

/**
 * The change's exceptions applied: an upheld finding (PROVEN, or CONTESTED) on a decision a valid
 * exception names is waived (the panel's verdict is kept beside it) and counts against no bar.
 */
export function applyExceptions(
  findings: ReviewedFinding[],
  exceptions: readonly DecisionException[],
): { findings: ReviewedFinding[]; exceptions: ExceptionUse[] } {
  const valid = exceptions.filter((e) => e.invalid === undefined);
  const waived = findings.map((f) => {
    const by = f.decision ? valid.find((e) => e.decision === f.decision) : undefined;
    if (!by || (f.verdict !== 'PROVEN' && f.verdict !== 'CONTESTED')) return f;
    return { ...f, waived: { reason: by.reason, from: by.from, ...(by.commit ? { commit: by.commit } : {}) } };
  });
  const uses = exceptions.map((e): ExceptionUse => {
    if (e.invalid !== undefined) return { ...e, use: 'invalid', findings: [] };
    const ids = waived.filter((f) => f.waived && f.decision === e.decision).map((f) => f.id);
    return { ...e, use: ids.length ? 'waived' : 'unused', findings: ids };
  });
  return { findings: waived, exceptions: uses };
}

/** A finding in one line, as its option's label: `[blocking] src/db.ts:12-14 — breaks 0003: the claim`. */
export function findingLabel(f: Finding): string {
  const lines = f.lines.start === f.lines.end ? `${f.lines.start}` : `${f.lines.start}-${f.lines.end}`;
  const what = f.decision ? `breaks ${f.decision}` : (f.defect ?? 'defect');
  return capped(`[${f.severity}] ${f.file}:${lines} — ${what}: ${f.claim}`);
}

/** Closes that end a review before its verdicts for reasons outside the change itself. */
const INFRASTRUCTURE: ReadonlySet<TerminationReason> = new Set(['error', 'budget_exhausted', 'time_limit', 'cut']);

/** What fails a review at each bar: severities whose PROVEN findings count, and whether CONTESTED counts too. */
const BAR: Record<FailOn, { severities: readonly Severity[]; contested: boolean }> = {
  blocking: { severities: ['blocking'], contested: false },
  major: { severities: ['blocking', 'major'], contested: false },
  contested: { severities: ['blocking', 'major'], contested: true },
};

/** The review's findings, its exit code and, for exit 3, why. */
export function reviewOutcome(state: MeetingState, failOn: FailOn): ReviewOutcome {
  const judged = state.options.flatMap((o) =>
    o.finding ? [{ ...o.finding, ...judgedOption(state, o.id, o.finding) }] : [],
  );
  const findings = judged.map((f) => ({ ...f, verdict: f.verdict ?? ('INSUFFICIENT_EVIDENCE' as const) }));
  findings.sort(
    (a, b) =>
      SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
      a.file.localeCompare(b.file) ||
      a.lines.start - b.lines.start ||
      a.id.localeCompare(b.id, undefined, { numeric: true }),
  );
  const scope = state.config.review;
  const why =
    couldNotReview(
      state,
      judged.some((f) => f.verdict === undefined),
    ) ?? rulebookUnread(scope);
  const applied = applyExceptions(findings, scope?.exceptions ?? []);
  const base = {
    findings: applied.findings,
    ...(scope ? { scope } : {}),
    ...(applied.exceptions.length ? { exceptions: applied.exceptions } : {}),
  };
  if (why) return { ...base, exit: REVIEW_EXIT.couldNotReview, why };
  const bar = BAR[failOn];
  const fails = applied.findings.some(
    (f) =>
      !f.waived &&
      bar.severities.includes(f.severity) &&
      (f.verdict === 'PROVEN' || (bar.contested && f.verdict === 'CONTESTED')),
  );
  return { ...base, exit: fails ? REVIEW_EXIT.failed : REVIEW_EXIT.clean };
}

/** One option's verdict (REFUTED at once when refuted mechanically) and votes, from the last round that judged it. */
function judgedOption(
  s: MeetingState,
  id: string,
  finding: Finding,
): { id: string; verdict: Verdict | undefined; votes: FindingVote[] } {
  if (finding.refuted !== undefined) return { id, verdict: 'REFUTED', votes: [] };
  const round = [...s.rounds].reverse().find((r) => r.verdict?.results.some((x) => x.option === id));
  const verdict = round?.verdict?.results.find((x) => x.option === id)?.verdict;
  const votes = Object.entries(round?.ballots ?? {}).flatMap(([worker, b]) =>
    b.votes
      .filter((v) => v.option === id)
      .map((v) => ({ worker, vote: v.vote, confidence: v.confidence, rationale: v.rationale })),
  );
  return { id, verdict, votes };
}

/** Why the review could not be done, in one line, or undefined when it was. */
function couldNotReview(s: MeetingState, unjudged: boolean): string | undefined {
  const failed = [
    ...Object.entries(s.proposalFailures ?? {}).map(
      ([w, f]) => `${w}'s proposal call failed (${f.reason}: ${f.detail})`,
    ),
    ...s.rounds.flatMap((r) =>
      Object.entries(r.failures).map(([w, f]) => `${w}'s ballot in round ${r.round} failed (${f.reason}: ${f.detail})`),
    ),
  ];
  const first = failed[0];
  if (first) return capped(`${first}${failed.length > 1 ? ` (and ${failed.length - 1} more)` : ''}`);
  if (!s.closed) return 'the review did not finish';
  if (unjudged || (INFRASTRUCTURE.has(s.closed.reason) && s.optionsSeq === 0)) {
    const ended = `the meeting closed (${s.closed.reason}${s.closed.detail ? `: ${s.closed.detail}` : ''})`;
    return capped(`${ended} before every finding had a verdict`);
  }
  return undefined;
}

/** Why a review whose rulebook a bound left unread is incomplete: a rule for the change may be among the records not read. */
function rulebookUnread(scope: ReviewScope | undefined): string | undefined {
  const unread = scope?.rules?.unread ?? [];
  const first = unread[0];
  if (!first) return undefined;
  return capped(
    `${unread.length} decision record file(s) at ${scope?.rules?.label ?? 'the base'} were not read (${first.path} ${first.reason}): a rule for this change may be among them; review with --decisions naming a smaller folder`,
  );
}

/** Model or server text on one line (controls dropped), at most 300 characters. */
function capped(text: string): string {
  const line = oneLine(text);
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/*
 * How a review reads in the minutes and the digest: findings and their verdicts, not a decision
 * between options. Plain text; whoever renders it escapes it (every finding is model text).
 */

const ORDER: readonly Verdict[] = ['PROVEN', 'CONTESTED', 'INSUFFICIENT_EVIDENCE', 'REFUTED'];

/** `5 findings: 1 PROVEN (O1), 4 REFUTED (O2, O3, O4, O5; 3 before the vote)`, or that none were found. */
export function reviewSummary(s: MeetingState): string {
  const { findings } = reviewOutcome(s, 'blocking');
  if (findings.length === 0) return 'no findings: the reviewers found nothing in the change';
  const parts = ORDER.flatMap((v) => {
    const these = findings.filter((f) => f.verdict === v);
    if (these.length === 0) return [];
    const before = these.filter((f) => f.refuted !== undefined).length;
    const waived = these.filter((f) => f.waived).length;
    const notes = [before ? `${before} before the vote` : '', waived ? `${waived} waived by an exception` : '']
      .filter(Boolean)
      .map((n) => `; ${n}`)
      .join('');
    return [`${these.length} ${v} (${these.map((f) => f.id).join(', ')}${notes})`];
  });
  return `${findings.length} finding${findings.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/** The next steps of a review: fix what was proven, look again at what stayed contested. */
export function reviewNextSteps(s: MeetingState): string[] {
  const { findings } = reviewOutcome(s, 'blocking');
  const proven = findings.filter((f) => f.verdict === 'PROVEN' && !f.waived);
  const contested = findings.filter((f) => f.verdict === 'CONTESTED' && !f.waived);
  const waived = findings.filter((f) => f.waived);
  const label = (id: string) => (s.options.find((o) => o.id === id)?.label ?? id).replace(/[.\s]+$/, '');
  return [
    ...proven.map((f) => `Fix ${f.id}: ${label(f.id)}.`),
    ...contested.map((f) => `The panel is split on ${f.id}: read it yourself (${label(f.id)}).`),
    ...waived.map(
      (f) => `${f.id} (${f.verdict}) is waived by the exception in ${f.waived?.from}: ${f.waived?.reason}.`,
    ),
    ...(proven.length + contested.length + waived.length === 0 ? ['No finding was proven: nothing to fix.'] : []),
  ];
}

/** Who voted against a finding's verdict, for the digest's dissent line. */
export function reviewDissent(s: MeetingState): string {
  const { findings } = reviewOutcome(s, 'blocking');
  const against = findings.flatMap((f) =>
    f.votes
      .filter(
        (v) => (f.verdict === 'PROVEN' && v.vote === 'reject') || (f.verdict === 'REFUTED' && v.vote === 'accept'),
      )
      .map((v) => `${v.worker} ${v.vote}s ${f.id}, ${f.verdict} (${v.confidence.toFixed(2)}): ${v.rationale}`),
  );
  return against.length > 0 ? against.join('; ') : 'none: no vote went against a verdict';
}
