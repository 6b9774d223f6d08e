/**
 * Executes a meeting's steps through its ports. It owns the folded state, the ordered append
 * chain, the meeting's abort signal and the budget: everything a step may do goes through here,
 * so a reply is recorded once, within the budget, and never after a cut.
 */
import type { EventBody, MeetingEvent, MeetingState, Participant, TerminationReason } from '@roundtable/protocol';
import { billedTokensOf, currentRound, evolve, fold, spokenTokensOf } from '@roundtable/protocol';
import { countTokens, toolTurnPromptTokens } from '../providers/tokens';
import type { ChatResult, ToolLoop } from '../providers/types';
import {
  FINAL_ROUND_ANNOUNCEMENT,
  budgetDetail,
  budgetVerdict,
  capReply,
  capText,
  fitToBudget,
  planCallTokens,
  Reservation,
  silentReply,
  type BudgetPool,
  thinkingAllowance,
} from './budget';
import { decide, type Command } from './commands';
import { callModel, type CallOutcome } from './modelCall';
import { toolLoopFor } from '../tools/toolLoop';
import type { CallRequest, StepContext } from './modes/types';
import type { RunnerClockInfo } from './perform';
import type { EngineDeps } from './ports';
import { redactDeep } from './keyRedaction';

type BudgetBasis = NonNullable<MeetingState['config']['budgetBasis']>;

export class Runner implements StepContext, RunnerClockInfo {
  private current: MeetingState;
  private appendChain: Promise<unknown> = Promise.resolve();
  /** Tokens of events handed to the store but not folded yet: spent, though the state lags. */
  private inFlightTokens = 0;
  /** Billed tokens (prompt + completion) of usage handed to the store but not folded yet. */
  private inFlightBilled = 0;
  /** Tokens (on the budget's basis) reserved by calls under way, not yet recorded. */
  private reserved = 0;
  /** Calls waiting for room that calls under way hold. */
  private waiting: (() => void)[] = [];
  private meetingAbort = new AbortController();
  /** Set the moment a cut is asked for, before it is logged: no reply is recorded after it. */
  private cutting = false;
  /** The cut being logged; nothing new is planned until it is in the state. */
  private cutLogged: Promise<void> = Promise.resolve();
  private suspended = false;
  private warning: Promise<void> | undefined;

  constructor(
    readonly deps: EngineDeps,
    events: MeetingEvent[],
  ) {
    this.current = fold(events);
  }

  get state(): MeetingState {
    return this.current;
  }

  get halted(): boolean {
    const ask = this.current.closeRequest;
    return this.cutting || this.suspended || (ask !== undefined && !ask.graceful);
  }

  get isSuspended(): boolean {
    return this.suspended;
  }

  /** Spoken so far, counting what is on its way to the store. */
  spent(): number {
    return this.current.spokenTokens + this.inFlightTokens;
  }

  /**
   * What the budget's 80% / 100% rules and call planning measure: spoken tokens (the default), or
   * with `budgetBasis: 'billed'` every call's prompt + completion, so a team can cap what it pays.
   */
  budgetSpent(): number {
    if (this.current.config.budgetBasis !== 'billed') return this.spent();
    return billedTokensOf(this.current) + this.inFlightBilled;
  }

  /** Resolves once every append under way (and a cut being logged) is folded into the state. */
  async settled(): Promise<void> {
    await this.cutLogged;
    await this.appendChain;
  }

  /** Reopened after a close (another round was asked for): a fresh signal, no cut pending. */
  reopen(): void {
    if (!this.meetingAbort.signal.aborted) return;
    this.meetingAbort = new AbortController();
    this.cutting = false;
  }

  suspend(): void {
    this.suspended = true;
    this.meetingAbort.abort(new Error('the daemon is shutting down'));
  }

  /** Decides a command against the settled state and appends its events; resolves once durable. */
  async execute(command: Command): Promise<void> {
    await this.appendChain;
    await Promise.all(decide(command, this.current).map((e) => this.emit(e)));
  }

  /** Logs the cut first (so it survives a restart), then aborts the calls in flight. */
  async cut(reason: TerminationReason, detail?: string): Promise<void> {
    if (this.current.status === 'closed') return;
    this.cutting = true;
    const logged = this.execute({ type: 'cut', reason, ...(detail !== undefined ? { detail } : {}) }).finally(() =>
      this.meetingAbort.abort(new Error(`meeting ended: ${reason}`)),
    );
    this.cutLogged = logged.catch(() => undefined);
    await logged;
  }

