/**
 * Wall time on a local server, and the prefill its prefix cache skips.
 *
 * The same meetings as the money bench (wholeMeeting.ts: 5 workers, judge, assistant, parallel
 * order, replies that never agree), on a loopback server that takes as long as a local one would:
 * a call's first token after the prefill of its uncached prompt tokens, then one decode step per
 * completion token (`LOCAL`). The cache is vLLM's automatic prefix caching: the longest common
 * prefix with any earlier prompt, in 16-token blocks, no minimum (llama.cpp's server reuses a
 * slot's previous prompt the same way).
 *
 * The floor of a round is what no engine can beat there: the slowest worker plus the slowest call
 * that must wait for every worker (the judge's review, a compaction beside it), each from the
 * server's own figures. The naive chat is not timed (it is round-robin: its wall time is the sum
 * of its calls, computed from what the server reported); only its cached tokens are compared.
 */
import { KeyedLimiter } from '../daemon/src/daemon/limiter';
import type { LatencyModel } from '../test/fakes/openaiServer';
import type { ServerModel } from './serverModel';
import { runNaive, runOurs, type Bill, type OurRun } from './wholeMeeting';

/**
 * llama.cpp on an M2 Ultra (76-core GPU), LLaMA 7B Q4_0: prompt processing 1,164 tokens/s
 * (pp512, ggml-org/llama.cpp#3084) and generation 94 tokens/s (tg128, "Performance of llama.cpp
 * on Apple Silicon M-series", ggml-org/llama.cpp discussion #4167). One request at a time per
 * slot; the slowdown of batching parallel slots is not modelled (it would raise the floor, not
 * the engine's share).
 */
export const LOCAL: LatencyModel = { prefillTokensPerSec: 1_164, decodeTokensPerSec: 94 };
const LOCAL_SERVER: ServerModel = { cache: { minTokens: 0, blockTokens: 16 }, latency: LOCAL };

export interface WallRow {
  rounds: number;
  wallS: number;
  floorS: number;
  /** The whole meeting's wall time over its floor (briefing and digest included). */
  meetingOverFloor: number;
  /** Per round: wall time over the floor. */
  roundOverFloor: number[];
  /** Mean over rounds of wall time minus the floor: what the engine (and this machine) add to a round. */
  overheadMsPerRound: number;
  /** Seconds of prefill the cache skipped: cached prompt tokens at the prefill rate. */
  prefillSkippedS: { ours: number; naive: number };
  /** Seconds of prefill paid: uncached prompt tokens at the prefill rate. */
  prefillPaidS: { ours: number; naive: number };
  /** The naive chat's wall time on this server: its calls one after another. */
  naiveWallS: number;
}

const seconds = (tokens: number, perSec: number) => +(tokens / perSec).toFixed(1);

function rowOf(ours: OurRun, naive: Bill): WallRow {
  const prefill = LOCAL.prefillTokensPerSec;
  const fresh = (b: Bill) => b.money.promptTokens - b.money.cachedTokens;
  return {
    rounds: ours.rounds,
    wallS: +(ours.wallMs / 1000).toFixed(1),
    floorS: +(ours.meetingFloorMs / 1000).toFixed(1),
    meetingOverFloor: +(ours.wallMs / ours.meetingFloorMs).toFixed(3),
    roundOverFloor: ours.roundMs.map((ms, k) => +(ms / (ours.roundFloorMs[k] ?? ms)).toFixed(3)),
    overheadMsPerRound: Math.round(
      ours.roundMs.reduce((n, ms, k) => n + ms - (ours.roundFloorMs[k] ?? ms), 0) / Math.max(1, ours.roundMs.length),
    ),
    prefillSkippedS: {
      ours: seconds(ours.money.cachedTokens, prefill),
      naive: seconds(naive.money.cachedTokens, prefill),
    },
    prefillPaidS: { ours: seconds(fresh(ours), prefill), naive: seconds(fresh(naive), prefill) },
    naiveWallS: +(fresh(naive) / prefill + naive.money.completionTokens / LOCAL.decodeTokensPerSec).toFixed(1),
  };
}

/** Ours one meeting at a time (clean wall times), the naive rooms together on untimed servers. */
export async function benchWallTime(lengths = [2, 3, 5, 10, 20]): Promise<{ rows: WallRow[]; limited: WallRow }> {
  // Warm-up, not reported: the first meeting of the process loads the tokenizer and the HTTP client.
  await runOurs(1, LOCAL_SERVER);
  const ours: Awaited<ReturnType<typeof runOurs>>[] = [];
  for (const rounds of lengths) ours.push(await runOurs(rounds, LOCAL_SERVER));
  // Through the daemon's limiter with a ceiling of 4 calls per endpoint (ROUNDTABLE_ENDPOINT_CONCURRENCY=4,
  // the default before the limit became the largest round): five workers wait a turn every round.
  const limiter = new KeyedLimiter(() => 4);
  const limited = await runOurs(3, LOCAL_SERVER, {
    schedule: (_p, call, signal) => limiter.run('local', call, signal, { owner: 'bench', demand: 5 }),
  });
  const untimed = { cache: LOCAL_SERVER.cache };
  const naive = await Promise.all(ours.map((o, i) => runNaive(lengths[i] ?? 0, o.requests, untimed)));
  const naive3 = naive[lengths.indexOf(3)] ?? (await runNaive(3, limited.requests, untimed));
  return {
    rows: ours.map((o, i) => rowOf(o.run, naive[i] as Bill)),
    limited: rowOf(limited.run, naive3),
  };
}
