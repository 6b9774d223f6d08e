/** Consensus mode's steps: proposals, the options, ballots, verdicts and escalations. */
import type { ConsensusOption, RoundState, ChatMessage } from '@roundtable/protocol';
import { workersOf } from '@roundtable/protocol';
import { replyCap } from '../../budget';
import { ballotPrompt, proposalPrompt } from '../../consensusPrompts';
import { FINDINGS_REPLY, PROPOSALS_REPLY } from './replySchemas';
import type { ModeStep } from '../../steps';
import { decide, escalationReasons, findConflicts, optionResult } from '../../verdict';
import { dedupeOptions, parseProposals } from '../../votes';
import type { StepContext } from '../types';
import { contextOptions } from '../../../context/render';
import { castBallot } from './ballot';
import { recordFindings, reviewBallot, reviewVerdict, setReviewOptions } from './review';
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
  const prompt = scope ? findingsPrompt(s, me, scope) : proposalPrompt(s, me, contextOptions(s));
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

/** One worker's ballot on every option (a review's ballot puts only some findings to each reviewer: review.ts). */
async function ballot(run: StepContext, round: RoundState, name: string, share: number): Promise<void> {
  const me = run.participant(name);
  if (!me) return;
  if (run.state.config.review) return reviewBallot(run, round, me);
  const prompt = ballotPrompt(run.state, me, round, contextOptions(run.state));
  await castBallot(run, { round, me, options: run.state.options, prompt, share, review: false });
}

async function verdict(run: StepContext, r: RoundState): Promise<void> {
  const s = run.state;
  if (s.config.review) return reviewVerdict(run, r);
  const votes = Object.values(r.ballots).flatMap((b) => b.votes);
  const results = s.options.map((o) => optionResult(o.id, votes, r.speakers.length));
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
