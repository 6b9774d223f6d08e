/**
 * Budget rules. The token budget is a hard ceiling on what is spoken in the room: each call's
 * `max_tokens` is planned from what is left (parallel calls share it), a reply is fitted into
 * what is left when it is recorded, and every call has a reply cap enforced on the text whatever
 * the server does. One number for spent/budget: the state's `spokenTokens`, or with
 * `budgetBasis: 'billed'` the billed tokens of every call (`billedTokensOf`) for the 80% / 100% rules.
 */
import type { CallPurpose, MeetingState, Usage } from '@roundtable/protocol';
import type { TurnBudget } from '../providers/types';
import { countTokens, truncateToTokens } from '../providers/tokens';
import { isReasoningModel } from '../providers/serverProfile';

export const FINAL_ROUND_ANNOUNCEMENT = 'Final round — make it count.';
/** Share of the budget at which the final round is announced. */
export const BUDGET_WARNING_RATIO = 0.8;
/** A reply this many times over the reply cap is cut, so one runaway model cannot eat the room's budget. */
export const REPLY_CAP_FACTOR = 2;

/** Reply caps of the assistant's and the judge's calls (tokens). */
export const BRIEFING_MAX_TOKENS = 300;
export const JUDGE_MAX_TOKENS = 400;
export const DIGEST_MAX_TOKENS = 500;
/** Reply cap of the one follow-up that asks a worker for the stance marker it left out. */
export const FOLLOWUP_MAX_TOKENS = 60;

/** A reviewer's findings reply: about ten findings with their quotes. */
export const FINDINGS_MAX_TOKENS = 2_000;

/** The reply cap of one kind of call in this meeting (a ballot's: by the options put to it, all of them by default). */
export function replyCap(s: MeetingState, purpose: CallPurpose | 'ballot' | 'findings', options?: number): number {
  switch (purpose) {
    case 'briefing':
      return BRIEFING_MAX_TOKENS;
    case 'judge':
      return JUDGE_MAX_TOKENS;
    case 'summary':
      return s.config.summaryMaxTokens;
    case 'digest':
      return DIGEST_MAX_TOKENS;
    case 'turn':
      return s.config.replyMaxTokens;
    case 'followup':
      return FOLLOWUP_MAX_TOKENS;
    case 'ballot':
      return Math.max(s.config.replyMaxTokens, 200 * (options ?? s.options.length));
    case 'findings':
      // A review's findings are a JSON list with quoted diff lines: a turn's cap would cut it off mid-list.
      return Math.max(s.config.replyMaxTokens, FINDINGS_MAX_TOKENS);
  }
}

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

/** A reply from a call that is not a worker's turn, held to its cap (no tail to keep). */
export function capText(text: string, maxTokens: number): string {
  return text.length <= maxTokens ? text : truncateToTokens(text, maxTokens);
}

/**
 * Room a reasoning model gets to think on top of its reply cap. Recorded deepseek-r1:8b replies
 * think for 900–2,200 tokens; with a cap below that the reply comes back empty.
 */
export const THINKING_ALLOWANCE = 4_000;

/**
 * The thinking room for a participant: reasoning models known by name, and any model that has
 * already thought in this meeting. Thinking is billed, never spoken, so on the spoken basis it
 * does not eat the room's budget; on the billed basis it is planned within what is left.
 */
export function thinkingAllowance(s: MeetingState, p: { name: string; model: string }): number {
  const seen = (s.usageByParticipant[p.name]?.reasoningTokens ?? 0) > 0;
  return seen || isReasoningModel(p.model) ? THINKING_ALLOWANCE : 0;
}

/**
 * `max_tokens` of one call: the reply cap within the budget left (shared by parallel calls), plus
 * the thinking room. On the billed basis thinking is billed, so the whole call fits what is left.
 */
export function planCallTokens(o: {
  cap: number;
  left: number;
  share: number;
  thinking: number;
  basis: 'spoken' | 'billed';
}): number {
  if (o.basis === 'billed') return planMaxTokens(o.cap + o.thinking, o.left, o.share);
  return planMaxTokens(o.cap, o.left, o.share) + o.thinking;
}

/**
 * The one line that says a call came back with nothing to speak (the cap ran out while the model
 * was thinking), or undefined when the call has a reply. Never read as `[CLEAN]` or a silent NEUTRAL.
 */
export function silentReply(
  p: { name: string; model: string },
  r: { text: string; thinking?: string; finishReason?: string; usage: { reasoningTokens?: number } },
  maxTokens: number,
): string | undefined {
  if (r.text.trim() !== '') return undefined;
  const thought = r.usage.reasoningTokens ?? (r.thinking ? countTokens(r.thinking) : 0);
  if (r.finishReason !== 'length' && thought === 0) return undefined;
  const spent = thought > 0 ? ` thinking (${thought.toLocaleString('en-US')} tokens)` : '';
  return `${p.name} (${p.model}) spent its ${maxTokens.toLocaleString('en-US')}-token cap${spent} and gave no reply`;
}

/** `max_tokens` for one of `parallel` calls that share what is left of the budget. */
export function planMaxTokens(cap: number, left: number, parallel = 1): number {
  return Math.max(1, Math.min(cap, Math.floor(left / Math.max(1, parallel))));
}

/**
 * Fits text about to be spoken into what is left of the budget: unchanged when it fits, cut to
 * what is left (and marked) when not, `undefined` when nothing is left.
 */
