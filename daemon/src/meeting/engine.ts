/**
 * The roundtable engine. It decides the next step purely from the folded state (`nextStep`),
 * performs it through injected providers, clock and store, and appends the outcome as events.
 * Because every decision is read back from the log, a meeting reloaded after a crash continues
 * from its next missing step and never redoes a completed reply.
 */
import type {
  CallPurpose,
  ConsensusOption,
  DecisionKind,
  Evidence,
  EventBody,
  MeetingConfig,
  MeetingEvent,
  MeetingState,
  MessageDelta,
  Participant,
  RoundState,
  StartMeetingParams,
  TerminationReason,
} from '../../../protocol/src';
import { DEFAULT_CONFIG, currentRound, evolve, fold, workersOf } from '../../../protocol/src';
import { countTokens, truncateToTokens } from '../providers/tokens';
import { ProviderError, type ChatMessage, type ChatProvider, type ChatResult } from '../providers/types';
import type { EventStore } from '../store/types';
import type { Clock } from './clock';
import { evaluateConsensus } from './consensus';
import { buildDigest, parseDigestReply, renderDigest } from './digest';
import { parseJudge } from './judge';
import { speakingOrder } from './order';
import {
  ballotPrompt,
  ballotRetryPrompt,
  briefingPrompt,
  digestPrompt,
  judgePrompt,
  proposalPrompt,
  summaryPrompt,
  workerPrompt,
} from './prompts';
import { decide, escalationReasons, findConflicts, optionResult } from './verdict';
import { abstainAll, dedupeOptions, parseBallot, parseProposals } from './votes';
import { isPass, parseStance } from './stance';
import { decide as decideCommand, type Command } from './commands';
import { newMessageId } from './ids';

export interface EngineDeps {
  store: EventStore;
  /** The provider that answers for a participant. */
  providerFor: (p: Participant) => ChatProvider;
  clock: Clock;
  /** Live streaming of messages as they are written (not logged). */
  onDelta?: (d: MessageDelta) => void;
  /** Every appended event, in order, once durable. */
  onEvent?: (e: MeetingEvent) => void;
  /**
   * Wraps every model call, e.g. to limit concurrency per endpoint so one busy meeting cannot
   * starve the others. Defaults to calling straight through.
   */
  schedule?: <T>(p: Participant, call: () => Promise<T>) => Promise<T>;
  /** Consensus mode: whether a cited file exists in the workspace. Unchecked when absent. */
  checkEvidence?: (file: string) => Promise<Evidence['status']>;
}

export const FINAL_ROUND_ANNOUNCEMENT = 'Final round — make it count.';
/** Share of the budget at which the final round is announced. */
export const BUDGET_WARNING_RATIO = 0.8;

export type Step =
  | { kind: 'briefing' }
  | { kind: 'start_round'; round: number; final: boolean }
  | { kind: 'turns'; round: RoundState; pending: string[] }
  | { kind: 'stance'; round: RoundState; worker: string }
  | { kind: 'consensus'; round: RoundState }
  | { kind: 'judge'; round: RoundState }
  | { kind: 'summary'; round: RoundState }
  | { kind: 'close'; reason: TerminationReason; detail?: string }
  | { kind: 'digest' }
  | { kind: 'done' }
  | { kind: 'propose'; pending: string[] }
  | { kind: 'set_options' }
  | { kind: 'ballots'; round: RoundState; pending: string[] }
  | { kind: 'verdict'; round: RoundState }
  | { kind: 'escalate'; round: RoundState }
  | { kind: 'await_human' };

function allPassed(s: MeetingState): boolean {
  return workersOf(s).every((w) => s.passed.includes(w.name));
}

/**
 * The next step of a meeting, from its state alone. Order within a round: every worker speaks,
 * stances are recorded, consensus is evaluated, the judge reviews (only when there is no
 * consensus), the assistant updates the summary, then the meeting ends or the next round starts.
 */
