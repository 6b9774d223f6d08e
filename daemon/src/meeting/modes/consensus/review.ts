/**
 * The steps of a review (a consensus meeting with `config.review`) that differ from a decision's:
 * each reviewer proposes findings alone; the findings are merged, checked mechanically (refuted
 * ones never reach the ballot) and set as the options; the verdict covers the findings voted on
 * and records the refuted ones as REFUTED without a vote. A review never waits for the human.
 */
import type {
  ConsensusOption,
  Finding,
  OptionVote,
  MeetingState,
  OptionResult,
  ReviewScope,
  RoundState,
  Verdict,
} from '@roundtable/protocol';
import { findingLabel, workersOf } from '@roundtable/protocol';
import type { CallOutcome } from '../../modelCall';
import { ballotOptions, reviewOptions } from '../../reviewFindings';
import { readFindings, type FindingsRead } from '../../reviewReply';
import type { ReviewReadContext } from '../../reviewFinding';
import { normalizeStatus } from '../../../decisions/status';
import type { Step } from '../../steps';
import type { StepContext } from '../types';

/** What a reviewer's reply is read against: the change, the rulebook (accepted records first), the workspace. */
export function readContext(s: MeetingState, scope: ReviewScope): ReviewReadContext {
  const accepted = (d: ReviewScope['decisions'][number]) => normalizeStatus(d.status) === 'accepted';
  return {
    changed: scope.changed,
    decisions: [...scope.decisions.filter(accepted), ...scope.decisions.filter((d) => !accepted(d))].map((d) => d.id),
    ...(s.workspace ? { root: s.workspace } : {}),
  };
}

function read(run: StepContext, r: CallOutcome, scope: ReviewScope): FindingsRead | undefined {
  if (!r.ok) return undefined;
  return readFindings(r.result.text, readContext(run.state, scope), { cut: r.result.finishReason === 'length' });
}

/**
 * One reviewer's findings, from its reply to the proposal call. A clean review must be said (an
 * empty list, or "LGTM" with no list). A reply that holds no list, or only part of one (cut off by
 * the token cap, or findings that name no file, line or claim), is asked once more, saying what
 * was wrong; still not whole, and the reviewer failed (exit 3). The findings it did write are
 * proposed either way: a failed reviewer's complete findings still reach the vote.
 */
export async function recordFindings(
  run: StepContext,
  name: string,
  first: CallOutcome,
  askAgain: (reply: string, why: string) => Promise<CallOutcome>,
  scope: ReviewScope,
): Promise<void> {
  let r = first;
  let got = read(run, r, scope);
  const kept: Finding[] = got && got.read !== 'none' ? [...got.findings] : [];
  if (r.ok && got && got.read !== 'complete') {
    r = await askAgain(r.result.text, got.why);
    if (run.halted) return;
    got = read(run, r, scope);
    if (got && got.read !== 'none') kept.push(...got.findings);
  }
  if (!r.ok) await run.failTurn(0, name, r);
  else if (got && got.read !== 'complete')
    await run.failTurn(0, name, {
      ok: false,
      reason: 'error',
      error: `its findings could not be read, asked twice: ${got.why}`,
    });
  await run.emit({ type: 'options_proposed', worker: name, options: kept.map(findingLabel), findings: kept });
}

/** The findings merged and checked, set as the options (none at all is a clean review, not an error). */
export async function setReviewOptions(run: StepContext, scope: ReviewScope): Promise<void> {
  const s = run.state;
  const byReviewer = workersOf(s).map((w): [string, Finding[]] => [w.name, s.proposedFindings?.[w.name] ?? []]);
  await run.emit({ type: 'options_set', options: reviewOptions(byReviewer, scope, s.workspace), source: 'proposed' });
}

/**
 * A proposal counts as its reviewer's accept: on a finding it proposed and has no readable vote
 * on, the reviewer accepts at this confidence (weight 0.5, see verdict.ts), the finding's own
 * lines as evidence. A readable vote, for or against, is the reviewer's word and stands.
 */
export const PROPOSAL_CONFIDENCE = 0.8;

export function proposalVotes(votes: OptionVote[], options: ConsensusOption[], reviewer: string): OptionVote[] {
  return votes.map((v) => {
    const f = options.find((o) => o.id === v.option)?.finding;
    if (!v.unread || !f?.proposedBy?.includes(reviewer)) return v;
    const lines = f.lines.start === f.lines.end ? `line ${f.lines.start}` : `lines ${f.lines.start}-${f.lines.end}`;
    return {
      option: v.option,
      vote: 'accept',
      confidence: PROPOSAL_CONFIDENCE,
      rationale: `proposed this finding (its vote: ${v.rationale})`,
      evidence: [{ file: f.file, section: lines, type: 'code', status: 'unchecked' }],
      proposed: true,
    };
  });
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
