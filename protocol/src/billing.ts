/**
 * The real bill of a meeting, next to the budget: prompt + completion tokens of every call (from
 * the server's usage), cached prompt tokens where reported, requests per provider (VS Code's
 * language models count premium requests), and money where prices are known. One definition for
 * the digest, the minutes, the decision record, the room's meter, the status bar and `--json`.
 */
import type { MeetingEstimate, Price, ProviderKind } from './domain';
import type { MeetingState, UsageTotals } from './state';
import { formatCount } from './text';

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
  /** Of `completionTokens`, how many were the models' thinking (reasoning models). */
  reasoningTokens?: number;
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
    ...(t.reasoningTokens ? { reasoningTokens: t.reasoningTokens } : {}),
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
    if (l.reasoningTokens) out.reasoningTokens = (out.reasoningTokens ?? 0) + l.reasoningTokens;
  }
  return out;
}

/** Prompt + completion tokens of every call so far: what `budgetBasis: 'billed'` measures. */
export function billedTokensOf(s: Pick<MeetingState, 'usageByParticipant'>): number {
  let n = 0;
  for (const t of Object.values(s.usageByParticipant)) n += t.promptTokens + t.completionTokens;
  return n;
}

/** What the meeting's budget measures, by its basis. */
export function budgetSpentOf(s: MeetingState): number {
  return s.config.budgetBasis === 'billed' ? billedTokensOf(s) : s.spokenTokens;
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

const n = formatCount;

/** `$0.0123` with enough digits to be non-zero for small bills. */
export function formatUsd(v: number): string {
  return `$${v >= 1 ? v.toFixed(2) : v >= 0.01 ? v.toFixed(3) : v.toFixed(4)}`;
}

/** The figures one bill line names: spoken against the budget (or billed, by the basis) and billed. */
export interface BillFigures {
  spoken: number;
  budget: number;
  basis: 'spoken' | 'billed';
  billed: Pick<
    BillLine,
    'promptTokens' | 'completionTokens' | 'cachedTokens' | 'totalTokens' | 'calls' | 'costUsd' | 'reasoningTokens'
  >;
  /** Requests made to VS Code's language models (Copilot's premium requests). */
  vscodeRequests?: number;
  unpricedModels?: string[];
}

export function billFigures(s: MeetingState, bill: Bill = billOf(s)): BillFigures {
  const lm = bill.requestsByProvider['vscode-lm'];
  return {
    spoken: s.spokenTokens,
    budget: s.config.tokenBudget,
    basis: s.config.budgetBasis ?? 'spoken',
    billed: bill,
    ...(lm ? { vscodeRequests: lm } : {}),
    ...(bill.unpricedModels.length ? { unpricedModels: bill.unpricedModels } : {}),
  };
}

/**
 * One line naming both figures, the budget next to the one it caps: "spoken 601 / 15,000 budget ·
 * billed 9,040 tokens (8,120 prompt, 920 completion, 0 cached) in 23 calls · 12 VS Code model
 * requests · $0.0041" (with `budgetBasis: 'billed'`: "spoken 601 · billed 9,040 / 15,000 budget …").
 */
export function formatBillFigures(f: BillFigures): string {
  const b = f.billed;
  const billedBudget = f.basis === 'billed';
  const parts = [
    billedBudget ? `spoken ${n(f.spoken)}` : `spoken ${n(f.spoken)} / ${n(f.budget)} budget`,
    `billed ${n(b.totalTokens)}${billedBudget ? ` / ${n(f.budget)} budget` : ''} tokens (${n(b.promptTokens)} prompt, ${n(b.completionTokens)} completion${b.reasoningTokens ? ` of which ${n(b.reasoningTokens)} thinking` : ''}, ${n(b.cachedTokens)} cached) in ${n(b.calls)} call${b.calls === 1 ? '' : 's'}`,
  ];
  if (f.vscodeRequests) parts.push(`${n(f.vscodeRequests)} VS Code model requests`);
  if (b.costUsd !== undefined)
    parts.push(
      `${formatUsd(b.costUsd)}${f.unpricedModels?.length ? ` + unpriced (${f.unpricedModels.join(', ')})` : ''}`,
    );
  return parts.join(' · ');
}

/** `formatBillFigures` of a meeting's state. */
export function formatBill(s: MeetingState, bill: Bill = billOf(s)): string {
  return formatBillFigures(billFigures(s, bill));
}

/** The short form for a status bar: "601/15,000 spoken · 9,040 billed · $0.0041". */
export function formatBillShort(s: MeetingState, bill: Bill = billOf(s)): string {
  const basis = s.config.budgetBasis ?? 'spoken';
  const spoken = basis === 'spoken' ? `${n(s.spokenTokens)}/${n(s.config.tokenBudget)}` : n(s.spokenTokens);
  const billed = basis === 'billed' ? `${n(bill.totalTokens)}/${n(s.config.tokenBudget)}` : n(bill.totalTokens);
  return [
    `${spoken} spoken`,
    `${billed} billed`,
    ...(bill.costUsd !== undefined ? [formatUsd(bill.costUsd)] : []),
  ].join(' · ');
}

/**
 * What a vote alone would cost beside the debate, in words: "a vote alone (round 1's 3 answers,
 * by majority): about 2,400 billed tokens in 3 calls · $0.0031, 1/7 of the debate". Undefined for
 * a consensus meeting (it is a vote) or an estimate without the figure.
 */
export function voteAloneLine(e: MeetingEstimate): string | undefined {
  const v = e.voteAlone;
  if (!v || v.calls === 0) return undefined;
  const share = e.allRounds.totalTokens > 0 ? Math.round(e.allRounds.totalTokens / Math.max(1, v.totalTokens)) : 0;
  const cost = v.costUsd !== undefined ? ` · ${formatUsd(v.costUsd)}` : '';
  const of = share > 1 ? `, about 1/${share} of the debate` : '';
  return `a vote alone (round 1's ${v.calls} answers, by majority): about ${n(v.totalTokens)} billed tokens in ${n(v.calls)} calls${cost}${of}`;
}

/**
 * An estimate in one line, for a start flow: "about 44,166 billed tokens in 17 calls over 3 rounds
 * · $0.0412 (budget stops it after round 7: 30,120 tokens)".
 */
export function formatEstimateShort(e: MeetingEstimate): string {
  const a = e.allRounds;
  const parts = [`about ${n(a.totalTokens)} billed tokens in ${n(a.calls)} calls over ${a.rounds} rounds`];
  if (e.vscodeRequests) parts.push(`${n(e.vscodeRequests)} VS Code model requests`);
  if (a.costUsd !== undefined) parts.push(formatUsd(a.costUsd));
  const line = parts.join(' · ');
  const cut = e.budgetCut;
  const budget = cut
    ? ` (the ${n(e.budget)}-token ${e.budgetBasis} budget stops it after round ${cut.rounds}: about ${n(cut.totalTokens)} tokens${cut.costUsd !== undefined ? `, ${formatUsd(cut.costUsd)}` : ''})`
    : '';
  // Beside the debate, what the workers' first answers alone would cost (roundtable).
  const v = e.voteAlone;
  const vote = v?.calls
    ? ` · a vote alone: about ${n(v.totalTokens)} tokens${v.costUsd !== undefined ? `, ${formatUsd(v.costUsd)}` : ''}`
    : '';
  return `${line}${budget}${vote}`;
}
