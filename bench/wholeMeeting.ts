/**
 * The whole meeting's bill against a naive group chat, on a real OpenAI-compatible server on
 * loopback (test/fakes/openaiServer.ts, 300 ms per call, usage reported by the server), in tokens
 * and in money: both servers keep a prefix cache as OpenAI's does (the longest common prefix with
 * any earlier prompt, counted from 1,024 tokens in 128-token blocks, reported as cached_tokens),
 * and each call is priced under a gpt-5-like and a Claude-like table (`PRICES`).
 *
 * Ours: a real Meeting (5 workers, judge, assistant; parallel order) through the OpenAI
 * provider. Naive: a small round-robin runner against its own server with the same panel, the
 * same system prompts and the same replies: every worker turn and every judge review sends the
 * full transcript so far (briefing, every reply, every judge note), plus the same briefing call
 * and a digest over the full transcript. Billed tokens are prompt + completion as the server
 * reported them; nothing is estimated.
 *
 * The naive agents' system messages are their name, then our room's rules.
 *
 * The fake models: a worker's reply is ~120 tokens and never agrees (one worker always
 * disagrees), the judge writes two correction lines, the assistant's summary grows 150 tokens
 * per round it covers up to 400 (80% of its 500-token cap), the briefing ~100 and the digest
 * ~70 tokens.
 */
import type { Participant, ChatMessage } from '@roundtable/protocol';
import { systemClock } from '../daemon/src/meeting/clock';
import { Meeting } from '../daemon/src/meeting/engine';
import { OpenAIProvider } from '../daemon/src/providers/openai';
import { countTokens } from '../daemon/src/providers/tokens';
import type { ChatResult } from '../daemon/src/providers/types';
import { MemoryStore } from '../daemon/src/store/memoryStore';
import type { EngineDeps } from '../daemon/src/meeting/ports';
import {
  lastUserMessage,
  startFakeOpenAI,
  type ChatBody,
  type FakeOpenAI,
  type RecordedRequest,
} from '../test/fakes/openaiServer';
import { CACHE, HOSTED, LATENCY_MS, roundFloors, type ServerModel, type Stamp } from './serverModel';

/** USD per million tokens. `cacheWrite`: the price of uncached input written to the cache (Anthropic). */
export interface PriceTable {
  name: string;
  input: number;
  cachedInput: number;
  output: number;
  cacheWrite?: number;
}
export const PRICES: PriceTable[] = [
  { name: 'gpt-5', input: 1, cachedInput: 0.1, output: 8 },
  // Claude: cache reads at 10%, writes at 125% (every prompt long enough to cache is written).
  { name: 'claude', input: 3, cachedInput: 0.3, output: 15, cacheWrite: 3.75 },
];

/** What a room paid, per call as the server reported it. */
export interface Money {
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  /** Cached prompt tokens over all prompt tokens. */
  cachedShare: number;
  /** The round of the first call served partly from the cache (0 = the opening). */
  firstHitRound?: number;
  /** USD by price table name. */
  usd: Record<string, number>;
}

export function moneyOf(requests: RecordedRequest[], roundOf: (i: number) => number): Money {
  const calls = requests.filter((r) => r.path.startsWith('/v1/chat/completions') && r.usage);
  const usd: Record<string, number> = {};
  let promptTokens = 0;
  let cachedTokens = 0;
  let completionTokens = 0;
  let firstHitRound: number | undefined;
  for (const [i, r] of calls.entries()) {
    const u = r.usage!;
    const cached = u.cachedTokens ?? 0;
    promptTokens += u.promptTokens;
    cachedTokens += cached;
    completionTokens += u.completionTokens;
    if (cached > 0 && firstHitRound === undefined) firstHitRound = roundOf(i);
    for (const p of PRICES) {
      const fresh = u.promptTokens - cached;
      const write = p.cacheWrite !== undefined && u.promptTokens >= CACHE.minTokens ? p.cacheWrite : p.input;
      usd[p.name] = (usd[p.name] ?? 0) + (fresh * write + cached * p.cachedInput + u.completionTokens * p.output) / 1e6;
    }
  }
  return {
    promptTokens,
    cachedTokens,
    completionTokens,
    cachedShare: promptTokens === 0 ? 0 : cachedTokens / promptTokens,
    ...(firstHitRound !== undefined ? { firstHitRound } : {}),
    usd,
  };
}