export function nextStep(s: MeetingState): Step {
  if (s.status === 'closed') return s.digest ? { kind: 'done' } : { kind: 'digest' };
  const ask = s.closeRequest;
  const close = ask
    ? { kind: 'close' as const, reason: ask.reason, ...(ask.detail ? { detail: ask.detail } : {}) }
    : undefined;
  if (close && ask && !ask.graceful) return close;
  // A graceful close waits for the round in progress: it is honoured at the next round boundary.
  const step = planFrom(s);
  if (close && (step.kind === 'start_round' || step.kind === 'briefing' || step.kind === 'await_human')) return close;
  return step;
}

function planFrom(s: MeetingState): Step {
  if (s.status === 'awaiting_human') return { kind: 'await_human' };
  if (!s.briefing) return { kind: 'briefing' };
  if (s.mode === 'consensus') return nextConsensusStep(s);
  const r = currentRound(s);
  if (!r) return { kind: 'start_round', round: 1, final: s.config.maxRounds === 1 || s.finalRound === 1 };
  for (const w of r.speakers) {
    if (r.contributions[w] && !r.stances[w]) return { kind: 'stance', round: r, worker: w };
  }
  const pending = r.speakers.filter((w) => !r.stances[w]);
  if (pending.length > 0) return { kind: 'turns', round: r, pending };
  if (r.speakers.length > 0 && r.speakers.every((w) => r.failures[w]?.reason === 'error')) {
    const detail = Object.values(r.failures)[0]?.detail ?? 'every worker failed';
    return { kind: 'close', reason: 'error', detail: `every worker's turn failed in round ${r.round}: ${detail}` };
  }
  if (!r.consensus) return { kind: 'consensus', round: r };
  const judge = s.participants.find((p) => p.role === 'judge');
  if (judge && r.consensus.level === 'NONE' && !r.judge) return { kind: 'judge', round: r };
  if (r.summary === undefined) return { kind: 'summary', round: r };
  if (s.reopenedAfterRound === r.round) return { kind: 'start_round', round: r.round + 1, final: true };
  if (r.consensus.level === 'FULL') return { kind: 'close', reason: 'consensus_full' };
  if (r.consensus.level === 'MAJORITY') return { kind: 'close', reason: 'consensus_majority' };
  if (r.judge?.converged) return { kind: 'close', reason: 'judge_converged', detail: r.judge.converged };
  if (allPassed(s)) return { kind: 'close', reason: 'all_passed' };
  if (s.finalRound !== undefined && r.round >= s.finalRound) {
    return { kind: 'close', reason: 'budget_exhausted', detail: 'final round after the 80% budget mark' };
  }
  if (s.reopenedAfterRound !== undefined && r.round > s.reopenedAfterRound) {
    return { kind: 'close', reason: 'max_rounds', detail: 'the extra round the human asked for is done' };
  }
  if (r.round >= s.config.maxRounds) return { kind: 'close', reason: 'max_rounds' };
  const next = r.round + 1;
  return { kind: 'start_round', round: next, final: next >= s.config.maxRounds || s.finalRound === next };
}

/**
 * Consensus mode: options (given, or proposed and deduplicated), a first vote, then challenge
 * rounds while the votes do not settle the question, then the verdict or an escalation.
 */
function nextConsensusStep(s: MeetingState): Step {
  const workers = workersOf(s).map((w) => w.name);
  if (s.options.length === 0) {
    if (s.requestedOptions && s.requestedOptions.length > 0) return { kind: 'set_options' };
    const pending = workers.filter((w) => !s.proposals[w]);
    return pending.length > 0 ? { kind: 'propose', pending } : { kind: 'set_options' };
  }
  const r = currentRound(s);
  if (!r) return { kind: 'start_round', round: 1, final: s.config.challengeRounds === 0 };
  const pending = r.speakers.filter((w) => !r.ballots[w]);
  if (pending.length > 0) return { kind: 'ballots', round: r, pending };
  if (!r.verdict) return { kind: 'verdict', round: r };
  if (r.resolution) {
    if (r.resolution.action === 'pick')
      return { kind: 'close', reason: 'human_decided', detail: `the human picked ${r.resolution.option ?? '?'}` };
    if (r.resolution.action === 'defer')
      return { kind: 'close', reason: 'deferred', detail: 'the human deferred the decision' };
    return { kind: 'start_round', round: r.round + 1, final: true };
  }
  if (r.verdict.reasons.length === 0) {
    return { kind: 'close', reason: 'verdict_reached', detail: `decided for ${r.verdict.decision ?? '?'}` };
  }
  if (r.verdict.final) return r.escalated ? { kind: 'await_human' } : { kind: 'escalate', round: r };
  return { kind: 'start_round', round: r.round + 1, final: r.round >= s.config.challengeRounds };
}

