/** Consensus mode's steps: proposals, the options, ballots, verdicts and escalations. */
import type { ConsensusOption, OptionResult, RoundState, ChatMessage } from '@roundtable/protocol';
import { workersOf } from '@roundtable/protocol';
import { replyCap } from '../../budget';
import { ballotPrompt, ballotRetryPrompt, proposalPrompt } from '../../consensusPrompts';
import { FINDINGS_REPLY, PROPOSALS_REPLY, ballotReply } from './replySchemas';
import type { ModeStep } from '../../steps';
import { decide, escalationReasons, findConflicts, optionResult } from '../../verdict';
import {
  NO_VOTE,
  abstainAll,
  dedupeOptions,
  mergeBallots,
  parseBallot,
  parseProposals,
  type BallotCheck,
} from '../../votes';
import type { StepContext } from '../types';
import { contextOptions } from '../../../context/render';
import { ballotOptions } from '../../reviewFindings';
import { proposalVotes, recordFindings, refutedResults, reviewReasons, setReviewOptions } from './review';
import { findingsPrompt, findingsRetryPrompt } from '../../reviewPrompts';

export async function performConsensus(step: ModeStep, run: StepContext): Promise<void> {
  switch (step.kind) {
    case 'propose':
      await Promise.all(step.pending.map((w) => propose(run, w, step.pending.length)));
      return;
    case 'set_options':
      return run.state.config.review ? setReviewOptions(run, run.state.config.review) : setOptions(run);
    case 'ballots':
      await Promise.all(step.pending.map((w) => ballot(run, step.round, w, step.pending.length)));
      return;
    case 'verdict':
      return verdict(run, step.round);
    case 'escalate':
      await run.emit({ type: 'escalated', reasons: step.round.verdict?.reasons ?? [] });
      return;
    default:
      throw new Error(`${step.kind} is not a consensus step`);
  }
}

/** One worker proposes options (in a review: findings, alone; see review.ts). */
async function propose(run: StepContext, name: string, share: number): Promise<void> {
  const me = run.participant(name);
  if (!me) return;
  const s = run.state;
  const scope = s.config.review;
  const prompt = scope ? findingsPrompt(s, me, scope, contextOptions(s)) : proposalPrompt(s, me, contextOptions(s));
  const ask = (messages: ChatMessage[]) =>
    run.call({
      participant: me,
      purpose: 'turn',
      round: 0,
      messages,
      cap: replyCap(s, scope ? 'findings' : 'turn'),
      share,
      json: scope ? FINDINGS_REPLY : PROPOSALS_REPLY,
    });
  const r = await ask(prompt);
  if (run.halted) return;
  if (scope) return recordFindings(run, name, r, (reply, why) => ask(findingsRetryPrompt(prompt, reply, why)), scope);
  if (!r.ok) await run.failTurn(0, name, r);
  await run.emit({ type: 'options_proposed', worker: name, options: r.ok ? parseProposals(r.result.text) : [] });
}

async function setOptions(run: StepContext): Promise<void> {
  const s = run.state;
  const given = s.requestedOptions?.length ? s.requestedOptions : undefined;
  const labels = given
    ? dedupeOptions([given], 20)
    : dedupeOptions(
        workersOf(s).map((w) => s.proposals[w.name] ?? []),
        s.config.maxOptions,
      );
  if (labels.length < 2) {
    await run.emit({
      type: 'meeting_closed',
      reason: 'error',
      detail: `a consensus needs at least 2 distinct options; ${given ? 'the options given' : 'the workers proposed'} ${labels.length}`,
    });
    return;
  }
  const options: ConsensusOption[] = labels.map((label, i) => ({ id: `O${i + 1}`, label }));
  await run.emit({ type: 'options_set', options, source: given ? 'user' : 'proposed' });
}

/** What sends a ballot back once: nothing read, a vote that could not be read, or (a review) a finding left without a vote. */
function retryReason(check: BallotCheck, review: boolean): string | undefined {
  if (!check.ok) return check.reason;
  const missing = review && check.missing.length ? [`no vote on ${check.missing.join(', ')}`] : [];
  const all = [...check.problems, ...missing];
  return all.length ? all.slice(0, 3).join('; ') + (all.length > 3 ? ` (and ${all.length - 3} more)` : '') : undefined;
}

/**
 * One worker's ballot, asked once more when a vote could not be read, evidence checked. One bad
 * vote costs that vote: the votes read in either answer are kept, the rest recorded unread. In a
 * review, a finding the worker proposed and has no readable vote on counts as its accept.
 */
