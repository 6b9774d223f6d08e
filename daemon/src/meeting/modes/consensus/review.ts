/**
 * The steps of a review (a consensus meeting with `config.review`) that differ from a decision's:
 * each reviewer proposes findings alone; the findings are merged, checked mechanically (refuted
 * ones never reach the ballot) and set as the options; the verdict covers the findings voted on
 * and records the refuted ones as REFUTED without a vote. A review never waits for the human.
 */
import type {
  ConsensusOption,
  Finding,
  MeetingState,
  OptionResult,
  ReviewScope,
  RoundState,
  Verdict,
} from '@roundtable/protocol';
import { findingLabel, workersOf } from '@roundtable/protocol';
import type { CallOutcome } from '../../modelCall';
import { ballotOptions, reviewOptions } from '../../reviewFindings';
import { parseFindings } from '../../reviewReply';
import type { Step } from '../../steps';
import type { StepContext } from '../types';

/**
 * One reviewer's findings, from its reply to the proposal call. A reply that holds no findings
 * list is asked once more; still none, and the reviewer failed (exit 3): silence is no clean review.
 */
export async function recordFindings(
  run: StepContext,
  name: string,
  first: CallOutcome,
  askAgain: (reply: string) => Promise<CallOutcome>,
): Promise<void> {
  let r = first;
  let findings = r.ok ? parseFindings(r.result.text) : undefined;
  if (r.ok && findings === undefined) {
    r = await askAgain(r.result.text);
    if (run.halted) return;
    findings = r.ok ? parseFindings(r.result.text) : undefined;
  }
  if (!r.ok) await run.failTurn(0, name, r);
  else if (findings === undefined)
    await run.failTurn(0, name, { ok: false, reason: 'error', error: 'its reply held no findings list, asked twice' });
  const list = findings ?? [];
  await run.emit({ type: 'options_proposed', worker: name, options: list.map(findingLabel), findings: list });
}

/** The findings merged and checked, set as the options (none at all is a clean review, not an error). */
export async function setReviewOptions(run: StepContext, scope: ReviewScope): Promise<void> {
  const s = run.state;
  const byReviewer = workersOf(s).map((w): [string, Finding[]] => [w.name, s.proposedFindings?.[w.name] ?? []]);
  await run.emit({ type: 'options_set', options: reviewOptions(byReviewer, scope), source: 'proposed' });
}

/** A result with no vote counted, with the verdict given. */
export function bareResult(option: string, verdict: Verdict): OptionResult {
  const zero = { accept: 0, reject: 0, abstain: 0, weightedAccept: 0, weightedReject: 0 };
  return { option, verdict, ...zero, evidenceFor: 0, evidenceAgainst: 0 };
}

/** Results of the findings refuted before the vote: REFUTED, with no vote. */
export function refutedResults(options: ConsensusOption[]): OptionResult[] {
  return options.filter((o) => o.finding?.refuted !== undefined).map((o) => bareResult(o.id, 'REFUTED'));
}

/** What would take a review to another round: findings the panel neither proved nor refuted. */
export function reviewReasons(results: OptionResult[]): string[] {
  const open = results.filter((r) => r.verdict === 'CONTESTED').map((r) => r.option);
  return open.length ? [`contested findings: ${open.join(', ')}`] : [];
}

/** A review's plan where it differs: it closes with no finding to vote on, and closes (never escalates) after its verdict. */
export function planReview(s: MeetingState, r: RoundState | undefined): Step | undefined {
  const voted = ballotOptions(s.options).length;
  const refuted = s.options.length - voted;
  if (!r && s.optionsSeq > 0 && voted === 0) {
    const failed = Object.keys(s.proposalFailures ?? {}).length;
    // Nobody reviewed: that is no clean review, and reviewOutcome says so (exit 3).
    if (failed > 0 && failed >= workersOf(s).length)
      return { kind: 'close', reason: 'error', detail: `every reviewer failed (${failed})` };
    const detail =
      refuted === 0 ? 'the reviewers found nothing' : `every finding (${refuted}) was refuted before the vote`;
    return { kind: 'close', reason: 'verdict_reached', detail };
  }
  if (r?.verdict && s.reopenedAfterRound !== r.round && (r.verdict.final || r.verdict.reasons.length === 0)) {
    const detail = `${voted} finding${voted === 1 ? '' : 's'} voted on${refuted ? `, ${refuted} refuted before the vote` : ''}`;
    return { kind: 'close', reason: 'verdict_reached', detail };
  }
  return undefined;
}
