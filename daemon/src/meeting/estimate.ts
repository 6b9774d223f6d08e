/**
 * What a meeting is expected to cost before it starts: the real engine plays it — the same start
 * (the context attached as a start attaches it), planner, runner, prompts and budget — on the
 * filler (see filler.ts), a model whose every reply is as long as its call allows and never
 * settles, with an in-memory log and a clock that does not move. So the estimate cannot drift from
 * the meeting: each call it counts is a call the engine made, and it is an upper figure for models
 * that answer shorter or agree sooner. No provider is called, nothing is written.
 *
 * Played twice: with every round run (the budget out of the way), and with the budget as set, to
 * say where it would stop the meeting first.
 *
 * Bounded: both plays together may bill at most `ESTIMATE_MAX_BILLED` tokens on the filler (the
 * work is about proportional to them: every prompt is built and counted, every reply written).
 * A meeting whose replies alone pass it (workers × rounds × reply cap) is refused before it is
 * played; one that passes it while playing is stopped there. Either way the answer is one line,
 * "too large to estimate: …", never a partial figure. The caller's signal (the client hung up,
 * the CLI was interrupted) stops a play between two calls.
 */
import type {
  EstimateLine,
  MeetingEvent,
  MeetingEstimate,
  MeetingState,
  Participant,
  Price,
  StartMeetingParams,
} from '@roundtable/protocol';
import {
  DEFAULT_CONFIG,
  RpcError,
  billOf,
  costOf,
  formatCount,
  plannedRounds,
  spokenTokensOf,
} from '@roundtable/protocol';
import { MemoryStore } from '../store/memoryStore';
import type { Clock } from './clock';
import { Meeting } from './engine';
import { EstimateMeter, FillerRoom, rememberingCount, type FilledCall } from './filler';
import { prepareStart, type PreparedStart } from './prepared';

/**
 * Most tokens both plays of an estimate may bill on the filler: about 5 s and a few hundred MB
 * on a laptop core (10 workers × 20 rounds of 600-token replies bill about 4,200,000).
 */
export const ESTIMATE_MAX_BILLED = 10_000_000;

export interface EstimateOptions {
  /** Abandons the estimate (the client disconnected, the CLI was interrupted). */
  signal?: AbortSignal;
  /** Overrides `ESTIMATE_MAX_BILLED` (tests). */
  maxBilled?: number;
  /** Hears what the start reads, once it is read (the daemon keeps it for `meeting/startPrepared`). */
  onPrepared?: (prepared: PreparedStart) => void;
}

/** Time stands still: no time limit or timeout fires while the filler answers at once. */
const STILL: Clock = { now: () => 0, setTimer: () => () => undefined };

/** A budget no meeting reaches: the full run's. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

interface Played {
  state: MeetingState;
  calls: FilledCall[];
  /** Spoken tokens by the round they were spoken in (0: the opening). */
  spokenByRound: Map<number, number>;
}

/**
 * Plays a meeting on the filler to its end. A consensus that escalates waits for the human: the
 * estimate has them defer, which closes the meeting and writes its digest.
 */
async function play(
  prepared: PreparedStart,
  config: StartMeetingParams['config'],
  count: (text: string) => number,
  meter: EstimateMeter,
): Promise<Played> {
  const room = new FillerRoom(count, meter);
  const spokenByRound = new Map<number, number>();
  const onEvent = (e: MeetingEvent) => {
    const round = 'round' in e && typeof e.round === 'number' ? e.round : 0;
    spokenByRound.set(round, (spokenByRound.get(round) ?? 0) + spokenTokensOf(e));
  };
  const deps = {
    store: new MemoryStore(() => STILL.now()),
    providerFor: (p: Participant) => room.providerFor(p),
    clock: STILL,
    onEvent,
  };
  // The context (or a review's change and records) the start attaches, read once for both plays.
  const params = { ...prepared.params, config: { ...prepared.params.config, ...config } };
  const meeting = await Meeting.open(deps, 'estimate', params, prepared.context);
  // Stopped (cancelled or past the cap): the meeting is cut there, its calls under way aborted.
  meter.onStop = () => void meeting.cut('cut', 'the estimate stopped').catch(() => undefined);
  let state = await meeting.run();
  if (state.status === 'awaiting_human') {
    await meeting.resolve('defer');
    state = await meeting.run();
  }
  return { state, calls: room.calls, spokenByRound };
}

/** "30 workers × 100 rounds" */
function sizeOf(params: StartMeetingParams, rounds: number): string {
  const workers = params.participants.filter((p) => p.role === 'worker').length;
  return `${workers} workers × ${rounds} rounds`;
}

/** The advice of a refusal. */
const SMALLER = 'estimate a smaller meeting (fewer rounds or workers, a lower reply cap) and scale it up';

/**
 * Refuses at once, in closed form, a roundtable whose workers' replies alone would pass the cap:
 * on the filler every worker speaks every round at its full reply cap, so workers × rounds ×
 * reply cap is a floor of what the full play bills.
 */
