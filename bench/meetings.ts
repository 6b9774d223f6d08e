/**
 * Benchmarks of the meeting engine on the scripted provider: token growth against a naive
 * full-transcript baseline, and round latency in parallel and sequential order.
 */
import type { MeetingEvent, Participant, ChatMessage } from '@roundtable/protocol';
import { systemClock } from '../daemon/src/meeting/clock';
import { Meeting } from '../daemon/src/meeting/engine';
import { countPromptTokens } from '../daemon/src/providers/tokens';
import { ScriptedProvider, parseScript } from '../daemon/src/providers/scripted';
import type { ChatProvider, ChatRequest, ChatResult } from '../daemon/src/providers/types';
import { MemoryStore } from '../daemon/src/store/memoryStore';

const WORDS =
  'the proposal improves build times but couples releases unless we gate merges on path scoped tests and keep per service versions while secrets stay in environments with owners reviewing workflow files'.split(
    ' ',
  );

/** A deterministic ~`words`-word contribution with a stance, different for every worker and round. */
function contribution(worker: number, round: number, words: number, stance: string): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[(worker * 7 + round * 13 + i * 3) % WORDS.length] as string);
  return `Round ${round}, worker ${worker}: ${out.join(' ')}.\n[STANCE: ${stance}]`;
}

export function panelOf(workers: number): Participant[] {
  return [
    { name: 'sam', role: 'assistant', provider: 'scripted', model: 'scripted' },
    ...Array.from({ length: workers }, (_, i) => ({
      name: `w${i + 1}`,
      role: 'worker' as const,
      provider: 'scripted' as const,
      model: 'scripted',
    })),
  ];
}

/** Replies for `workers` workers over `rounds` rounds that never reach consensus (one always disagrees). */
export function scriptFor(workers: number, rounds: number, words = 110, delays?: number[]): unknown {
  const replies: Record<string, unknown[]> = {};
  for (let w = 0; w < workers; w++) {
    replies[`w${w + 1}`] = Array.from({ length: rounds }, (_, r) => ({
      text: contribution(w, r + 1, words, w === 0 ? 'DISAGREE' : w % 2 ? 'AGREE' : 'NEUTRAL'),
      ...(delays ? { delayMs: delays[w] ?? 0 } : {}),
    }));
  }
  return { replies };
}

class Recorder implements ChatProvider {
  readonly id = 'recorder';
  readonly calls: { req: ChatRequest; promptTokens: number }[] = [];
  constructor(private readonly inner: ChatProvider) {}
  async chat(req: ChatRequest): Promise<ChatResult> {
    const r = await this.inner.chat(req);
    this.calls.push({ req, promptTokens: r.usage.promptTokens });
    return r;
  }
}

export interface TokenGrowth {
  rounds: number;
  workers: number;
  oursPerRound: number[];
  naivePerRound: number[];
  oursRatio10to2: number;
  naiveRatio10to2: number;
  oursTotalWorkerPrompt: number;
  oursTotalAllCalls: number;
  naiveTotal: number;
  naiveOverOurs: number;
}

/**
 * 5 workers, 10 rounds. Ours: the prompts the engine actually sent. Naive baseline, in the same
 * run, over the same transcript: every worker turn sends the system prompt plus the full
 * transcript so far (what group-chat frameworks do).
 */
