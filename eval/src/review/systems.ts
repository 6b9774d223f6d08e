/**
 * The systems a review eval compares, all read from one review meeting of the panel — its log and
 * the state folded from it, never the engine's internals:
 *
 * - `alone:<seat>`: that reviewer's own findings, proposed before it saw anyone else's (the review's
 *   first step is each model reviewing the change alone), read as the review reads them (the file
 *   each names, the record each cites) and unchecked otherwise;
 * - `union`: every reviewer's findings together, unchecked (the naive baseline: concatenate the reviews);
 * - `majority`: the findings — merged as the review merges duplicates — proposed by more than half of the reviewers;
 * - `review`: the full review (proposals, mechanical refutation, the vote): the PROVEN and CONTESTED
 *   findings its report shows, and its exit code.
 *
 * A lone reviewer's findings are all it says, so its gate fails on any of them at the bar. A system
 * whose reviewers did not all answer could not review (exit 3) and reports nothing.
 */
import type { FailOn, Finding, MeetingEvent, MeetingState, Participant, Prices } from '@roundtable/protocol';
import { REVIEW_EXIT, failsTheBar, reviewOutcome, workersOf } from '@roundtable/protocol';
import { reportedFindings } from '../../../daemon/src/review/sarif';
import { findingAsRead } from '../../../daemon/src/review/findingPlace';
import { reviewBills, type SystemBill } from './bill';

export type ReviewExit = 0 | 1 | 3;

/** One system on one case: what it reported, its gate's exit code, what it cost. */
export interface SystemRun {
  name: string;
  findings: Finding[];
  exit: ReviewExit;
  bill: SystemBill;
}

export const aloneName = (seat: string): string => `alone:${seat}`;
export const PANEL_SYSTEMS = ['union', 'majority', 'review'] as const;

/** The systems' names, in report order: each seat alone, then the panel's. */
export function systemNames(seats: readonly string[]): string[] {
  return [...seats.map(aloneName), ...PANEL_SYSTEMS];
}

/** What a system without a vote says: every finding it reports stands. */
function gateOf(findings: readonly Finding[], failOn: FailOn): ReviewExit {
  return failsTheBar(
    findings.map((f) => ({ severity: f.severity, verdict: 'PROVEN' as const })),
    failOn,
  )
    ? REVIEW_EXIT.failed
    : REVIEW_EXIT.clean;
}

/** `could not review`: reports nothing, exit 3. */
const none = (name: string, bill: SystemBill): SystemRun => ({
  name,
  findings: [],
  exit: REVIEW_EXIT.couldNotReview,
  bill,
});

/** Every system's run on the case whose review meeting left `state` and `events`. */
export function reviewSystems(
  state: MeetingState,
  events: readonly MeetingEvent[],
  participants: readonly Participant[],
  failOn: FailOn,
  prices?: Prices,
): SystemRun[] {
  const bills = reviewBills(events, participants, prices);
  const seats = workersOf(state).map((w) => w.name);
  // Each lone reviewer's findings read as the review reads them (file names, record ids), so the
  // systems differ in what they report, not in how a citation is spelled.
  const scope = state.config.review;
  const proposed = Object.fromEntries(
    Object.entries(state.proposedFindings ?? {}).map(([seat, list]) => [
      seat,
      scope ? list.map((f) => findingAsRead(f, scope, state.workspace)) : list,
    ]),
  );
  const answered = (seat: string) => proposed[seat] !== undefined && !state.proposalFailures?.[seat];
  const alone = seats.map((seat): SystemRun => {
    const bill = bills.alone[seat] ?? bills.proposals;
    if (!answered(seat)) return none(aloneName(seat), bill);
    const findings = proposed[seat] ?? [];
    return { name: aloneName(seat), findings, exit: gateOf(findings, failOn), bill };
  });
  const everyone = seats.length > 0 && seats.every(answered);
  const union = seats.flatMap((s) => proposed[s] ?? []);
  const majority = state.options.flatMap((o) =>
    o.finding && (o.finding.proposedBy?.length ?? 0) * 2 > seats.length ? [o.finding] : [],
  );
  const outcome = reviewOutcome(state, failOn);
  const shown = outcome.exit === REVIEW_EXIT.couldNotReview ? [] : reportedFindings(outcome);
  return [
    ...alone,
    everyone
      ? { name: 'union', findings: union, exit: gateOf(union, failOn), bill: bills.proposals }
      : none('union', bills.proposals),
    everyone && state.optionsSeq > 0
      ? { name: 'majority', findings: majority, exit: gateOf(majority, failOn), bill: bills.proposals }
      : none('majority', bills.proposals),
    { name: 'review', findings: shown, exit: outcome.exit, bill: bills.review },
  ];
}