/** A reply this many times over the reply cap is cut, so one runaway model cannot eat the room's budget. */
export const REPLY_CAP_FACTOR = 2;

/**
 * Cuts a runaway reply to twice the reply cap, keeping its end (where the stance marker is) and
 * saying so in the text, so the log and the minutes show the truncation.
 */
export function capReply(text: string, replyMaxTokens: number): string {
  const max = replyMaxTokens * REPLY_CAP_FACTOR;
  if (text.length <= max) return text;
  const tokens = countTokens(text);
  if (tokens <= max) return text;
  const tail = text.slice(-400);
  const head = truncateToTokens(text, max - countTokens(tail) - 30);
  return `${head}\n[… truncated by Roundtable: the reply was ${tokens} tokens, over twice the ${replyMaxTokens}-token reply cap …]\n${tail}`;
}

function abortReason(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  return r instanceof Error ? r.message : typeof r === 'string' ? r : 'aborted';
}

class TurnTimeout extends Error {}

export class Meeting {
  private current: MeetingState;
  private meetingAbort = new AbortController();
  /** Set the moment a cut is asked for, before it is logged: no reply is recorded after it. */
  private cutting = false;
  /** The cut being logged; the loop plans nothing new until it is in the state. */
  private cutLogged: Promise<void> = Promise.resolve();
  private appendChain: Promise<unknown> = Promise.resolve();
  private running: Promise<MeetingState> | undefined;
  private cancelTimeLimit: (() => void) | undefined;
  private warning: Promise<void> | undefined;
  /** Set when rebuilt from a log: the first run records the interruption. */
  private resumed = false;

  private constructor(
    private readonly deps: EngineDeps,
    events: MeetingEvent[],
  ) {
    this.current = fold(events);
  }

  /** The meeting as folded from its log so far (a new object after every event). */
  get state(): MeetingState {
    return this.current;
  }

  /** Opens a new meeting: validated params in, `meeting_opened` appended. */
  static async open(deps: EngineDeps, meetingId: string, params: StartMeetingParams): Promise<Meeting> {
    const config: MeetingConfig = { ...DEFAULT_CONFIG, ...params.config };
    const m = new Meeting(deps, []);
    await m.append(meetingId, {
      type: 'meeting_opened',
      topic: params.topic,
      mode: params.mode,
      config,
      participants: params.participants,
      ...(params.providers ? { providers: params.providers } : {}),
      ...(params.options ? { options: params.options } : {}),
      ...(params.workspace ? { workspace: params.workspace } : {}),
    });
    return m;
  }

  /**
   * Rebuilds a meeting from its log after a restart. Running it records the interruption and
   * continues from the next missing step.
   */
  static async resume(deps: EngineDeps, meetingId: string): Promise<Meeting> {
    const events = await deps.store.load(meetingId);
    if (events.length === 0) throw new Error(`meeting ${meetingId} not found`);
    const m = new Meeting(deps, events);
    // A meeting that stopped before its digest was interrupted; one reopened later by a decision was not.
    m.resumed = m.state.status !== 'closed' || !m.state.digest;
    m.tellProvidersWhatIsDone();
    return m;
  }

  /** Completed calls per participant and purpose, read from the log (what a resume must not redo). */
  private tellProvidersWhatIsDone(): void {
    const s = this.state;
    for (const p of s.participants) {
      const provider = this.deps.providerFor(p);
      if (!provider.skip) continue;
      const consensusCalls =
        (s.proposals[p.name] ? 1 : 0) +
        s.rounds.reduce((n, r) => n + (r.ballots[p.name] ? (r.ballots[p.name]?.retried ? 2 : 1) : 0), 0);
      const counts: [CallPurpose, number][] =
        p.role === 'worker'
          ? [
              [
                'turn',
                s.mode === 'consensus'
                  ? consensusCalls
                  : s.rounds.filter((r) => r.contributions[p.name] || r.failures[p.name]).length,
              ],
            ]
          : p.role === 'judge'
            ? [['judge', s.rounds.filter((r) => r.judge).length]]
            : [
                ['briefing', s.briefing ? 1 : 0],
                ['summary', s.rounds.filter((r) => r.summary !== undefined).length],
                ['digest', s.digest ? 1 : 0],
              ];
      for (const [purpose, n] of counts) if (n > 0) provider.skip(p.name, purpose, n);
    }
  }

