/**
 * A meeting's lifecycle: opened or rebuilt from its log, run step by step (the planner picks,
 * the runner performs), and driven by commands decided into events. Because every decision is
 * read back from the log, a meeting reloaded after a crash continues from its next missing step
 * and never redoes a completed reply.
 */
import type {
  ContextAttached,
  DecisionKind,
  MeetingConfig,
  MeetingEvent,
  MeetingState,
  Participant,
  ResolveAction,
  StartMeetingParams,
  TerminationReason,
} from '@roundtable/protocol';
import { DEFAULT_CONFIG } from '@roundtable/protocol';
import type { Command } from './commands';
import { attachContext } from '../context/attach';
import { newMessageId } from './ids';
import { performStep, recordDigestAlone } from './perform';
import type { Step } from './steps';
import { StoreWriteError } from '../store/types';
import { nextStep } from './planner';
import type { EngineDeps } from './ports';
import { Runner } from './runner';
import { DEFAULT_COMPACT_AT_TOKENS, compactThresholdFor } from './prompts';

/** How long the start waits for a server to say a model's context window. */
const CONTEXT_WINDOW_WAIT_MS = 3_000;

/** A participant's context window where its server says; never fails the start. */
async function contextWindowOf(deps: EngineDeps, p: Participant): Promise<number | undefined> {
  try {
    const provider = deps.providerFor(p);
    if (!provider.contextWindow) return undefined;
    return await provider.contextWindow(p.model, AbortSignal.timeout(CONTEXT_WINDOW_WAIT_MS));
  } catch {
    return undefined;
  }
}

export class Meeting {
  private readonly runner: Runner;
  private running: Promise<MeetingState> | undefined;
  private cancelTimeLimit: (() => void) | undefined;
  /** Set when rebuilt from a log: the first run records the interruption. */
  private resumed = false;
  /** Faults recorded in this run (a step's, the digest's): a second of a kind propagates. */
  private readonly faulted = new Set<'step' | 'digest'>();

  private constructor(
    private readonly deps: EngineDeps,
    events: MeetingEvent[],
  ) {
    this.runner = new Runner(deps, events);
  }

  /**
   * Opens a new meeting: validated params in, `meeting_opened` appended, then the attached context
   * read once (from `params.contextWorkspace ?? params.workspace`) and logged.
   */
  static async open(
    deps: EngineDeps,
    meetingId: string,
    params: StartMeetingParams,
    /**
     * Context read before the start (a review's change and records, or a prepared start's context),
     * logged instead of reading `params.context`; `null`: read already, nothing to attach.
     */
    attached?: ContextAttached | null,
  ): Promise<Meeting> {
    const config: MeetingConfig = { ...DEFAULT_CONFIG, ...params.config };
    // A roundtable compacts its transcript at half the smallest context window a server reports,
    // when that is below the default; fixed here, in the log, so a resumed meeting keeps it.
    if (params.mode === 'roundtable' && config.compactAtTokens === undefined) {
      const at = compactThresholdFor(await Promise.all(params.participants.map((p) => contextWindowOf(deps, p))));
      if (at !== undefined && at < DEFAULT_COMPACT_AT_TOKENS) config.compactAtTokens = at;
    }
    const m = new Meeting(deps, []);
    await m.runner.append(meetingId, {
      type: 'meeting_opened',
      topic: params.topic,
      mode: params.mode,
      config,
      participants: params.participants,
      ...(params.providers ? { providers: params.providers } : {}),
      ...(params.options ? { options: params.options } : {}),
      ...(params.workspace ? { workspace: params.workspace } : {}),
    });
    const context =
      attached === undefined
        ? await attachContext(params, config)
        : attached && { type: 'context_attached' as const, ...attached };
    if (context) await m.runner.append(meetingId, context);
    return m;
  }

  /**
   * Rebuilds a meeting from its log after a restart. Running it records the interruption and
   * continues from the next missing step (a close logged before the restart included).
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

  /** The meeting as folded from its log so far (a new object after every event). */
  get state(): MeetingState {
    return this.runner.state;
  }

  get id(): string {
    return this.state.meetingId;
  }

  /** Runs the meeting to its end (closed with a digest). Safe to call more than once. */
  run(): Promise<MeetingState> {
    if (!this.running && this.state.status !== 'closed') this.runner.reopen();
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
    this.runner.suspend();
  }

