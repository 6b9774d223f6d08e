/**
 * What a review concluded, read from its meeting state alone: each finding with its verdict and
 * votes, and the exit code of `roundtable review` (docs/review.md). One reading for the CLI, the
 * GitHub Action, the MCP tool and the extension. An infrastructure failure (a reviewer's call that
 * failed, a meeting cut or out of budget before every finding had a verdict) is exit 3, never 1.
 */
import type { OptionVote, Verdict, VoteKind } from './consensus';
import type { TerminationReason } from './domain';
import { oneLine } from './markdown';
import { pathForPeople } from './pathText';
import {
  SEVERITIES,
  REVIEW_EXIT,
  lineNumbers,
  type DecisionException,
  type FailOn,
  type Finding,
  type ReviewScope,
  type Severity,
} from './review';
import { summaryOf, workersOf, type Ballot, type MeetingState, type RoundState } from './state';
import type { MeetingSummary } from './messageSchemas';

export interface FindingVote {
  worker: string;
  vote: VoteKind;
  confidence: number;
  rationale: string;
}

/** The exception that waived a finding: its reason and where it was said. */
export type Waiver = Pick<DecisionException, 'reason' | 'from' | 'commit'>;

/** `by the exception in commit 1a2b3c4: we migrate next quarter`. */
export function waivedBy(w: Waiver): string {
  return `by the exception in ${w.from}: ${w.reason}`;
}

/** `waived by the exception in commit 1a2b3c4: we migrate next quarter`. */
export function waiverText(w: Waiver): string {
  return `waived ${waivedBy(w)}`;
}

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
function applyExceptions(
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
  const what = f.decision ? `breaks ${f.decision}` : (f.defect ?? 'defect');
  return capped(`[${f.severity}] ${f.file}:${lineNumbers(f.lines)} — ${what}: ${f.claim}`);
}

/** Closes that end a review before its verdicts for reasons outside the change itself. */
const INFRASTRUCTURE: ReadonlySet<TerminationReason> = new Set(['error', 'budget_exhausted', 'time_limit', 'cut']);

/** What fails a review at each bar: severities whose PROVEN findings count, and whether CONTESTED counts too. */
const BAR: Record<FailOn, { severities: readonly Severity[]; contested: boolean }> = {
  blocking: { severities: ['blocking'], contested: false },
  major: { severities: ['blocking', 'major'], contested: false },
  contested: { severities: ['blocking', 'major'], contested: true },
};

/**
 * The quorum of a panel of `panel` reviewers: more than half of them. A finding at or above the
 * bar must be counted from at least this many positions (docs/review.md, "Quorum").
 */
export function reviewQuorum(panel: number): number {
  return Math.floor(panel / 2) + 1;
}

/** The review's findings, its exit code and, for exit 3, why. */
export function reviewOutcome(state: MeetingState, failOn: FailOn): ReviewOutcome {
  const judged = state.options.flatMap((o) =>
    o.finding ? [{ ...o.finding, ...judgedOption(state, o.id, o.finding) }] : [],
  );
  const findings = judged.map(({ positions: _, ...f }) => ({
    ...f,
    verdict: f.verdict ?? ('INSUFFICIENT_EVIDENCE' as const),
  }));
  findings.sort(
    (a, b) =>
      SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
      a.file.localeCompare(b.file) ||
      a.lines.start - b.lines.start ||
      a.id.localeCompare(b.id, undefined, { numeric: true }),
  );
  const scope = state.config.review;
  const bar = BAR[failOn];
  const why =
    couldNotReview(
      state,
      judged.some((f) => f.verdict === undefined),
    ) ??
    uncounted(state, judged, bar.severities) ??
    rulebookUnread(scope);
  const applied = applyExceptions(findings, scope?.exceptions ?? []);
  const base = {
    findings: applied.findings,
    ...(scope ? { scope } : {}),
    ...(applied.exceptions.length ? { exceptions: applied.exceptions } : {}),
  };
  if (why) return { ...base, exit: REVIEW_EXIT.couldNotReview, why };
  if (failsTheBar(applied.findings, failOn)) return { ...base, exit: REVIEW_EXIT.failed };
  // A review that found nothing passes only when it read every file a decision governs.
  const unread = unreadGoverned(scope);
  return unread ? { ...base, exit: REVIEW_EXIT.couldNotReview, why: unread } : { ...base, exit: REVIEW_EXIT.clean };
}

