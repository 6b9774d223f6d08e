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
} from '@roundtable/protocol';
import { findingLabel, workersOf } from '@roundtable/protocol';
import { replyCap } from '../../budget';
import { findingsPrompt } from '../../reviewPrompts';
import { ballotOptions, reviewOptions } from '../../reviewFindings';
import { parseFindings } from '../../reviewReply';
import type { Step } from '../../steps';
import type { StepContext } from '../types';
import { contextOptions } from '../../../context/render';
import { FINDINGS_REPLY } from './replySchemas';

/** One reviewer's findings, asked with no peer text. */
export async function proposeFindings(
  run: StepContext,
  scope: ReviewScope,
  name: string,
  share: number,
): Promise<void> {
  const me = run.participant(name);
  if (!me) return;
  const s = run.state;
  const r = await run.call({
    participant: me,
    purpose: 'turn',
    round: 0,
    messages: findingsPrompt(s, me, scope, contextOptions(s)),
    cap: replyCap(s, 'turn'),
    share,
    json: FINDINGS_REPLY,
  });
  if (run.halted) return;
  if (!r.ok) await run.failTurn(0, name, r);
  const findings = r.ok ? (parseFindings(r.result.text) ?? []) : [];
  await run.emit({ type: 'options_proposed', worker: name, options: findings.map(findingLabel), findings });
}

/** The findings merged and checked, set as the options (none at all is a clean review, not an error). */
export async function setReviewOptions(run: StepContext, scope: ReviewScope): Promise<void> {
  const s = run.state;
  const byReviewer = workersOf(s).map((w): [string, Finding[]] => [w.name, s.proposedFindings?.[w.name] ?? []]);
  await run.emit({ type: 'options_set', options: reviewOptions(byReviewer, scope), source: 'proposed' });
}

/** Results of the findings refuted before the vote: REFUTED, with no vote. */
export function refutedResults(options: ConsensusOption[]): OptionResult[] {
  return options
    .filter((o) => o.finding?.refuted !== undefined)
    .map((o) => ({
      option: o.id,
      verdict: 'REFUTED' as const,
      accept: 0,
      reject: 0,
      abstain: 0,
      weightedAccept: 0,
      weightedReject: 0,
      evidenceFor: 0,
      evidenceAgainst: 0,
    }));
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
