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
import { DEFAULT_CONFIG, billOf, costOf, spokenTokensOf } from '@roundtable/protocol';
import { MemoryStore } from '../store/memoryStore';
import type { Clock } from './clock';
import { Meeting } from './engine';
import { FillerRoom, rememberingCount, type FilledCall } from './filler';

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
async function play(params: StartMeetingParams, count: (text: string) => number): Promise<Played> {
  const room = new FillerRoom(count);
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
  const meeting = await Meeting.open(deps, 'estimate', params);
  let state = await meeting.run();
  if (state.status === 'awaiting_human') {
    await meeting.resolve('defer');
    state = await meeting.run();
  }
  return { state, calls: room.calls, spokenByRound };
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
 * (same folder, same refusals, same budget; reads only).
 */
export async function estimateMeeting(params: StartMeetingParams): Promise<MeetingEstimate> {
  const config = { ...DEFAULT_CONFIG, ...params.config };
  const count = rememberingCount();
  const full = await play({ ...params, config: { ...params.config, tokenBudget: UNBOUNDED } }, count);
  const budgeted = await play(params, count);
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
