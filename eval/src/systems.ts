/**
 * The four systems `roundtable eval` compares on each question:
 * - single: the first model of the panel alone (its independent answer);
 * - majority: every model answers independently, once; the answer given by more than half of them
 *   wins, otherwise there is no majority and the question is scored wrong;
 * - best: the same independent answers, then one judge call picks the best of them (bestOf.ts);
 * - roundtable: a real roundtable meeting (in this process's core, openai provider) whose workers are the panel;
 *   its answer is the majority, by the same rule, of each worker's latest `ANSWER:` marker.
 * Here the systems are asked; record.ts reads their answers from the replies.
 * The single model's answer is the first model's independent answer of the majority vote (one call
 * serves both), so both are measured on exactly the same reply.
 */
import type { MeetingState, Participant, ProviderConfig, Usage, ChatMessage } from '@roundtable/protocol';
import { billOf, settles, workersOf } from '@roundtable/protocol';
import { startLocalCore, type LocalCore } from '../../daemon/src/daemon/localCore';
import type { ChatProvider } from '../../daemon/src/providers/types';
import { MemoryStore } from '../../daemon/src/store/memoryStore';
import type { Question } from './questions';

export const SYSTEMS = ['single', 'majority', 'best', 'roundtable'] as const;
export type SystemName = (typeof SYSTEMS)[number];

/** What one system spent on one question. */
export interface Cost {
  /** Prompt + completion tokens of every call it made, as the server reported them. */
  billedTokens: number;
  wallMs: number;
}

/** One system's result on one question. */
export interface SystemAnswer extends Cost {
  /** The parsed answer, or undefined when there was none (no marker, no majority, no pick). */
  answer?: string;
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
  /** The model that picks the best round-1 answer (default: the first of `models`). */
  judge?: string;
}

export const ANSWER_INSTRUCTION =
  'Work it out step by step, briefly. Then give your final answer on its own line as "ANSWER: <answer>" (a number when the answer is a number).';

function independentPrompt(q: Question): ChatMessage[] {
  return [
    { role: 'system', content: `You answer questions exactly. ${ANSWER_INSTRUCTION}` },
    { role: 'user', content: `Question: ${q.question}` },
  ];
}

/** What a call is billed: prompt + completion tokens, as the server reported them. */
export const billed = (u: Usage) => u.promptTokens + u.completionTokens;

/**
 * Each model answers once, independently and in parallel: the replies of the single, majority and
 * best systems, with what the first model's call (single) and all of them (majority) cost.
 */
export async function independentAnswers(
  setup: PanelSetup,
  q: Question,
): Promise<{ single: Cost; majority: Cost; replies: string[] }> {
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
      return { text: r.text, tokens: billed(r.usage), ms: Date.now() - t0 };
    }),
  );
  const first = replies[0];
  if (!first) throw new Error('the panel has no model');
  return {
    single: { billedTokens: first.tokens, wallMs: first.ms },
    majority: { billedTokens: replies.reduce((n, r) => n + r.tokens, 0), wallMs: Date.now() - started },
    replies: replies.map((r) => r.text),
  };
}

/** `w1-<model>` cut to a valid seat name, so the minutes say which model sat where. */
export function seatName(i: number, model: string): string {
  return `w${i + 1}-${model.replace(/[^A-Za-z0-9_-]+/g, '_')}`.slice(0, 40);
}

export function roundtablePanel(models: string[]): Participant[] {
  return [
    { name: 'chair', role: 'assistant', provider: 'openai', model: models[0] ?? '' },
    ...models.map((m, i): Participant => ({ name: seatName(i, m), role: 'worker', provider: 'openai', model: m })),
  ];
}

/**
 * The core an eval's meetings run in (the roundtable meetings of a question set, the reviews of a
 * review set): the daemon's, private to this process (nothing on disk, no daemon.json), every seat
 * of a meeting answered by `provider` of the providers config the meeting was started with.
 */
export function evalCore(provider: (config: ProviderConfig | undefined) => ChatProvider): Promise<LocalCore> {
  return startLocalCore({ store: new MemoryStore(), providers: (config) => () => provider(config) });
}

/**
 * Runs one roundtable meeting on the question, in this process: each worker's contributions round
 * by round ('' for a round it did not answer), in panel order — what the record scores (record.ts) —
 * and what the meeting cost.
 */
export async function roundtableOn(
  setup: PanelSetup,
  core: LocalCore,
  q: Question,
): Promise<Cost & { columns: string[][] }> {
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
  return {
    columns: workersOf(state).map((w) => state.rounds.map((r) => r.contributions[w.name]?.text ?? '')),
    billedTokens: billOf(state).totalTokens,
    wallMs: Date.now() - started,
  };
}
