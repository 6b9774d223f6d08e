/**
 * The real bill of a meeting, next to the budget: prompt + completion tokens of every call (from
 * the server's usage), cached prompt tokens where reported, requests per provider (VS Code's
 * language models count premium requests), and money where prices are known. One definition for
 * the digest, the minutes, the decision record, the room's meter, the status bar and `--json`.
 */
import type { Price, ProviderKind } from './domain';
import type { MeetingState, UsageTotals } from './state';

export interface BillLine {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  totalTokens: number;
  calls: number;
  /** Calls whose usage was counted locally because the server reported none. */
  estimatedCalls: number;
  /** US dollars, when a price is known for the model. */
  costUsd?: number;
}

export interface Bill extends BillLine {
  byParticipant: Record<string, BillLine & { model: string; provider: ProviderKind }>;
  byRole: Record<string, BillLine>;
  /** Calls per provider kind (`vscode-lm` calls are the requests Copilot users count). */
  requestsByProvider: Partial<Record<ProviderKind, number>>;
  /** Models that were billed but have no price (money is then a lower bound, or absent). */
  unpricedModels: string[];
}

/** What `tokens` cost at `price` (cached prompt tokens at the cached price where one is given). */
export function costOf(
  t: Pick<UsageTotals, 'promptTokens' | 'completionTokens' | 'cachedTokens'>,
  price: Price,
): number {
  const cached = Math.min(t.cachedTokens, t.promptTokens);
  return (
    ((t.promptTokens - cached) * price.input +
      cached * (price.cachedInput ?? price.input) +
      t.completionTokens * price.output) /
    1_000_000
  );
}

function line(t: UsageTotals, price?: Price): BillLine {
  return {
    promptTokens: t.promptTokens,
    completionTokens: t.completionTokens,
    cachedTokens: t.cachedTokens ?? 0,
    totalTokens: t.promptTokens + t.completionTokens,
    calls: t.calls,
    estimatedCalls: t.estimatedCalls,
    ...(price ? { costUsd: costOf({ ...t, cachedTokens: t.cachedTokens ?? 0 }, price) } : {}),
  };
}

function sum(lines: BillLine[]): BillLine {
  const out: BillLine = {
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    totalTokens: 0,
    calls: 0,
    estimatedCalls: 0,
  };
  for (const l of lines) {
    out.promptTokens += l.promptTokens;
    out.completionTokens += l.completionTokens;
    out.cachedTokens += l.cachedTokens;
    out.totalTokens += l.totalTokens;
    out.calls += l.calls;
    out.estimatedCalls += l.estimatedCalls;
    if (l.costUsd !== undefined) out.costUsd = (out.costUsd ?? 0) + l.costUsd;
  }
  return out;
}

/** The bill of a meeting from its state (prices from the meeting's config). */
export function billOf(s: MeetingState): Bill {
  const prices = s.config.prices ?? {};
  const byParticipant: Bill['byParticipant'] = {};
  const requestsByProvider: Bill['requestsByProvider'] = {};
  const unpriced = new Set<string>();
  for (const [name, t] of Object.entries(s.usageByParticipant)) {
    const p = s.participants.find((x) => x.name === name);
    const model = p?.model ?? 'unknown';
    const provider: ProviderKind = p?.provider ?? 'openai';
    const price = prices[model];
    if (!price && provider !== 'scripted') unpriced.add(model);
    byParticipant[name] = { ...line(t, price), model, provider };
    requestsByProvider[provider] = (requestsByProvider[provider] ?? 0) + t.calls;
  }
  const byRole: Bill['byRole'] = {};
  for (const [role, t] of Object.entries(s.usageByRole)) byRole[role] = line(t);
  const total = sum(Object.values(byParticipant));
  return { ...total, byParticipant, byRole, requestsByProvider, unpricedModels: [...unpriced].sort() };
}

const n = (v: number) => v.toLocaleString('en-US');

/** `$0.0123` with enough digits to be non-zero for small bills. */
export function formatUsd(v: number): string {
  return `$${v >= 1 ? v.toFixed(2) : v >= 0.01 ? v.toFixed(3) : v.toFixed(4)}`;
}

/**
 * One line naming both figures: "spoken 601 / 15,000 budget · billed 9,040 tokens (8,120 prompt,
 * 920 completion, 0 cached) in 23 calls · 12 VS Code requests · $0.0041".
 */
export function formatBill(s: MeetingState, bill: Bill = billOf(s)): string {
  const parts = [
    `spoken ${n(s.spokenTokens)} / ${n(s.config.tokenBudget)} budget`,
    `billed ${n(bill.totalTokens)} tokens (${n(bill.promptTokens)} prompt, ${n(bill.completionTokens)} completion, ${n(bill.cachedTokens)} cached) in ${n(bill.calls)} calls`,
  ];
  const lm = bill.requestsByProvider['vscode-lm'];
  if (lm) parts.push(`${n(lm)} VS Code model requests`);
  if (bill.costUsd !== undefined)
    parts.push(
      `${formatUsd(bill.costUsd)}${bill.unpricedModels.length ? ` + unpriced (${bill.unpricedModels.join(', ')})` : ''}`,
    );
  return parts.join(' · ');
}