  /** Milliseconds before the meeting's time limit; after an escalation the limit no longer applies. */
  timeLeftMs(): number {
    const s = this.current;
    if (s.resolutions.length > 0) return Infinity;
    return s.config.timeLimitMs - (this.deps.clock.now() - s.openedAt);
  }

  participant(name: string): Participant | undefined {
    return this.current.participants.find((p) => p.name === name);
  }

  assistant(): Participant {
    const a = this.current.participants.find((p) => p.role === 'assistant');
    if (!a) throw new Error('the meeting has no assistant');
    return a;
  }

  fit(text: string): { text: string; tokens: number } | undefined {
    return fitToBudget(text, this.current.config.tokenBudget - this.spent());
  }

  /** The room's budget free for a new reservation: budget − spent (in flight too) − held by calls under way. */
  private budgetPool(): BudgetPool {
    return {
      free: () => this.current.config.tokenBudget - this.budgetSpent() - this.reserved,
      hold: (n, quiet) => {
        this.reserved += n;
        if (n < 0 && !quiet) for (const wake of this.waiting.splice(0)) wake();
      },
    };
  }

  /** Resolves the next time a call under way releases some of its reservation. */
  private released(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async call(req: CallRequest): Promise<CallOutcome> {
    const s = this.current;
    const basis = s.config.budgetBasis ?? 'spoken';
    // Summary and digest are not spoken into the room: only their cap bounds them, except that a
    // billed budget counts the summary's call (the digest is written after the meeting closes).
    const budgeted = req.purpose !== 'digest' && (req.purpose !== 'summary' || basis === 'billed');
    const thinking = thinkingAllowance(s, req.participant);
    const left = s.config.tokenBudget - this.budgetSpent();
    // Reserved before it is sent, by the engine's own count; parallel calls share what is left.
    const reservation = budgeted
      ? new Reservation(this.budgetPool(), {
          basis,
          limit: Math.floor(left / Math.max(1, req.share ?? 1)),
          cap: req.cap,
          thinking,
        })
      : undefined;
    const tools = this.toolsFor(req, reservation);
    const maxTokens = reservation
      ? await this.roomFor(req, reservation, basis, tools)
      : planCallTokens({ cap: req.cap, left: Infinity, share: 1, thinking, basis });
    if (typeof maxTokens !== 'number') return maxTokens;
    let r: CallOutcome;
    try {
      r = await callModel(this.deps, {
        participant: req.participant,
        purpose: req.purpose,
        round: req.round,
        messages: req.messages,
        maxTokens,
        // A billed budget cannot pay for what a server streams past max_tokens: on that basis no
        // call is read past it, the digest's (written after the close, outside the budget) included.
        ...(basis === 'billed' ? { stopAtMaxTokens: true } : {}),
        signal: req.signal ?? this.meetingAbort.signal,
        timeoutMs: req.timeoutMs ?? s.config.turnTimeoutMs,
        ...(req.json ? { json: req.json } : {}),
        meetingId: s.meetingId,
        topic: s.topic,
        ...tools,
      });
    } catch (e) {
      reservation?.close();
      throw e;
    }
    if (!r.ok) {
      reservation?.close();
      return r;
    }
    return this.settleCall(req, r.result, reservation, maxTokens);
  }

  /**
   * The max_tokens a budgeted call may send with, waiting for calls under way to release what they
   * hold; when there is none, the meeting is cut for its budget and the call fails.
   */
  private async roomFor(
    req: CallRequest,
    reservation: Reservation,
    basis: BudgetBasis,
    tools: { tools?: ToolLoop },
  ): Promise<number | Extract<CallOutcome, { ok: false }>> {
    const s = this.current;
    let maxTokens: number;
    const offered = tools.tools?.definitions() ?? [];
    const prompt = basis === 'billed' ? toolTurnPromptTokens(req.messages, [], offered) : 0;
    for (;;) {
      maxTokens = reservation.request(prompt);
      if (maxTokens > 0 || this.halted) break;
      // Other calls hold room they may not use: wait for them to settle before calling it a day.
      if (this.reserved <= 0) break;
      await this.released();
    }
    if (maxTokens <= 0) {
      reservation.close();
      const detail = `${budgetDetail(this.budgetSpent(), s.config.tokenBudget, basis)}: no room left for ${req.participant.name}'s call`;
      if (!this.halted) await this.cut('budget_exhausted', detail);
      return { ok: false, reason: 'error', error: detail };
    }
    return maxTokens;
  }

  /** After a call that returned: its usage recorded, its reservation released, its reply capped. */
  private async settleCall(
    req: CallRequest,
    result: ChatResult,
    reservation: Reservation | undefined,
    maxTokens: number,
  ): Promise<CallOutcome> {
    const p = req.participant;
    reservation?.settlePending(result.usage);
    // Not awaited: it goes to the store with whatever the caller records next (one fsync). The
    // reservation is released in the same breath, so the tokens are never counted twice or not at all.
    this.emit({
      type: 'usage_recorded',
      participant: p.name,
      role: p.role,
      purpose: req.purpose,
      round: req.round,
      usage: result.usage,
    }).catch(() => undefined);
    reservation?.close();
    // A server that billed past its reservation: recorded as it reported it, and the room stops here.
    if (reservation && reservation.overrun > 0) await this.checkBudget();
    // Billed, but nothing to speak: the cap ran out while the model was thinking.
    const silent = silentReply(p, result, maxTokens);
    if (silent) return { ok: false, reason: 'error', error: silent };
    // The cap holds whatever the server did with max_tokens; a turn keeps its end (the stance).
    const text = req.purpose === 'turn' ? capReply(result.text, req.cap) : capText(result.text, req.cap);
    return { ok: true, result: { ...result, text } };
  }

  /** Workers' turns may use the read-only workspace tools when the meeting offers them. */
  private toolsFor(req: CallRequest, budget: Reservation | undefined): { tools?: ToolLoop } {
    if (req.purpose !== 'turn') return {};
    const tools = toolLoopFor({
      state: this.current,
      participant: req.participant,
      round: req.round,
      emit: (b) => this.emit(b),
      ...(budget ? { budget } : {}),
    });
    return tools ? { tools } : {};
  }

  async failTurn(round: number, participant: string, outcome: Extract<CallOutcome, { ok: false }>): Promise<void> {
    await this.emit({ type: 'turn_failed', round, participant, reason: outcome.reason, detail: outcome.error });
  }

  /**
   * At 80% the assistant announces the final round (the next round is the last), at 100% the
   * meeting is cut at once.
   */
  async checkBudget(): Promise<void> {
    const { tokenBudget: budget, budgetBasis } = this.current.config;
    const verdict = budgetVerdict(this.current, this.budgetSpent());
    if (verdict === 'exhausted')
      return this.cut('budget_exhausted', budgetDetail(this.budgetSpent(), budget, budgetBasis));
    // Parallel turns may cross the mark together: the first one announces, the others wait for it.
    if (verdict === 'final_round' && !this.warning) this.warning = this.announceFinalRound();
    await this.warning;
  }

  private async announceFinalRound(): Promise<void> {
    const s = this.current;
    const budget = s.config.tokenBudget;
    const r = currentRound(s);
    const finalRound = r ? r.round + 1 : 1;
    const a = this.assistant();
    await this.emit({ type: 'budget_warning', spent: this.budgetSpent(), budget, finalRound });
    const spoken = this.fit(FINAL_ROUND_ANNOUNCEMENT);
    if (spoken && spoken.text === FINAL_ROUND_ANNOUNCEMENT) {
      await this.emit({
        type: 'message_posted',
        messageId: `announcement-${a.name}-${finalRound}`,
        from: a.name,
        role: a.role,
        round: r?.round ?? 0,
        kind: 'announcement',
        text: spoken.text,
        tokens: countTokens(spoken.text),
      });
    }
    if (this.budgetSpent() >= budget)
      await this.cut('budget_exhausted', budgetDetail(this.budgetSpent(), budget, s.config.budgetBasis));
  }

  emit(body: EventBody): Promise<void> {
    return this.append(this.current.meetingId, body);
  }

  /**
   * Appends events one at a time, in call order, and folds each once durable. The store assigns
   * seq when append is called, so events emitted together share one fsync; folding waits its turn.
   */
  append(meetingId: string, raw: EventBody): Promise<void> {
    // The one place events enter the log: a secret a server echoed never gets past it.
    const body = redactDeep(raw, this.deps.secrets ?? []);
    const tokens = spokenTokensOf(body);
    const billed = body.type === 'usage_recorded' ? body.usage.promptTokens + body.usage.completionTokens : 0;
    this.inFlightTokens += tokens;
    this.inFlightBilled += billed;
    const stored = this.deps.store.append(meetingId, body);
    let counted = true;
    const uncount = (): void => {
      if (counted) {
        this.inFlightTokens -= tokens;
        this.inFlightBilled -= billed;
      }
      counted = false;
    };
    const next = this.appendChain
      .then(() => stored)
      .then((e) => {
        uncount();
        this.current = evolve(this.current, e);
        this.deps.onEvent?.(e, this.current);
      });
    next.catch(uncount);
    this.appendChain = next.catch(() => undefined);
    return next;
  }
}