async function ballot(run: StepContext, round: RoundState, name: string, share: number): Promise<void> {
  const s = run.state;
  const me = run.participant(name);
  if (!me) return;
  const review = s.config.review !== undefined;
  // A review's findings refuted before the vote are not on the ballot.
  const options = review ? ballotOptions(s.options) : s.options;
  const prompt = ballotPrompt(s, me, round, contextOptions(s));
  const ask = (messages: typeof prompt) =>
    run.call({
      participant: me,
      purpose: 'turn',
      round: round.round,
      messages,
      cap: replyCap(s, 'ballot'),
      share,
      json: ballotReply(options.map((o) => o.id)),
    });
  let r = await ask(prompt);
  if (run.halted) return;
  const first: BallotCheck = r.ok ? parseBallot(r.result.text, options) : { ok: false, reason: r.error };
  let check = first;
  const again = r.ok ? retryReason(first, review) : undefined;
  if (again !== undefined && r.ok) {
    r = await ask(ballotRetryPrompt(prompt, r.result.text, again));
    if (run.halted) return;
    check = r.ok ? parseBallot(r.result.text, options) : { ok: false, reason: r.error };
  }
  if (!r.ok) await run.failTurn(round.round, name, r);
  const spoken = run.fit(r.ok ? r.result.text : '');
  if (!spoken) return run.checkBudget();
  const given =
    again === undefined
      ? check.ok
        ? check.votes
        : abstainAll(options, check.reason)
      : mergeBallots(first, check, options);
  const votes = review ? proposalVotes(given, options, name) : given;
  const checker = run.deps.checkEvidence;
  if (checker) {
    for (const v of votes) for (const e of v.evidence) e.status = await checker(e.file);
  }
  // Invalid: a vote that could not be read (in a review, also a finding left without a vote).
  const invalid = votes.some((v) => v.unread && (review || v.rationale !== NO_VOTE));
  await run.emit({
    type: 'ballot_recorded',
    round: round.round,
    worker: name,
    votes,
    valid: !invalid,
    retried: again !== undefined,
    ...(invalid ? { invalidReason: retryReason(check, review) ?? again ?? 'a vote could not be read' } : {}),
    ...(r.ok && r.result.fromReasoning ? { fromReasoning: true as const } : {}),
    tokens: spoken.tokens,
  });
  await run.checkBudget();
}

async function verdict(run: StepContext, r: RoundState): Promise<void> {
  const s = run.state;
  const votes = Object.values(r.ballots).flatMap((b) => b.votes);
  const voted = s.config.review ? ballotOptions(s.options) : s.options;
  const results = voted.map((o) => optionResult(o.id, votes, r.speakers.length));
  if (s.config.review) return reviewVerdict(run, r, [...results, ...refutedResults(s.options)]);
  const { decision, actualConsensus } = decide(results);
  const first = s.rounds.find((x) => x.round === 1);
  const conflicts = findConflicts(r.ballots, s.options, first === r ? undefined : first?.ballots, results);
  const threshold = s.config.consensusThreshold;
  const reasons = escalationReasons({
    results,
    actualConsensus,
    threshold,
    conflicts,
    ballots: r.ballots,
    ...(decision ? { decision } : {}),
  });
  // Challenge rounds are for disagreement; a unanimity that looks too good goes to the human at once.
  const onlyUnanimity = reasons.length > 0 && reasons.every((x) => x.startsWith('suspicious unanimity'));
  const final = r.final || reasons.length === 0 || onlyUnanimity;
  await run.emit({
    type: 'verdict_computed',
    round: r.round,
    results,
    ...(decision ? { decision } : {}),
    actualConsensus,
    consensusThreshold: threshold,
    conflicts,
    reasons,
    final,
  });
}

/** A review's verdict: per finding, no decision between them; another round only for contested findings while challenge rounds are left. */
async function reviewVerdict(run: StepContext, r: RoundState, results: OptionResult[]): Promise<void> {
  const s = run.state;
  const first = s.rounds.find((x) => x.round === 1);
  const reasons = reviewReasons(results);
  await run.emit({
    type: 'verdict_computed',
    round: r.round,
    results,
    actualConsensus: decide(results).actualConsensus,
    consensusThreshold: s.config.consensusThreshold,
    // Workers accepting different findings is no conflict in a review (a change may hold several
    // defects): only disagreement on one finding is.
    conflicts: findConflicts(r.ballots, ballotOptions(s.options), first === r ? undefined : first?.ballots, results)
      .filter((c) => c.conflictType === 'contradiction' || c.conflictType === 'scope-difference')
      .map((c, i) => ({ ...c, conflictId: `C${i + 1}` })),
    reasons,
    final: r.final || reasons.length === 0,
  });
}