const WORKERS = 5;
const TOPIC = 'Should we adopt a monorepo for our services?';
const WORDS =
  'the proposal improves build times but couples releases unless we gate merges on path scoped tests and keep per service versions while secrets stay in environments with owners reviewing workflow files'.split(
    ' ',
  );

/** About `tokens` tokens (the server counts one per four characters) of deterministic prose. */
export function prose(seed: number, tokens: number): string {
  const out: string[] = [];
  for (let i = 0; out.join(' ').length < tokens * 4; i++) out.push(WORDS[(seed * 7 + i * 3) % WORDS.length] as string);
  return out.join(' ');
}

/** Counts each model's calls from 1 as the server receives them: a worker's n-th call is its round n. */
export function callsPerModel(): (body: ChatBody) => { model: string; n: number } {
  const calls = new Map<string, number>();
  return (body) => {
    const model = body.model ?? '?';
    const n = (calls.get(model) ?? 0) + 1;
    calls.set(model, n);
    return { model, n };
  };
}

/**
 * The fake models. Workers and the judge answer in call order: their n-th call is round n. On a
 * server with a latency model the server takes its own time, streamed in pieces of 16 tokens.
 */
function responder(server: ServerModel): (body: ChatBody) => { text: string; delayMs?: number; chunkSize?: number } {
  const nth = callsPerModel();
  return (body) => {
    const { model, n } = nth(body);
    const reply = (text: string) => (server.latency ? { text, chunkSize: 64 } : { text, delayMs: LATENCY_MS });
    const w = /^w(\d+)$/.exec(model);
    if (w) {
      const i = Number(w[1]);
      const stance = i === 1 ? 'DISAGREE' : i % 2 ? 'AGREE' : 'NEUTRAL';
      return reply(`Round ${n}, ${model}: ${prose(i * 5 + n * 13, 110)}.\n[STANCE: ${stance}]`);
    }
    if (model === 'jude') {
      return reply(
        `@w1: claims build times improve without a measurement — cite one from round ${n}\n` +
          `@w4: repeats the release coupling point — answer w2's gating proposal instead`,
      );
    }
    const user = lastUserMessage(body);
    const summarised = /Update the rolling summary to cover everything above up to the end of round (\d+)/.exec(user);
    if (summarised)
      return reply(`Summary: ${prose(Number(summarised[1]), Math.min(400, 150 * Number(summarised[1])))}`);
    if (/Open the meeting/.test(user)) return reply(`Welcome. ${prose(3, 95)}`);
    return reply(
      'CONSENSUS_STATEMENT: the room did not converge on the monorepo\n' +
        'CONTRIBUTORS: w1 argued against on release coupling, w2 proposed gating merges on path scoped tests\n' +
        'DISSENT: w1 on release coupling, w3 and w5 neutral on secrets',
    );
  };
}

/** The benches' panel: assistant sam, judge jude, workers w1…w5, each on the model of its name. */
export function benchPanel(): Participant[] {
  return [
    { name: 'sam', role: 'assistant', provider: 'openai', model: 'sam' },
    { name: 'jude', role: 'judge', provider: 'openai', model: 'jude' },
    ...Array.from({ length: WORKERS }, (_, i) => ({
      name: `w${i + 1}`,
      role: 'worker' as const,
      provider: 'openai' as const,
      model: `w${i + 1}`,
    })),
  ];
}

function serialize(messages: { role: string; content: string }[]): string {
  return messages.map((m) => `<${m.role}>\n${m.content}\n`).join('');
}

/**
 * Prompt tokens a prefix cache could serve: for each call, the longest common prefix of its
 * prompt with the same participant's previous prompt (o200k tokens), over all prompt tokens.
 */
export function cacheableShare(requests: ChatBody[]): number {
  const last = new Map<string, string>();
  let cacheable = 0;
  let total = 0;
  for (const body of requests) {
    const text = serialize(body.messages ?? []);
    const model = body.model ?? '?';
    const before = last.get(model) ?? '';
    let i = 0;
    while (i < text.length && i < before.length && text.charCodeAt(i) === before.charCodeAt(i)) i++;
    cacheable += countTokens(text.slice(0, i));
    total += countTokens(text);
    last.set(model, text);
  }
  return total === 0 ? 0 : cacheable / total;
}