/** Whether these findings fail a review at `failOn` (exit 1; a waived finding fails no bar): one definition for the review and its eval. */
export function failsTheBar(
  findings: readonly Pick<ReviewedFinding, 'severity' | 'verdict' | 'waived'>[],
  failOn: FailOn,
): boolean {
  const bar = BAR[failOn];
  return findings.some(
    (f) =>
      !f.waived &&
      bar.severities.includes(f.severity) &&
      (f.verdict === 'PROVEN' || (bar.contested && f.verdict === 'CONTESTED')),
  );
}

/**
 * One option's verdict (REFUTED at once when refuted mechanically) and votes, from the last round
 * that judged it, and its positions: the reviewers who proposed it or cast a vote on it that was read.
 */
function judgedOption(
  s: MeetingState,
  id: string,
  finding: Finding,
): { id: string; verdict: Verdict | undefined; votes: FindingVote[]; positions: Set<string> } {
  if (finding.refuted !== undefined) return { id, verdict: 'REFUTED', votes: [], positions: new Set() };
  const round = [...s.rounds].reverse().find((r) => r.verdict?.results.some((x) => x.option === id));
  const verdict = round?.verdict?.results.find((x) => x.option === id)?.verdict;
  const cast = Object.entries(votingRoundOf(s, id)?.ballots ?? {}).flatMap(([worker, b]) =>
    b.votes.filter((v) => v.option === id).map((v) => ({ worker, v })),
  );
  const votes = cast.map(({ worker, v }) => ({
    worker,
    vote: v.vote,
    confidence: v.confidence,
    rationale: v.rationale,
  }));
  const positions = new Set([...(finding.proposedBy ?? []), ...cast.filter(({ v }) => !v.unread).map((c) => c.worker)]);
  return { id, verdict, votes, positions };
}

/**
 * The round whose ballots hold the votes on a finding that count: the last that voted on it. A
 * review's challenge round votes only on the findings the round before left CONTESTED; its verdict
 * carries the others' as they stood.
 */
export function votingRoundOf(s: MeetingState, option: string): RoundState | undefined {
  return [...s.rounds]
    .reverse()
    .find((r) => Object.values(r.ballots).some((b) => b.votes.some((v) => v.option === option)));
}

/**
 * Which vote a worker has on an option as the voting matrices show it: for a review, the one in the
 * round that voted on the finding (`votingRoundOf`, looked up once here for the option), else the one
 * in the ballot given (the worker's in the last round shown). A `proposed` vote is a reviewer's own
 * finding: its accept, not a vote it was asked for. Each view writes the vote in its own words.
 */
export function shownVotesOn(
  s: MeetingState,
  option: string,
): (worker: string, ballot: Ballot | undefined) => OptionVote | undefined {
  const voting = s.config.review ? votingRoundOf(s, option) : undefined;
  return (worker, ballot) => (voting?.ballots[worker] ?? ballot)?.votes.find((v) => v.option === option);
}

/**
 * Why the votes could not be counted, in one line, or undefined when they could: votes were asked
 * in the last vote and none could be read (a proposal's accept is no vote read), or a standing
 * finding at or above the bar has fewer positions than the quorum.
 */