export async function benchTokenGrowth(workers = 5, rounds = 10): Promise<TokenGrowth> {
  const provider = new Recorder(new ScriptedProvider(parseScript(scriptFor(workers, rounds))));
  const store = new MemoryStore();
  const m = await Meeting.open({ store, providerFor: () => provider, clock: systemClock }, 'bench-tokens', {
    topic: 'Should we adopt a monorepo for our services?',
    mode: 'roundtable',
    participants: panelOf(workers),
    config: { maxRounds: rounds, tokenBudget: 10_000_000, order: 'parallel' },
  });
  const s = await m.run();
  const turns = provider.calls.filter((c) => c.req.meta.purpose === 'turn');
  const oursPerRound = Array.from({ length: rounds }, (_, r) =>
    turns.filter((c) => c.req.meta.round === r + 1).reduce((n, c) => n + c.promptTokens, 0),
  );
  // Naive: each worker's turn in round r sees the whole transcript up to the end of round r-1.
  const transcript: ChatMessage[] = [];
  const naivePerRound: number[] = [];
  if (s.briefing) transcript.push({ role: 'user', content: `${s.briefing.from}: ${s.briefing.text}` });
  for (const round of s.rounds) {
    let roundTokens = 0;
    for (const w of round.speakers) {
      const system = turns.find((c) => c.req.meta.participant === w)?.req.messages[0] ?? {
        role: 'system' as const,
        content: '',
      };
      roundTokens += countPromptTokens([system, { role: 'user', content: `Topic: ${s.topic}` }, ...transcript]);
    }
    naivePerRound.push(roundTokens);
    for (const w of round.speakers) {
      const msg = round.contributions[w];
      if (msg) transcript.push({ role: 'user', content: `${w}: ${msg.text}` });
    }
  }
  const oursTotalWorkerPrompt = oursPerRound.reduce((a, b) => a + b, 0);
  const naiveTotal = naivePerRound.reduce((a, b) => a + b, 0);
  const ratio = (xs: number[]) => +((xs[9] ?? xs[xs.length - 1] ?? 0) / (xs[1] ?? 1)).toFixed(3);
  return {
    rounds: s.rounds.length,
    workers,
    oursPerRound,
    naivePerRound,
    oursRatio10to2: ratio(oursPerRound),
    naiveRatio10to2: ratio(naivePerRound),
    oursTotalWorkerPrompt,
    oursTotalAllCalls: provider.calls.reduce((n, c) => n + c.promptTokens, 0),
    naiveTotal,
    naiveOverOurs: +(naiveTotal / oursTotalWorkerPrompt).toFixed(2),
  };
}

export interface RoundLatency {
  delaysMs: number[];
  parallelRoundMs: number[];
  sequentialRoundMs: number[];
  parallelOverSlowest: number;
  sequentialOverSlowest: number;
  sequentialOverSum: number;
}

async function roundTimes(order: 'parallel' | 'sequential', delays: number[], rounds: number): Promise<number[]> {
  const stamps: { e: MeetingEvent; t: number }[] = [];
  const provider = new ScriptedProvider(parseScript(scriptFor(delays.length, rounds, 40, delays)));
  const m = await Meeting.open(
    {
      store: new MemoryStore(),
      providerFor: () => provider,
      clock: systemClock,
      onEvent: (e) => stamps.push({ e, t: performance.now() }),
    },
    `bench-latency-${order}`,
    {
      topic: 'latency',
      mode: 'roundtable',
      participants: panelOf(delays.length),
      config: { maxRounds: rounds, tokenBudget: 10_000_000, order },
    },
  );
  await m.run();
  const out: number[] = [];
  for (let r = 1; r <= rounds; r++) {
    const start = stamps.find((x) => x.e.type === 'round_started' && x.e.round === r)?.t ?? 0;
    const ends = stamps.filter((x) => x.e.type === 'stance_recorded' && x.e.round === r).map((x) => x.t);
    out.push(Math.max(...ends) - start);
  }
  return out;
}

/** 5 workers with model delays of 200–1000 ms: round wall time against the slowest worker's delay. */
export async function benchRoundLatency(delays = [200, 400, 600, 800, 1000], rounds = 3): Promise<RoundLatency> {
  const parallelRoundMs = await roundTimes('parallel', delays, rounds);
  const sequentialRoundMs = await roundTimes('sequential', delays, rounds);
  const slowest = Math.max(...delays);
  const sum = delays.reduce((a, b) => a + b, 0);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    delaysMs: delays,
    parallelRoundMs: parallelRoundMs.map(Math.round),
    sequentialRoundMs: sequentialRoundMs.map(Math.round),
    parallelOverSlowest: +(mean(parallelRoundMs) / slowest).toFixed(3),
    sequentialOverSlowest: +(mean(sequentialRoundMs) / slowest).toFixed(3),
    sequentialOverSum: +(mean(sequentialRoundMs) / sum).toFixed(3),
  };
}