function refuseTooLarge(params: StartMeetingParams, rounds: number, replyMaxTokens: number, max: number): void {
  if (params.mode !== 'roundtable') return;
  const workers = params.participants.filter((p) => p.role === 'worker').length;
  const floor = workers * rounds * replyMaxTokens;
  if (floor <= max) return;
  throw new RpcError(
    'too_large',
    `too large to estimate: ${sizeOf(params, rounds)} of ${formatCount(replyMaxTokens)}-token replies bill at least ${formatCount(floor)} tokens, over the estimate's cap of ${formatCount(max)}; ${SMALLER}`,
  );
}

/** After a play: the one line of an estimate stopped on its cap or cancelled. */
function stopIfStopped(params: StartMeetingParams, rounds: number, meter: EstimateMeter): void {
  if (meter.stopped === 'cancelled') throw new RpcError('bad_request', 'the estimate was cancelled');
  if (meter.stopped === 'too_large')
    throw new RpcError(
      'too_large',
      `too large to estimate: ${sizeOf(params, rounds)} went past the estimate's cap of ${formatCount(meter.max)} billed tokens ${meter.round > 0 ? `in round ${meter.round}` : 'in the opening'}; ${SMALLER}`,
    );
}

/** Where a call is counted: the opening, a round, or the closing digest. */
function partOf(c: FilledCall): number | 'closing' {
  return c.purpose === 'digest' ? 'closing' : c.round;
}

function lineOf(calls: FilledCall[], spokenTokens: number, prices: Record<string, Price> | undefined): EstimateLine {
  let promptTokens = 0;
  let cachedTokens = 0;
  let completionTokens = 0;
  let costUsd = 0;
  for (const c of calls) {
    promptTokens += c.promptTokens;
    cachedTokens += c.cachedTokens;
    completionTokens += c.completionTokens;
    const price = prices?.[c.model];
    if (price) costUsd += costOf(c, price);
  }
  return {
    calls: calls.length,
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    ...(cachedTokens > 0 ? { cachedTokens } : {}),
    spokenTokens,
    ...(prices ? { costUsd } : {}),
  };
}

/** Whether the budget ended the meeting before the full run's last round. */
function budgetStopped(budgeted: MeetingState, full: MeetingState): boolean {
  return budgeted.closed?.reason === 'budget_exhausted' || budgeted.rounds.length < full.rounds.length;
}

/**
 * Expected calls, billed and cached tokens and money of a meeting: per round if every round runs,
 * the total, and where the budget would stop it first. Reads the context the start would attach
 * (same folder, same refusals, same budget; reads only), once for both plays.
 */
export async function estimateMeeting(params: StartMeetingParams, o: EstimateOptions = {}): Promise<MeetingEstimate> {
  const config = { ...DEFAULT_CONFIG, ...params.config };
  const meter = new EstimateMeter(o.maxBilled ?? ESTIMATE_MAX_BILLED, o.signal);
  const rounds = plannedRounds(params.mode, config);
  refuseTooLarge(params, rounds, config.replyMaxTokens, meter.max);
  const count = rememberingCount();
  const prepared = await prepareStart(params);
  o.onPrepared?.(prepared);
  const full = await play(prepared, { tokenBudget: UNBOUNDED }, count, meter);
  stopIfStopped(params, rounds, meter);
  const budgeted = await play(prepared, {}, count, meter);
  stopIfStopped(params, rounds, meter);
  const prices = Object.keys(config.prices ?? {}).length > 0 ? config.prices : undefined;
  const spoken = (p: Played, round: number) => p.spokenByRound.get(round) ?? 0;
  const roundNumbers = full.state.rounds.map((r) => r.round);
  const opening = full.calls.filter((c) => partOf(c) === 0);
  const lm = full.calls.filter((c) => c.provider === 'vscode-lm').length;
  return {
    mode: params.mode,
    budget: config.tokenBudget,
    budgetBasis: config.budgetBasis ?? 'spoken',
    opening: lineOf(opening, spoken(full, 0), prices),
    rounds: roundNumbers.map((round) => ({
      round,
      ...lineOf(
        full.calls.filter((c) => partOf(c) === round),
        spoken(full, round),
        prices,
      ),
    })),
    closing: lineOf(
      full.calls.filter((c) => partOf(c) === 'closing'),
      0,
      prices,
    ),
    allRounds: { ...lineOf(full.calls, full.state.spokenTokens, prices), rounds: roundNumbers.length },
    ...(params.mode === 'roundtable'
      ? {
          voteAlone: lineOf(
            full.calls.filter((c) => c.round === 1 && (c.purpose === 'turn' || c.purpose === 'followup')),
            0,
            prices,
          ),
        }
      : {}),
    ...(budgetStopped(budgeted.state, full.state)
      ? {
          budgetCut: {
            ...lineOf(budgeted.calls, budgeted.state.spokenTokens, prices),
            rounds: budgeted.state.rounds.length,
          },
        }
      : {}),
    ...(lm ? { vscodeRequests: lm } : {}),
    unpricedModels: prices ? billOf(full.state).unpricedModels : [],
  };
}