  get id(): string {
    return this.state.meetingId;
  }

  /** Runs the meeting to its end (closed with a digest). Safe to call more than once. */
  run(): Promise<MeetingState> {
    if (!this.running && this.state.status !== 'closed' && this.meetingAbort.signal.aborted) {
      // Reopened after a close (another round was asked for): start with a fresh signal.
      this.meetingAbort = new AbortController();
      this.cutting = false;
    }
    this.running ??= this.loop().finally(() => {
      this.cancelTimeLimit?.();
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * Stops driving the meeting without ending it (daemon shutdown): in-flight calls are aborted
   * and nothing more is logged; the meeting resumes from its log on the next start.
   */
  suspend(): void {
    this.suspended = true;
    this.meetingAbort.abort(new Error('the daemon is shutting down'));
  }
  private suspended = false;

  /** True once the loop must stop doing new work. */
  private get halted(): boolean {
    const ask = this.state.closeRequest;
    return this.cutting || this.suspended || (ask !== undefined && !ask.graceful);
  }

  /** Adds a worker (an agent attached mid-meeting); it speaks from the next round. */
  async join(p: Participant): Promise<void> {
    await this.execute({ type: 'join', participant: p });
  }

  /**
   * Decides a command against the state and appends its events; resolves once they are durable,
   * so the caller acknowledges only what is on disk. Throws `CommandRejected` when refused.
   */
  async execute(command: Command): Promise<void> {
    // Decide against a state that has absorbed every append already under way.
    await this.appendChain;
    await Promise.all(decideCommand(command, this.state).map((e) => this.emit(e)));
  }

  /**
   * Ends the meeting at once: the request is logged (so it survives a restart), then in-flight
   * model calls are aborted. Nothing spoken after this moment is recorded.
   */
  async cut(reason: TerminationReason = 'cut', detail?: string): Promise<void> {
    if (this.state.status === 'closed') return;
    this.cutting = true;
    const logged = this.execute({ type: 'cut', reason, ...(detail !== undefined ? { detail } : {}) }).finally(() =>
      this.meetingAbort.abort(new Error(`meeting ended: ${reason}`)),
    );
    this.cutLogged = logged.catch(() => undefined);
    await logged;
  }

  /**
   * Records the human's decision on the digest. `another_round` reopens the meeting for one
   * final round that starts with the instruction as a human post; the caller runs it.
   */
  async decide(decision: DecisionKind, opts: { instruction?: string; digestText?: string } = {}): Promise<void> {
    await this.execute({ type: 'decide', decision, ...opts, messageId: newMessageId() });
  }

  /**
   * Consensus mode: the human's answer to an escalation. `pick` decides for an option, `defer`
   * closes without a decision, `another_round` runs one more challenge round that starts with
   * the instruction. The caller runs the meeting afterwards.
   */
  async resolve(
    action: 'pick' | 'another_round' | 'defer',
    opts: { option?: string; instruction?: string } = {},
  ): Promise<void> {
    await this.execute({ type: 'resolve', action, ...opts, messageId: newMessageId() });
  }

  /** Ends the meeting gracefully once the round in progress is complete; logged before it returns. */
  async close(detail = 'closed by the human'): Promise<void> {
    await this.execute({ type: 'close', detail });
  }

  /** A human post: shown to the workers in the next round as the human's words. */
  async postHuman(text: string, from = 'human'): Promise<string> {
    const messageId = newMessageId();
    await this.execute({ type: 'post', messageId, text, from });
    await this.checkBudget();
    return messageId;
  }

  private async loop(): Promise<MeetingState> {
    if (this.resumed) {
      this.resumed = false;
      await this.emit({ type: 'meeting_interrupted', detail: 'the daemon stopped; resuming from the log' });
    }
    if (this.state.status !== 'closed') this.armTimeLimit();
    for (;;) {
      if (this.suspended) return this.state;
      // Plan from a state that has absorbed every append under way (a cut may be on its way in).
      await this.cutLogged;
      await this.appendChain;
      const step = nextStep(this.state);
      if (step.kind === 'done') return this.state;
      if (step.kind === 'await_human') {
        // Paused, nothing lost: the meeting waits in its log for the human's answer.
        this.cancelTimeLimit?.();
        return this.state;
      }
      await this.perform(step);
    }
  }

  private armTimeLimit(): void {
    const s = this.state;
    // Time spent waiting for the human is not the meeting's: after an escalation the limit no longer applies.
    if (s.resolutions.length > 0) return;
    const elapsed = this.deps.clock.now() - s.openedAt;
    const remaining = Math.max(0, s.config.timeLimitMs - elapsed);
    this.cancelTimeLimit = this.deps.clock.setTimer(remaining, () => {
      this.cut('time_limit', `the meeting ran past its ${Math.round(s.config.timeLimitMs / 1000)} s limit`).catch(
        () => undefined,
      );
    });
  }

  private async perform(step: Step): Promise<void> {
    const s = this.state;
    switch (step.kind) {
      case 'briefing': {
        const assistant = this.assistant();
        const r = await this.call(
          assistant,
          'briefing',
          0,
          briefingPrompt(s, assistant),
          300,
          this.meetingAbort.signal,
        );
        if (this.halted) return;
        const text = r.ok
          ? r.result.text.trim()
          : `Topic: ${s.topic}. (The assistant could not open the meeting: ${r.error}.)`;
        await this.post(assistant, 0, 'briefing', text || `Topic: ${s.topic}.`);
        return;
      }
      case 'start_round': {
        const previous = currentRound(s);
        const active = workersOf(s)
          .map((w) => w.name)
          .filter((w) => !s.passed.includes(w));
        const speakers = speakingOrder(active, s.config.order, s.config.seed, step.round, previous?.speakers.at(-1));
        await this.emit({ type: 'round_started', round: step.round, speakers, final: step.final });
        return;
      }
      case 'stance': {
        const m = step.round.contributions[step.worker];
        if (m) await this.recordStance(step.round.round, step.worker, m.text);
        return;
      }
      case 'turns':
        if (s.config.order === 'parallel') {
          await Promise.all(step.pending.map((w) => this.turn(step.round, w)));
        } else {
          for (const w of step.pending) {
            if (this.halted) break;
            await this.turn(step.round, w);
          }
        }
        return;
      case 'consensus': {
        const votes = step.round.speakers.map(
          (w) => step.round.stances[w] ?? { stance: 'UNKNOWN' as const, passed: false },
        );
        const c = evaluateConsensus(votes);
        await this.emit({ type: 'consensus_evaluated', round: step.round.round, ...c });
        return;
      }
      case 'judge': {
        const judge = s.participants.find((p) => p.role === 'judge') as Participant;
        const r = await this.call(
          judge,
          'judge',
          step.round.round,
          judgePrompt(s, judge, step.round),
          400,
          this.meetingAbort.signal,
        );
        if (this.halted) return;
        const verdict = r.ok ? parseJudge(r.result.text, step.round.speakers) : { text: '', corrections: [] };
        if (!r.ok) {
          await this.emit({
            type: 'turn_failed',
            round: step.round.round,
            participant: judge.name,
            reason: r.reason,
            detail: r.error,
          });
        }
        await this.emit({
          type: 'judge_feedback',
          round: step.round.round,
          text: verdict.text,
          corrections: verdict.corrections,
          ...(verdict.converged !== undefined ? { converged: verdict.converged } : {}),
          tokens: countTokens(verdict.text),
        });
        await this.checkBudget();
        return;
      }
      case 'summary': {
        const assistant = this.assistant();
        const max = s.config.summaryMaxTokens;
        const r = await this.call(
          assistant,
          'summary',
          step.round.round,
          summaryPrompt(s, assistant, step.round),
          max,
          this.meetingAbort.signal,
        );
        if (this.halted) return;
        if (!r.ok) {
          await this.emit({
            type: 'turn_failed',
            round: step.round.round,
            participant: assistant.name,
            reason: r.reason,
            detail: r.error,
          });
        }
        // The cap is enforced here, not trusted to the model: prompt size per round must stay flat.
        const text = r.ok ? truncateToTokens(r.result.text.trim(), max) : s.summary;
        await this.emit({ type: 'summary_updated', round: step.round.round, text, tokens: countTokens(text) });
        return;
      }
      case 'close':
        await this.emit({
          type: 'meeting_closed',
          reason: step.reason,
          ...(step.detail ? { detail: step.detail } : {}),
        });
        return;
      case 'digest': {
        const assistant = this.assistant();
        // The meeting's own signal may be aborted (cut, budget); the digest is written regardless.
        const signal = new AbortController().signal;
        const r = await this.call(
          assistant,
          'digest',
          currentRound(s)?.round ?? 0,
          digestPrompt(s, assistant),
          500,
          signal,
        );
        const digest = buildDigest(s, r.ok ? parseDigestReply(r.result.text) : {});
        await this.emit({ type: 'digest_ready', digest, text: renderDigest(digest) });
        return;
      }
      case 'propose':
        await Promise.all(step.pending.map((w) => this.propose(w)));
        return;
      case 'set_options': {
        const labels = s.requestedOptions?.length
          ? dedupeOptions([s.requestedOptions], 20)
          : dedupeOptions(
              workersOf(s).map((w) => s.proposals[w.name] ?? []),
              s.config.maxOptions,
            );
        if (labels.length < 2) {
          await this.emit({
            type: 'meeting_closed',
            reason: 'error',
            detail: `a consensus needs at least 2 distinct options; ${s.requestedOptions?.length ? 'the options given' : 'the workers proposed'} ${labels.length}`,
          });
          return;
        }
        const options: ConsensusOption[] = labels.map((label, i) => ({ id: `O${i + 1}`, label }));
        await this.emit({ type: 'options_set', options, source: s.requestedOptions?.length ? 'user' : 'proposed' });
        return;
      }
      case 'ballots':
        await Promise.all(step.pending.map((w) => this.ballot(step.round, w)));
        return;
      case 'verdict': {
        const r = step.round;
        const votes = Object.values(r.ballots).flatMap((b) => b.votes);
        const workers = r.speakers.length;
        const results = s.options.map((o) => optionResult(o.id, votes, workers));
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
        await this.emit({
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
        return;
      }
      case 'escalate':
        await this.emit({ type: 'escalated', reasons: step.round.verdict?.reasons ?? [] });
        return;
      case 'await_human':
      case 'done':
        return;
    }
  }

  /** Consensus mode: one worker proposes options. */
  private async propose(name: string): Promise<void> {
    const me = this.state.participants.find((p) => p.name === name);
    if (!me) return;
    const r = await this.call(
      me,
      'turn',
      0,
      proposalPrompt(this.state, me),
      this.state.config.replyMaxTokens,
      this.meetingAbort.signal,
      undefined,
      true,
    );
    if (this.halted) return;
    if (!r.ok) {
      await this.emit({ type: 'turn_failed', round: 0, participant: name, reason: r.reason, detail: r.error });
    }
    await this.emit({ type: 'options_proposed', worker: name, options: r.ok ? parseProposals(r.result.text) : [] });
  }

  /** Consensus mode: one worker's ballot, asked once more when invalid, evidence checked. */
  private async ballot(round: RoundState, name: string): Promise<void> {
    const s = this.state;
    const me = s.participants.find((p) => p.name === name);
    if (!me) return;
    const prompt = ballotPrompt(s, me, round);
    const max = Math.max(s.config.replyMaxTokens, 200 * s.options.length);
    let r = await this.call(me, 'turn', round.round, prompt, max, this.meetingAbort.signal, undefined, true);
    if (this.halted) return;
    let retried = false;
    let check = r.ok ? parseBallot(r.result.text, s.options) : ({ ok: false, reason: r.error } as const);
    if (!check.ok && r.ok) {
      retried = true;
      r = await this.call(
        me,
        'turn',
        round.round,
        ballotRetryPrompt(prompt, r.result.text, check.reason),
        max,
        this.meetingAbort.signal,
        undefined,
        true,
      );
      if (this.halted) return;
      check = r.ok ? parseBallot(r.result.text, s.options) : { ok: false, reason: r.error };
    }
    if (!r.ok) {
      await this.emit({
        type: 'turn_failed',
        round: round.round,
        participant: name,
        reason: r.reason,
        detail: r.error,
      });
    }
    const votes = check.ok ? check.votes : abstainAll(s.options, check.reason);
    const checker = this.deps.checkEvidence;
    if (checker) {
      for (const v of votes) for (const e of v.evidence) e.status = await checker(e.file);
    }
    const text = r.ok ? r.result.text : '';
    await this.emit({
      type: 'ballot_recorded',
      round: round.round,
      worker: name,
      votes,
      valid: check.ok,
      retried,
      ...(check.ok ? {} : { invalidReason: check.reason }),
      tokens: countTokens(text),
    });
    await this.checkBudget();
  }

  private assistant(): Participant {
    const a = this.state.participants.find((p) => p.role === 'assistant');
    if (!a) throw new Error('the meeting has no assistant');
    return a;
  }

  /** One worker's turn: ask, post, record the stance (or TIMEOUT / the failure). */
  private async turn(planned: RoundState, name: string): Promise<void> {
    const s = this.state;
    // The round as it is now: in sequential order, the replies given since it was planned.
    const round = s.rounds.find((r) => r.round === planned.round) ?? planned;
    const me = s.participants.find((p) => p.name === name);
    if (!me) return;
    const r = await this.call(
      me,
      'turn',
      round.round,
      workerPrompt(s, me, round),
      s.config.replyMaxTokens,
      this.meetingAbort.signal,
      s.config.turnTimeoutMs,
    );
    if (this.halted) return;
    if (!r.ok) {
      await this.emit({
        type: 'turn_failed',
        round: round.round,
        participant: name,
        reason: r.reason,
        detail: r.error,
      });
      await this.emit({
        type: 'stance_recorded',
        round: round.round,
        participant: name,
        stance: r.reason === 'timeout' ? 'TIMEOUT' : 'UNKNOWN',
        passed: false,
      });
      return;
    }
    const text = capReply(r.result.text.trim() || '(empty reply)', s.config.replyMaxTokens);
    // Reply and stance are recorded together (one fsync); the budget is checked once both are in.
    const posted = this.emit({
      type: 'message_posted',
      messageId: `r${round.round}-${name}`,
      from: name,
      role: me.role,
      round: round.round,
      kind: 'contribution',
      text,
      tokens: countTokens(text),
    });
    await Promise.all([posted, this.recordStance(round.round, name, text)]);
    await this.checkBudget();
  }

  private async recordStance(round: number, name: string, text: string): Promise<void> {
    const passed = isPass(text);
    const stance = parseStance(text);
    await this.emit({
      type: 'stance_recorded',
      round,
      participant: name,
      stance: passed && stance === 'UNKNOWN' ? 'PASS' : stance,
      passed,
    });
  }

  private async post(p: Participant, round: number, kind: 'briefing' | 'contribution', text: string): Promise<void> {
    const messageId = `${kind === 'contribution' ? `r${round}` : kind}-${p.name}`;
    await this.emit({
      type: 'message_posted',
      messageId,
      from: p.name,
      role: p.role,
      round,
      kind,
      text,
      tokens: countTokens(text),
    });
    await this.checkBudget();
  }

  /**
   * Budget rules, applied after everything spoken: at 80% the assistant announces the final
   * round (the next round is the last), at 100% the meeting is cut at once.
   */
  private async checkBudget(): Promise<void> {
    const s = this.state;
    const budget = s.config.tokenBudget;
    if (s.spokenTokens >= budget) {
      await this.cut('budget_exhausted', `${s.spokenTokens} of ${budget} tokens spoken`);
      return;
    }
    if (s.spokenTokens >= budget * BUDGET_WARNING_RATIO && s.finalRound === undefined && !this.warning) {
      const r = currentRound(s);
      const finalRound = r ? r.round + 1 : 1;
      // Parallel turns may cross the mark together: the first one announces, the others wait for it.
      const a = this.assistant();
      const round = r?.round ?? 0;
      this.warning = (async () => {
        await this.emit({ type: 'budget_warning', spent: s.spokenTokens, budget, finalRound });
        const text = FINAL_ROUND_ANNOUNCEMENT;
        const messageId = `announcement-${a.name}-${finalRound}`;
        await this.emit({
          type: 'message_posted',
          messageId,
          from: a.name,
          role: a.role,
          round,
          kind: 'announcement',
          text,
          tokens: countTokens(text),
        });
        if (this.state.spokenTokens >= budget)
          await this.cut('budget_exhausted', `${this.state.spokenTokens} of ${budget} tokens spoken`);
      })();
    }
    await this.warning;
  }
  private async call(
    p: Participant,
    purpose: CallPurpose,
    round: number,
    messages: ChatMessage[],
    maxTokens: number,
    meetingSignal: AbortSignal,
    timeoutMs = this.state.config.turnTimeoutMs,
    json = false,
  ): Promise<{ ok: true; result: ChatResult } | { ok: false; reason: 'timeout' | 'error'; error: string }> {
    const turn = new AbortController();
    const cancelTimer = this.deps.clock.setTimer(timeoutMs, () =>
      turn.abort(new TurnTimeout(`${p.name} did not answer within ${Math.round(timeoutMs / 1000)} s`)),
    );
    const onMeetingAbort = (): void => turn.abort(meetingSignal.reason);
    if (meetingSignal.aborted) onMeetingAbort();
    else meetingSignal.addEventListener('abort', onMeetingAbort, { once: true });
    const messageId = purpose === 'turn' ? `r${round}-${p.name}` : `${purpose}-${p.name}`;
    const provider = this.deps.providerFor(p);
    const onDelta = this.deps.onDelta;
    try {
      const schedule = this.deps.schedule ?? (<T>(_p: Participant, f: () => Promise<T>) => f());
      const result = await schedule(p, () =>
        provider.chat({
          model: p.model,
          messages,
          maxTokens,
          signal: turn.signal,
          ...(json ? { json: true } : {}),
          ...(onDelta
            ? { onDelta: (text: string) => onDelta({ meetingId: this.id, messageId, from: p.name, round, text }) }
            : {}),
          meta: { participant: p.name, role: p.role, purpose, round, topic: this.state.topic },
        }),
      );
      if (turn.signal.aborted) throw turn.signal.reason;
      // Not awaited: it goes to the store with whatever the caller records next (one fsync), and
      // every later emit waits for it.
      this.emit({ type: 'usage_recorded', participant: p.name, role: p.role, purpose, usage: result.usage }).catch(
        () => undefined,
      );
      return { ok: true, result };
    } catch (e) {
      if (turn.signal.reason instanceof TurnTimeout)
        return { ok: false, reason: 'timeout', error: turn.signal.reason.message };
      if (turn.signal.aborted) return { ok: false, reason: 'error', error: abortReason(turn.signal) };
      const message = e instanceof ProviderError || e instanceof Error ? e.message : String(e);
      return { ok: false, reason: 'error', error: message };
    } finally {
      cancelTimer();
      meetingSignal.removeEventListener('abort', onMeetingAbort);
    }
  }

  /** Appends events one at a time, in call order, and folds each into the state once durable. */
  private emit(body: EventBody): Promise<void> {
    return this.append(this.state.meetingId, body);
  }

  private append(meetingId: string, body: EventBody): Promise<void> {
    // The store assigns seq when append is called, so calls are made in order right away: events
    // emitted together reach the store together and share one fsync. Folding waits its turn.
    const stored = this.deps.store.append(meetingId, body);
    const next = this.appendChain
      .then(() => stored)
      .then((e) => {
        this.current = evolve(this.current, e);
        this.deps.onEvent?.(e);
      });
    this.appendChain = next.catch(() => undefined);
    return next;
  }
}