export function fitToBudget(text: string, left: number): { text: string; tokens: number } | undefined {
  if (left <= 0) return undefined;
  const tokens = countTokens(text);
  if (tokens <= left) return { text, tokens };
  const mark = '\n[… cut by Roundtable: the token budget ran out …]';
  const room = left - countTokens(mark);
  const cut = room > 0 ? `${truncateToTokens(text, room)}${mark}` : truncateToTokens(text, left);
  return { text: cut, tokens: Math.min(left, countTokens(cut)) };
}

export type BudgetVerdict = 'exhausted' | 'final_round' | 'ok';

/** What the budget says after `spent` tokens: cut at 100%, announce the final round at 80%. */
export function budgetVerdict(s: MeetingState, spent: number): BudgetVerdict {
  const budget = s.config.tokenBudget;
  if (spent >= budget) return 'exhausted';
  if (spent >= budget * BUDGET_WARNING_RATIO && s.finalRound === undefined) return 'final_round';
  return 'ok';
}

/** The closing detail of a meeting cut by its budget (the same figures the state shows). */
export function budgetDetail(spent: number, budget: number, basis: 'spoken' | 'billed' = 'spoken'): string {
  return `${spent} of ${budget} tokens ${basis}`;
}

/** The room's budget as a reservation draws on it: what is free (budget − spent − held), and holding. */
export interface BudgetPool {
  free(): number;
  /**
   * Adds `n` (negative: releases) to the tokens held by calls in flight. A release wakes the calls
   * waiting for room, unless `quiet`: a grant handed straight back frees nothing anyone waited for,
   * and waking on it let two waiting calls wake each other without end.
   */
  hold(n: number, quiet?: boolean): void;
}

/**
 * Prompt tokens as the engine reserves them: its own count with a margin, since servers count
 * with their own tokenizer (and their own per-message overhead).
 */
export function reservedPrompt(counted: number): number {
  return Math.ceil(counted * 1.15) + 16;
}

/**
 * One budgeted call's share of the budget, reserved before each request by the engine's own
 * count and held in flight until the server's reported usage settles it (and the runner records
 * it): on the billed basis prompt + max_tokens per request, on the spoken basis the reply part of
 * max_tokens and every tool result. A tool turn's continuations draw on the same reservation, and
 * together never past `limit` (the call's share of what was left when it started) or what the
 * room has free.
 */
export class Reservation implements TurnBudget {
  /** Held in the pool: reserved for a request under way, or settled usage not yet recorded. */
  private held = 0;
  /** Of the limit, used: held plus spoken tool results. */
  private drawn = 0;
  /** Reserved for the request under way (0 when none). */
  private pending = 0;
  /** Usage the server reported past what was reserved (a server that ignored max_tokens, or a bigger tokenizer). */
  overrun = 0;

  constructor(
    private readonly pool: BudgetPool,
    private readonly o: {
      basis: 'spoken' | 'billed';
      /** The call's share of the budget left when it started. */
      limit: number;
      /** The reply cap. */
      cap: number;
      /** Thinking room on top of the cap (billed on the billed basis, never spoken). */
      thinking: number;
    },
  ) {}

  private grant(n: number): number {
    const g = Math.max(0, Math.floor(Math.min(n, this.o.limit - this.drawn, this.pool.free())));
    this.held += g;
    this.drawn += g;
    this.pool.hold(g);
    return g;
  }

  private release(n: number, quiet = false): void {
    this.held -= n;
    this.drawn -= n;
    this.pool.hold(-n, quiet);
  }

  request(promptTokens: number): number {
    if (this.pending > 0) this.release(this.pending);
    this.pending = 0;
    if (this.o.basis === 'spoken') {
      const g = this.grant(this.o.cap);
      if (g < 1) return 0;
      this.pending = g;
      return g + this.o.thinking;
    }
    const prompt = reservedPrompt(promptTokens);
    const g = this.grant(prompt + this.o.cap + this.o.thinking);
    if (g - prompt < 1) {
      this.release(g, true);
      return 0;
    }
    this.pending = g;
    return g - prompt;
  }

  settle(usage: Usage): void {
    const reserved = this.pending;
    this.pending = 0;
    if (this.o.basis === 'spoken') {
      // A reply is spoken only once it is recorded, fitted then into what is left.
      this.release(reserved);
      return;
    }
    const billed = usage.promptTokens + usage.completionTokens;
    if (billed <= reserved) return this.release(reserved - billed);
    // Recorded as the server reported it (it is the bill); the overrun is named and cuts the meeting.
    const over = billed - reserved;
    this.overrun += over;
    this.held += over;
    this.drawn += over;
    this.pool.hold(over);
  }

  /** Settles the request under way, if the call did not (a call without the tool loop). */
  settlePending(usage: Usage): void {
    if (this.pending > 0) this.settle(usage);
  }

  resultRoom(): number {
    // On the billed basis a result is paid in the next request's prompt, reserved then.
    if (this.o.basis === 'billed') return Infinity;
    const keep = Math.min(this.o.cap, Math.max(0, this.o.limit - this.drawn));
    return Math.max(0, Math.floor(Math.min(this.o.limit - this.drawn, this.pool.free()) - keep));
  }

  resultSpent(tokens: number): void {
    if (this.o.basis === 'billed') return;
    // Spoken once handed to the store (the runner counts it in flight): no longer held, still drawn.
    this.drawn += tokens;
  }

  /** Releases everything held; called as the call's usage is handed to the store (or the call failed). */
  close(): void {
    this.pool.hold(-this.held);
    this.held = 0;
    this.pending = 0;
  }
}
