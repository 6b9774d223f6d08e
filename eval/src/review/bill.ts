/**
 * What each system of a review eval is billed, from the review meeting's own log (its
 * `usage_recorded` events: the servers' reported usage, call by call). The one computation
 * `roundtable eval --review` and `npm run bench -- review` both report:
 *
 * - a reviewer alone: its proposal call (a worker's round-0 call) and, when its first reply held no
 *   findings list, the call that asked it again — exactly what the model reviewing alone costs;
 * - the union and the majority of the panel: every reviewer's proposal calls (merging is free);
 * - the full review: every call of the meeting (proposals, ballots, and whatever else it asked).
 */
import type { MeetingEvent, Participant, Prices, Role } from '@roundtable/protocol';
import { costOf } from '@roundtable/protocol';

/** One model call as the log records it. */
export interface CallUsage {
  participant: string;
  role: Role;
  purpose: string;
  /** The round the call served (0: a reviewer's proposal, 1 and later: its ballots). */
  round?: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

/** A system's bill on one case. */
export interface SystemBill {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  /** Prompt + completion tokens: what the servers bill. */
  billedTokens: number;
  /** US dollars by the prices given; absent without prices. */
  costUsd?: number;
  /** Models billed with no price: `costUsd` leaves them out. */
  unpricedModels: string[];
}

/** The calls a meeting's log records, in order. */
export function callsOf(events: readonly MeetingEvent[]): CallUsage[] {
  return events.flatMap((e) =>
    e.type === 'usage_recorded'
      ? [
          {
            participant: e.participant,
            role: e.role,
            purpose: e.purpose,
            ...(e.round !== undefined ? { round: e.round } : {}),
            promptTokens: e.usage.promptTokens,
            completionTokens: e.usage.completionTokens,
            cachedTokens: e.usage.cachedTokens ?? 0,
          },
        ]
      : [],
  );
}

/** A reviewer's proposal call (or its ask-again): a worker's call for round 0. */
export const isProposal = (c: CallUsage): boolean => c.role === 'worker' && c.round === 0;

/** The bill of these calls, priced by each participant's model. */
export function billOfCalls(
  calls: readonly CallUsage[],
  participants: readonly Participant[],
  prices?: Prices,
): SystemBill {
  const model = new Map(participants.map((p) => [p.name, p]));
  const bill: SystemBill = {
    calls: 0,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    billedTokens: 0,
    unpricedModels: [],
  };
  const unpriced = new Set<string>();
  const priced = prices !== undefined && Object.keys(prices).length > 0;
  for (const c of calls) {
    bill.calls++;
    bill.promptTokens += c.promptTokens;
    bill.completionTokens += c.completionTokens;
    bill.cachedTokens += c.cachedTokens;
    bill.billedTokens += c.promptTokens + c.completionTokens;
    if (!priced) continue;
    const p = model.get(c.participant);
    const price = p ? prices[p.model] : undefined;
    if (price) bill.costUsd = (bill.costUsd ?? 0) + costOf(c, price);
    else if (p?.provider !== 'scripted') unpriced.add(p?.model ?? c.participant);
  }
  if (priced) bill.costUsd ??= 0;
  bill.unpricedModels = [...unpriced].sort();
  return bill;
}

/** The bills of a review's systems: each reviewer alone (by seat), the panel's proposals, the whole review. */
export interface ReviewBills {
  alone: Record<string, SystemBill>;
  proposals: SystemBill;
  review: SystemBill;
}

export function reviewBills(
  events: readonly MeetingEvent[],
  participants: readonly Participant[],
  prices?: Prices,
): ReviewBills {
  const calls = callsOf(events);
  const proposals = calls.filter(isProposal);
  const workers = participants.filter((p) => p.role === 'worker');
  return {
    alone: Object.fromEntries(
      workers.map((w) => [
        w.name,
        billOfCalls(
          proposals.filter((c) => c.participant === w.name),
          participants,
          prices,
        ),
      ]),
    ),
    proposals: billOfCalls(proposals, participants, prices),
    review: billOfCalls(calls, participants, prices),
  };
}
