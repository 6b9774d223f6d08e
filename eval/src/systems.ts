/**
 * The three systems `roundtable eval` compares on each question:
 * - single: the first model of the panel alone (its independent answer);
 * - majority: every model answers independently, once; the answer given by more than half of them
 *   wins, otherwise there is no majority and the question is scored wrong;
 * - roundtable: a real roundtable meeting (in this process's core, openai provider) whose workers are the panel;
 *   its answer is the majority, by the same rule, of each worker's latest `ANSWER:` marker.
 * The single model's answer is the first model's independent answer of the majority vote (one call
 * serves both), so both are measured on exactly the same reply.
 */
import type { MeetingState, Participant, Usage, ChatMessage } from '@roundtable/protocol';
import { billOf, settles, workersOf } from '@roundtable/protocol';
import { startLocalCore, type LocalCore } from '../../daemon/src/daemon/localCore';
import type { ChatProvider } from '../../daemon/src/providers/types';
import { MemoryStore } from '../../daemon/src/store/memoryStore';
import { majorityAnswer, parseAnswer, type Question } from './questions';

export const SYSTEMS = ['single', 'majority', 'roundtable'] as const;
export type SystemName = (typeof SYSTEMS)[number];

/** One system's result on one question. */
export interface SystemAnswer {
  /** The parsed answer, or undefined when there was none (no marker, no majority). */
  answer?: string;
  billedTokens: number;
  wallMs: number;
}

export interface PanelSetup {
  provider: ChatProvider;
  models: string[];
  /** Reply cap per call, in tokens. */
  maxTokens: number;
  /** Rounds of the roundtable meeting. */
  rounds: number;
  /** Token budget of the roundtable meeting (everything spoken). */
  budget: number;
  /** Per call, in ms. */
  turnTimeoutMs: number;
}

export const ANSWER_INSTRUCTION =
  'Work it out step by step, briefly. Then give your final answer on its own line as "ANSWER: <answer>" (a number when the answer is a number).';

function independentPrompt(q: Question): ChatMessage[] {
  return [
    { role: 'system', content: `You answer questions exactly. ${ANSWER_INSTRUCTION}` },
    { role: 'user', content: `Question: ${q.question}` },
  ];
}

const billed = (u: Usage) => u.promptTokens + u.completionTokens;

/** Each model answers once, independently and in parallel: the single and majority systems. */
export async function independentAnswers(
  setup: PanelSetup,
  q: Question,
): Promise<{ single: SystemAnswer; majority: SystemAnswer; replies: string[] }> {
  const started = Date.now();
  const replies = await Promise.all(
    setup.models.map(async (model, i) => {
      const t0 = Date.now();
      const r = await setup.provider.chat({
        model,
        messages: independentPrompt(q),
        maxTokens: setup.maxTokens,
        signal: AbortSignal.timeout(setup.turnTimeoutMs),
        meta: { participant: `m${i + 1}`, role: 'worker', purpose: 'turn', round: 1, topic: q.question },
      });
      return { text: r.text, answer: parseAnswer(r.text), tokens: billed(r.usage), ms: Date.now() - t0 };
    }),
  );
  const first = replies[0];
  if (!first) throw new Error('the panel has no model');
  const majority = majorityAnswer(replies.map((r) => r.answer));
  return {
    single: {
      ...(first.answer !== undefined ? { answer: first.answer } : {}),
      billedTokens: first.tokens,
      wallMs: first.ms,
    },
    majority: {
      ...(majority !== undefined ? { answer: majority } : {}),
      billedTokens: replies.reduce((n, r) => n + r.tokens, 0),
      wallMs: Date.now() - started,
    },
    replies: replies.map((r) => r.text),
  };
}

/** `w1-<model>` cut to a valid seat name, so the minutes say which model sat where. */
function seatName(i: number, model: string): string {
  return `w${i + 1}-${model.replace(/[^A-Za-z0-9_-]+/g, '_')}`.slice(0, 40);
}

export function roundtablePanel(models: string[]): Participant[] {
  return [
    { name: 'chair', role: 'assistant', provider: 'openai', model: models[0] ?? '' },
    ...models.map((m, i): Participant => ({ name: seatName(i, m), role: 'worker', provider: 'openai', model: m })),
  ];
}

/**
 * The roundtable's answer: for each worker its latest `ANSWER:` marker over the rounds (a worker
 * that passed or failed later keeps its last stated answer), then the same strict majority as the
 * majority vote. A worker that never gave a marker counts as a voter without an answer.
 * `upToRound` 1 gives what the independent round 1 alone would have answered.
 */
export function roundtableAnswer(s: MeetingState, upToRound = Infinity): string | undefined {
  const latest = workersOf(s).map((w) => {
    let a: string | undefined;
    for (const r of s.rounds.filter((x) => x.round <= upToRound)) {
      const m = r.contributions[w.name];
      const parsed = m ? parseAnswer(m.text) : undefined;
      if (parsed !== undefined) a = parsed;
    }
    return a;
  });
  return majorityAnswer(latest);
}

/**
 * The core the roundtable meetings of one eval run in: the daemon's, private to this process
 * (nothing on disk, no daemon.json), every seat answered by the panel's provider.
 */
export function evalCore(setup: PanelSetup): Promise<LocalCore> {
  return startLocalCore({ store: new MemoryStore(), providers: () => () => setup.provider });
}

/** Runs one roundtable meeting on the question, in this process's core, and reads its answer. */
export async function roundtableOn(
  setup: PanelSetup,
  core: LocalCore,
  q: Question,
): Promise<SystemAnswer & { round1Answer?: string; state: MeetingState }> {
  const started = Date.now();
  const meeting = await core.conn.meetings.open({
    topic: `Question: ${q.question}\n${ANSWER_INSTRUCTION} Put the ANSWER line just before your stance marker, and agree with an answer only if you checked it.`,
    mode: 'roundtable',
    participants: roundtablePanel(setup.models),
    config: {
      maxRounds: setup.rounds,
      tokenBudget: setup.budget,
      replyMaxTokens: setup.maxTokens,
      turnTimeoutMs: setup.turnTimeoutMs,
      order: 'parallel',
    },
  });
  let state: MeetingState;
  try {
    state = await meeting.untilEvent(settles, 0);
  } finally {
    await meeting.release();
  }
  const answer = roundtableAnswer(state);
  const round1Answer = roundtableAnswer(state, 1);
  return {
    ...(answer !== undefined ? { answer } : {}),
    ...(round1Answer !== undefined ? { round1Answer } : {}),
    billedTokens: billOf(state).totalTokens,
    wallMs: Date.now() - started,
    state,
  };
}