export interface Bill {
  promptTokens: number;
  completionTokens: number;
  billed: number;
  calls: number;
  wallMs: number;
  cacheableShare: number;
  money: Money;
}

function chats(fake: FakeOpenAI): ChatBody[] {
  return fake.requests.filter((r) => r.path.startsWith('/v1/chat/completions')).map((r) => r.body);
}

export interface OurRun extends Bill {
  rounds: number;
  /** Per round: wall time from its start to the next round's start (or the close). */
  roundMs: number[];
  /** Per round: the slowest worker call plus the slower of the calls that must follow it. */
  roundFloorMs: number[];
  meetingFloorMs: number;
  byPurpose: Record<string, { calls: number; billed: number }>;
}

export async function runOurs(
  rounds: number,
  server: ServerModel = HOSTED,
  deps: Pick<EngineDeps, 'schedule'> = {},
): Promise<{ run: OurRun; requests: ChatBody[] }> {
  const fake = await startFakeOpenAI(responder(server), {
    prefixCache: server.cache,
    ...(server.latency ? { latency: server.latency } : {}),
  });
  try {
    const provider = new OpenAIProvider({ baseURL: fake.baseURL });
    const stamps: Stamp[] = [];
    const t0 = performance.now();
    const m = await Meeting.open(
      {
        store: new MemoryStore(),
        providerFor: () => provider,
        clock: systemClock,
        onEvent: (e) => stamps.push({ e, t: performance.now() }),
        ...deps,
      },
      `bench-whole-${rounds}`,
      {
        topic: TOPIC,
        mode: 'roundtable',
        participants: benchPanel(),
        config: { maxRounds: rounds, tokenBudget: 10_000_000, order: 'parallel', timeLimitMs: 3_600_000 },
      },
    );
    await m.run();
    const wallMs = performance.now() - t0;
    const usage = stamps.flatMap((x) => (x.e.type === 'usage_recorded' ? [x.e] : []));
    const byPurpose: OurRun['byPurpose'] = {};
    for (const u of usage) {
      const p = (byPurpose[u.purpose] ??= { calls: 0, billed: 0 });
      p.calls++;
      p.billed += u.usage.promptTokens + u.usage.completionTokens;
    }
    const { roundMs, roundFloorMs, outsideMs } = roundFloors(stamps, server);
    const promptTokens = usage.reduce((n, u) => n + u.usage.promptTokens, 0);
    const completionTokens = usage.reduce((n, u) => n + u.usage.completionTokens, 0);
    const run: OurRun = {
      rounds: roundMs.length,
      promptTokens,
      completionTokens,
      billed: promptTokens + completionTokens,
      calls: usage.length,
      wallMs,
      roundMs,
      roundFloorMs,
      // The briefing before the first round and the digest after the last must wait too.
      meetingFloorMs: outsideMs + roundFloorMs.reduce((a, b) => a + b, 0),
      cacheableShare: cacheableShare(chats(fake)),
      money: {
        ...moneyOf(fake.requests, () => 0),
        // The engine's record says which round each call served (the server's order is arrival order).
        firstHitRound: usage.find((u) => (u.usage.cachedTokens ?? 0) > 0)?.round,
      },
      byPurpose,
    };
    return { run, requests: chats(fake) };
  } finally {
    await fake.close();
  }
}

/**
 * The naive group chat of the same panel, round-robin: each turn sees everything said so far.
 * It borrows our meeting's system prompts and briefing request, so only the context differs.
 */
