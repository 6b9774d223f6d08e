/**
 * The bill from the terminal: `--prices FILE` and `--budget-basis` into the meeting's config,
 * `tokens.billed` and `cost` in `--json`, and `--estimate` (what the meeting is expected to cost,
 * printed before anything starts).
 */
import type {
  EstimateLine,
  MeetingConfig,
  MeetingEstimate,
  MeetingState,
  StartMeetingParams,
} from '@roundtable/protocol';
import { RpcError, billOf, formatCount, formatUsd, voteAloneLine } from '@roundtable/protocol';
import { startMemoryCore } from '../../daemon/src/daemon/localCore';
import { UsageError } from '@roundtable/client/usage';
import { loadPrices } from '@roundtable/client/prices';

export const BILL_USAGE = `  --prices FILE           JSON: model → {"input": $, "output": $, "cachedInput"?: $} per million tokens (money in the bill)
  --budget-basis BASIS    spoken (default: what is said in the room) | billed (prompt + completion of every call)
  --estimate              print the expected calls, tokens and cost of this meeting, then exit without starting it`;

/** The flags of this module, as parseCli declares them. */
export const BILL_OPTIONS = {
  prices: { type: 'string' },
  'budget-basis': { type: 'string' },
  estimate: { type: 'boolean' },
} as const;

/** The config fields the billing flags set (prices, budget basis). */
export function billingConfig(values: { prices?: string; 'budget-basis'?: string }): Partial<MeetingConfig> {
  const out: Partial<MeetingConfig> = {};
  const basis = values['budget-basis'];
  if (basis !== undefined) {
    if (basis !== 'spoken' && basis !== 'billed')
      throw new UsageError(`--budget-basis must be spoken or billed, got "${basis}"`);
    out.budgetBasis = basis;
  }
  if (values.prices !== undefined) out.prices = loadPrices(values.prices);
  return out;
}

export interface BilledJson {
  prompt: number;
  completion: number;
  cached: number;
  total: number;
  calls: number;
  perParticipant: Record<
    string,
    {
      model: string;
      provider: string;
      prompt: number;
      completion: number;
      cached: number;
      total: number;
      calls: number;
      costUsd?: number;
    }
  >;
}

export interface CostJson {
  usd: number;
  /** Models billed without a known price: `usd` leaves them out. */
  unpricedModels: string[];
}

/** `tokens.billed` and `cost` of `--json`: the servers' usage summed, money when prices were given. */
export function billJson(s: MeetingState): { billed: BilledJson; cost?: CostJson } {
  const bill = billOf(s);
  const perParticipant: BilledJson['perParticipant'] = {};
  for (const [name, l] of Object.entries(bill.byParticipant)) {
    perParticipant[name] = {
      model: l.model,
      provider: l.provider,
      prompt: l.promptTokens,
      completion: l.completionTokens,
      cached: l.cachedTokens,
      total: l.totalTokens,
      calls: l.calls,
      ...(l.costUsd !== undefined ? { costUsd: l.costUsd } : {}),
    };
  }
  const priced = s.config.prices !== undefined && Object.keys(s.config.prices).length > 0;
  return {
    billed: {
      prompt: bill.promptTokens,
      completion: bill.completionTokens,
      cached: bill.cachedTokens,
      total: bill.totalTokens,
      calls: bill.calls,
      perParticipant,
    },
    ...(priced ? { cost: { usd: bill.costUsd ?? 0, unpricedModels: bill.unpricedModels } } : {}),
  };
}

const n = formatCount;

function row(label: string, l: EstimateLine): string {
  return `  ${label.padEnd(14)}${String(l.calls).padStart(6)}${n(l.promptTokens).padStart(12)}${n(l.completionTokens).padStart(12)}${n(l.totalTokens).padStart(12)}${n(l.spokenTokens).padStart(10)}${l.costUsd !== undefined ? formatUsd(l.costUsd).padStart(11) : ''}`;
}

/**
 * The estimate as the terminal shows it: a table per round, the total, and where the budget would
 * stop it. A review's rows are its proposals, its vote and its challenge rounds (it has no digest call).
 */
export function formatEstimate(e: MeetingEstimate, o: { review?: boolean } = {}): string {
  const priced = e.allRounds.costUsd !== undefined;
  const out = [
    `Estimate (${o.review ? 'review' : e.mode}; every reply as long as its cap, so an upper figure for models that answer shorter):`,
    `  ${''.padEnd(14)}${'calls'.padStart(6)}${'prompt'.padStart(12)}${'completion'.padStart(12)}${'billed'.padStart(12)}${'spoken'.padStart(10)}${priced ? 'cost'.padStart(11) : ''}`,
    row(o.review ? 'proposals' : 'opening', e.opening),
    ...e.rounds.map((r) =>
      row(o.review ? (r.round === 1 ? 'vote' : `challenge ${r.round - 1}`) : `round ${r.round}`, r),
    ),
    ...(o.review && e.closing.calls === 0 ? [] : [row('digest', e.closing)]),
    row(`all ${e.allRounds.rounds} rounds`, e.allRounds),
  ];
  const basis = e.budgetBasis === 'billed' ? 'billed' : 'spoken';
  if (e.budgetCut)
    out.push(
      `Budget ${n(e.budget)} ${basis} tokens: the meeting would stop after round ${e.budgetCut.rounds}, having billed about ${n(e.budgetCut.totalTokens)} tokens in ${e.budgetCut.calls} calls${e.budgetCut.costUsd !== undefined ? ` (${formatUsd(e.budgetCut.costUsd)})` : ''}.`,
    );
  else out.push(`Budget ${n(e.budget)} ${basis} tokens: every round fits.`);
  const vote = voteAloneLine(e);
  if (vote) out.push(`${vote.charAt(0).toUpperCase()}${vote.slice(1)}.`);
  if (e.vscodeRequests) out.push(`VS Code language model requests: about ${n(e.vscodeRequests)}.`);
  if (e.unpricedModels.length) out.push(`No price for ${e.unpricedModels.join(', ')}: the cost leaves them out.`);
  return out.join('\n');
}

/** `--estimate`: the estimate (with the attached context) on stdout (JSON with `--json`), exit 0; nothing is started. */
export async function printEstimate(
  params: StartMeetingParams,
  json: boolean,
  out: NodeJS.WritableStream,
): Promise<number> {
  // Interrupted (Ctrl-C), the estimate stops between two calls and says so; too large, one line.
  const stop = new AbortController();
  const onSigint = (): void => stop.abort();
  process.once('SIGINT', onSigint);
  // Asked as any client asks (`meeting/estimate`), of a core of this process that keeps nothing.
  const core = await startMemoryCore();
  let e: MeetingEstimate;
  try {
    const { startToken: _, ...estimate } = await core.conn.meetings.estimate(params, { signal: stop.signal });
    e = estimate;
  } catch (err) {
    if (err instanceof RpcError) throw new UsageError(err.message);
    throw err;
  } finally {
    process.off('SIGINT', onSigint);
    await core.close();
  }
  out.write(`${json ? JSON.stringify(e) : formatEstimate(e, { review: params.review !== undefined })}\n`);
  return 0;
}
