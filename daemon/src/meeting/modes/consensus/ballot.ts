/**
 * One worker's ballot: asked, asked once more when a vote could not be read, its evidence
 * checked, recorded. A decision's vote puts every option to every worker; a review puts to each
 * reviewer only the findings its vote can still decide, and records its own findings as its
 * accepts with the ballot (review.ts).
 */
import type { ChatMessage, ConsensusOption, OptionVote, Participant, RoundState } from '@roundtable/protocol';
import { replyCap } from '../../budget';
import { ballotRetryPrompt } from '../../consensusPrompts';
import { NO_VOTE, mergeBallots, parseBallot, type BallotCheck } from '../../votes';
import type { StepContext } from '../types';
import { ballotReply } from './replySchemas';

/** What sends a ballot back once: nothing read, a vote that could not be read, or (a review) a finding left without a vote. */
function retryReason(check: BallotCheck, review: boolean): string | undefined {
  if (!check.ok) return check.reason;
  const missing = review && check.missing.length ? [`no vote on ${check.missing.join(', ')}`] : [];
  const all = [...check.problems, ...missing];
  return all.length ? all.slice(0, 3).join('; ') + (all.length > 3 ? ` (and ${all.length - 3} more)` : '') : undefined;
}

export interface BallotAsk {
  round: RoundState;
  me: Participant;
  /** The options put to this worker. */
  options: ConsensusOption[];
  prompt: ChatMessage[];
  /** How many ballots are asked at once (they share what is left of the budget). */
  share: number;
  /** A review: a finding left without a vote sends the ballot back too, and any unread vote makes it invalid. */
  review: boolean;
  /**
   * Votes recorded with the ballot that were not asked: a reviewer's own findings, as its accepts,
   * their evidence checked already (review.ts checks each finding's file once), so not again here.
   */
  own?: OptionVote[];
}

/** Votes in the order of the meeting's options. */
function inOptionOrder(run: StepContext, votes: OptionVote[]): OptionVote[] {
  const at = new Map(run.state.options.map((o, i) => [o.id, i]));
  return [...votes].sort((a, b) => (at.get(a.option) ?? 0) - (at.get(b.option) ?? 0));
}

async function checkEvidence(run: StepContext, votes: OptionVote[]): Promise<void> {
  const checker = run.deps.checkEvidence;
  if (!checker) return;
  for (const v of votes) for (const e of v.evidence) e.status = await checker(e.file);
}

/**
 * Asks one worker's ballot and records it. One bad vote costs that vote: the votes read in
 * either answer are kept, the rest recorded unread.
 */
export async function castBallot(run: StepContext, a: BallotAsk): Promise<void> {
  const s = run.state;
  const { round, me, options, review } = a;
  const ask = (messages: ChatMessage[]) =>
    run.call({
      participant: me,
      purpose: 'turn',
      round: round.round,
      messages,
      cap: replyCap(s, 'ballot', options.length),
      share: a.share,
      json: ballotReply(options.map((o) => o.id)),
    });
  let r = await ask(a.prompt);
  if (run.halted) return;
  const first: BallotCheck = r.ok ? parseBallot(r.result.text, options) : { ok: false, reason: r.error };
  let check = first;
  const again = r.ok ? retryReason(first, review) : undefined;
  if (again !== undefined && r.ok) {
    r = await ask(ballotRetryPrompt(a.prompt, r.result.text, again));
    if (run.halted) return;
    check = r.ok ? parseBallot(r.result.text, options) : { ok: false, reason: r.error };
  }
  if (!r.ok) await run.failTurn(round.round, me.name, r);
  const spoken = run.fit(r.ok ? r.result.text : '');
  if (!spoken) return run.checkBudget();
  const given = mergeBallots(first, check, options);
  await checkEvidence(run, given);
  const votes = inOptionOrder(run, [...given, ...(a.own ?? [])]);
  // Invalid: a vote that could not be read (in a review, also a finding left without a vote).
  const invalid = votes.some((v) => v.unread && (review || v.rationale !== NO_VOTE));
  await run.emit({
    type: 'ballot_recorded',
    round: round.round,
    worker: me.name,
    votes,
    valid: !invalid,
    retried: again !== undefined,
    ...(invalid ? { invalidReason: retryReason(check, review) ?? again ?? 'a vote could not be read' } : {}),
    ...(r.ok && r.result.fromReasoning ? { fromReasoning: true as const } : {}),
    tokens: spoken.tokens,
  });
  await run.checkBudget();
}

/**
 * A reviewer asked nothing (its vote decides no finding): its own findings recorded as its accepts,
 * with no call. Their evidence was checked when they were made (review.ts), so not again here.
 */
export async function recordUnasked(
  run: StepContext,
  round: RoundState,
  me: Participant,
  own: OptionVote[],
): Promise<void> {
  const votes = inOptionOrder(run, own);
  await run.emit({
    type: 'ballot_recorded',
    round: round.round,
    worker: me.name,
    votes,
    valid: true,
    retried: false,
    tokens: 0,
  });
}