export async function runNaive(rounds: number, ours: ChatBody[], server: ServerModel = HOSTED): Promise<Bill> {
  const fake = await startFakeOpenAI(responder(server), {
    prefixCache: server.cache,
    ...(server.latency ? { latency: server.latency } : {}),
  });
  const callRound: number[] = [];
  let round = 0;
  try {
    const provider = new OpenAIProvider({ baseURL: fake.baseURL });
    let promptTokens = 0;
    let completionTokens = 0;
    const t0 = performance.now();
    const call = async (model: string, messages: ChatMessage[]): Promise<string> => {
      callRound.push(round);
      const r: ChatResult = await provider.chat({
        model,
        messages,
        maxTokens: 600,
        signal: new AbortController().signal,
        meta: { participant: model, role: 'worker', purpose: 'turn', round: 0, topic: TOPIC },
      });
      promptTokens += r.usage.promptTokens;
      completionTokens += r.usage.completionTokens;
      return r.text;
    };
    // Each agent of a group chat has its own system message (its name first, as AutoGen's do), then
    // our meeting's rules, so only the context differs.
    const systemOf = (model: string): ChatMessage => {
      const content = ours.find((b) => b.model === model)?.messages?.find((m) => m.role === 'system')?.content ?? '';
      return { role: 'system', content: `You are ${model}.\n${content}` };
    };
    const briefing = (ours.find((b) => b.model === 'sam')?.messages ?? []) as ChatMessage[];
    const transcript: ChatMessage[] = [{ role: 'user', content: `Topic: ${TOPIC}` }];
    transcript.push({ role: 'user', content: `sam: ${await call('sam', briefing)}` });
    for (let r = 1; r <= rounds; r++) {
      round = r;
      for (let w = 1; w <= WORKERS; w++) {
        const text = await call(`w${w}`, [systemOf(`w${w}`), ...transcript]);
        transcript.push({ role: 'user', content: `w${w}: ${text}` });
      }
      const note = await call('jude', [systemOf('jude'), ...transcript]);
      transcript.push({ role: 'user', content: `jude: ${note}` });
    }
    round = -1;
    const digestAsk = ours.filter((b) => b.model === 'sam').at(-1)?.messages ?? [];
    const instructions = /Reply with exactly three lines:[\s\S]*$/.exec(digestAsk.at(-1)?.content ?? '')?.[0] ?? '';
    await call('sam', [
      systemOf('sam'),
      ...transcript,
      { role: 'user', content: `Write the closing digest.\n${instructions}` },
    ]);
    return {
      promptTokens,
      completionTokens,
      billed: promptTokens + completionTokens,
      calls: chats(fake).length,
      wallMs: performance.now() - t0,
      cacheableShare: cacheableShare(chats(fake)),
      money: moneyOf(fake.requests, (i) => callRound[i] ?? 0),
    };
  } finally {
    await fake.close();
  }
}

export interface WholeMeetingRow {
  rounds: number;
  ours: OurRun;
  naive: Bill;
  /** ours / naive billed tokens (target <= 0.8 at 3 rounds, <= 1/3 at 10). */
  ratio: number;
  /** ours / naive in money, by price table. */
  costRatio: Record<string, number>;
  /** Mean over rounds of round wall time / its floor (target <= 1.05). */
  roundOverFloor: number;
  meetingOverFloor: number;
}

/** Ours one meeting at a time (clean wall times), then the naive rooms together, each on its own server. */
export async function benchWholeMeeting(lengths = [2, 3, 5, 10, 20]): Promise<WholeMeetingRow[]> {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const ours: { run: OurRun; requests: ChatBody[] }[] = [];
  // Warm-up, not reported: the first meeting of the process pays for loading the tokenizer and
  // the HTTP client, which is not the cost of a round.
  await runOurs(1);
  for (const rounds of lengths) ours.push(await runOurs(rounds));
  const naive = await Promise.all(ours.map((o, i) => runNaive(lengths[i] ?? 0, o.requests)));
  return ours.map(({ run }, i) => {
    const n = naive[i] as Bill;
    return {
      rounds: run.rounds,
      ours: run,
      naive: n,
      ratio: +(run.billed / n.billed).toFixed(3),
      costRatio: Object.fromEntries(
        PRICES.map((p) => [p.name, +((run.money.usd[p.name] ?? 0) / (n.money.usd[p.name] ?? 1)).toFixed(3)]),
      ),
      roundOverFloor: +mean(run.roundMs.map((ms, k) => ms / (run.roundFloorMs[k] ?? 1))).toFixed(3),
      meetingOverFloor: +(run.wallMs / run.meetingFloorMs).toFixed(3),
    };
  });
}