function uncounted(
  s: MeetingState,
  judged: (Finding & { id: string; positions: Set<string> })[],
  bar: readonly Severity[],
): string | undefined {
  const panel = workersOf(s).map((w) => w.name);
  const last = [...s.rounds].reverse().find((r) => Object.keys(r.ballots).length > 0);
  // Votes asked (a reviewer's own findings are its accepts, never asked): if any was, one must be read.
  const asked = (w: string) => last?.ballots[w]?.votes.filter((v) => !v.proposed) ?? [];
  const voters = panel.filter((w) => asked(w).length > 0);
  if (voters.length > 0 && voters.every((w) => asked(w).every((v) => v.unread)))
    return capped(`no ballot could be read (${voters.join(', ')}): the findings were not voted on`);
  const quorum = reviewQuorum(panel.length);
  const short = judged.find((f) => f.refuted === undefined && bar.includes(f.severity) && f.positions.size < quorum);
  if (!short) return undefined;
  const silent = panel.filter((w) => !short.positions.has(w));
  return capped(
    `${short.id} (${short.severity}, ${short.file}:${lineNumbers(short.lines)}) was counted from ${short.positions.size} of ${panel.length} reviewers, below the quorum of ${quorum}: no readable vote from ${silent.join(', ')}`,
  );
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

/**
 * Unread is not clean: why the review is incomplete when a changed file an accepted decision
 * governs was not read (the budget, the gate, a binary file), naming the files; undefined when
 * every governed file was read, or the review was asked to pass without them (`unreadAllowed`).
 */
export function unreadGoverned(scope: ReviewScope | undefined): string | undefined {
  const governed = (scope?.unread ?? []).filter((u) => u.governedBy?.length);
  if (governed.length === 0 || scope?.unreadAllowed) return undefined;
  // The line is cut at 300 characters: the first few names are all it can show.
  const named = governed
    .slice(0, 10)
    .map((u) => `${pathForPeople(u.file)} (decision ${(u.governedBy ?? []).join(', ')}: ${u.reason})`);
  return capped(
    `${governed.length} changed file(s) under an accepted decision were not read (--allow-unread passes without them): ${named.join(', ')}`,
  );
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

/**
 * `5 findings: 1 PROVEN (O1), 4 REFUTED (O2, O3, O4, O5; 3 before the vote)`, or that none were
 * found. `findings`: the review's, when the caller has already read its `reviewOutcome`.
 */
export function reviewSummary(
  s: MeetingState,
  findings: readonly ReviewedFinding[] = reviewOutcome(s, 'blocking').findings,
): string {
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

/**
 * A meeting's row in `meeting/list` (`summaryOf`), with a closed review's outcome: the findings it
 * upheld and whether it could not be read or counted whole. The view lists a review as finished.
 */
export function listedSummary(s: MeetingState): MeetingSummary {
  const out = summaryOf(s);
  if (!s.config.review || !s.closed) return out;
  const { findings, exit } = reviewOutcome(s, 'blocking');
  // A finding an exception of the change waives is upheld by the panel but fails nothing.
  const count = (v: Verdict) => findings.filter((f) => f.verdict === v && !f.waived).length;
  return {
    ...out,
    review: { proven: count('PROVEN'), contested: count('CONTESTED'), ...(exit === 3 ? { incomplete: true } : {}) },
  };
}

/** The next steps of a review: fix what was proven, look again at what stayed contested. */
export function reviewNextSteps(s: MeetingState): string[] {
  const { findings } = reviewOutcome(s, 'blocking');
  const proven = findings.filter((f) => f.verdict === 'PROVEN' && !f.waived);
  const contested = findings.filter((f) => f.verdict === 'CONTESTED' && !f.waived);
  const waived = findings.flatMap((f) => (f.waived ? [{ ...f, waived: f.waived }] : []));
  const label = (id: string) => (s.options.find((o) => o.id === id)?.label ?? id).replace(/[.\s]+$/, '');
  return [
    ...proven.map((f) => `Fix ${f.id}: ${label(f.id)}.`),
    ...contested.map((f) => `The panel is split on ${f.id}: read it yourself (${label(f.id)}).`),
    ...waived.map((f) => `${f.id} (${f.verdict}) is ${waiverText(f.waived)}.`),
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