  /**
   * Decides a command against the state and appends its events; resolves once they are durable,
   * so the caller acknowledges only what is on disk. Throws an `RpcError` when refused.
   */
  execute(command: Command): Promise<void> {
    return this.runner.execute(command);
  }

  /** Adds a worker (an agent attached mid-meeting); it speaks from the next round. */
  join(p: Participant): Promise<void> {
    return this.execute({ type: 'join', participant: p });
  }

  /** Ends the meeting at once: logged first, then in-flight model calls are aborted. */
  cut(reason: TerminationReason = 'cut', detail?: string): Promise<void> {
    return this.runner.cut(reason, detail);
  }

  /** Ends the meeting gracefully once the round in progress is complete; logged before it returns. */
  close(detail = 'closed by the human'): Promise<void> {
    return this.execute({ type: 'close', detail });
  }

  /**
   * Records the human's decision on the digest. `another_round` reopens the meeting for one
   * final round that starts with the instruction as a human post; the caller runs it.
   */
  decide(decision: DecisionKind, opts: { instruction?: string; digestText?: string } = {}): Promise<void> {
    return this.execute({ type: 'decide', decision, ...opts, messageId: newMessageId() });
  }

  /**
   * Consensus mode: the human's answer to an escalation. `pick` decides for an option, `defer`
   * closes without a decision, `another_round` runs one more challenge round that starts with
   * the instruction. The caller runs the meeting afterwards.
   */
  resolve(action: ResolveAction, opts: { option?: string; instruction?: string } = {}) {
    return this.execute({ type: 'resolve', action, ...opts, messageId: newMessageId() });
  }

  /** A human post: shown to the workers in the next round as the human's words. */
  async postHuman(text: string, from = 'human'): Promise<string> {
    const messageId = newMessageId();
    await this.execute({ type: 'post', messageId, text, from });
    await this.runner.checkBudget();
    return messageId;
  }

  private async loop(): Promise<MeetingState> {
    this.faulted.clear();
    if (this.resumed) {
      this.resumed = false;
      await this.runner.emit({ type: 'meeting_interrupted', detail: 'the daemon stopped; resuming from the log' });
    }
    if (this.state.status !== 'closed') this.armTimeLimit();
    for (;;) {
      if (this.runner.isSuspended) return this.state;
      // Plan from a state that has absorbed every append under way (a cut may be on its way in).
      await this.runner.settled();
      const step = nextStep(this.state);
      if (step.kind === 'done') return this.state;
      if (step.kind === 'await_human') {
        // Paused, nothing lost: the meeting waits in its log for the human's answer.
        this.cancelTimeLimit?.();
        return this.state;
      }
      try {
        await performStep(step, this.runner);
      } catch (e) {
        await this.fault(step, e);
      }
    }
  }

  /**
   * A step that threw what no step expects (a bug, a stack overflow on hostile text) ends the
   * meeting as failed, recorded in its log, so followers see it close instead of waiting for ever.
   * A store that cannot write, a suspended meeting, or a second fault propagates to the caller.
   */
  private async fault(step: Step, e: unknown): Promise<void> {
    const once = step.kind === 'digest' ? 'digest' : 'step';
    if (e instanceof StoreWriteError || this.runner.isSuspended || this.faulted.has(once)) throw e;
    this.faulted.add(once);
    const detail = `the meeting stopped on an internal error (${step.kind}): ${(e as Error)?.message ?? String(e)}`;
    if (step.kind === 'digest') await recordDigestAlone(this.runner, detail);
    else await this.runner.cut('error', detail);
  }

  private armTimeLimit(): void {
    const remaining = Math.max(0, this.runner.timeLeftMs());
    // Time spent waiting for the human is not the meeting's: after an escalation the limit no longer applies.
    if (remaining === Infinity) return;
    const limit = Math.round(this.state.config.timeLimitMs / 1000);
    this.cancelTimeLimit = this.deps.clock.setTimer(remaining, () => {
      this.cut('time_limit', `the meeting ran past its ${limit} s limit`).catch(() => undefined);
    });
  }

  /** A stateful provider (the scripted one) is shown the log it resumes, so it does not redo what is done. */
  private tellProvidersWhatIsDone(): void {
    for (const p of this.state.participants) this.deps.providerFor(p).resumeFrom?.(p, this.state);
  }
}
