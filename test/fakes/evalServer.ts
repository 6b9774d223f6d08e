/**
 * A panel of fake models on a real loopback OpenAI-compatible server (startFakeOpenAI) with known,
 * deterministic error rates, so a test can compute what one model, a majority vote and the
 * roundtable must score from the same rule the server follows:
 *
 * - a model errs on an expression when hash(expression|model) < its error rate; an erring answer is
 *   the truth + 1 or + 2 (chosen by another hash), so two erring models agree on a wrong answer
 *   about half of the time;
 * - in a roundtable round after the first, a worker adopts the answer more than half of the answers
 *   it can see (its own and the others' in the previous round) agree on, else the answer of the
 *   model whose name sorts first (stance NEUTRAL in round 1, then AGREE when there was a majority,
 *   DISAGREE when not); so after two rounds the panel answers the round-1 majority, or the first
 *   model's answer where round 1 had none;
 * - the judge of the best-of arm picks the first quoted answer that is right, unless it errs on the
 *   expression (hash(expression|judge) < `judgeErrorRate`) or none is: then it picks answer-1;
 * - every reply is billed exactly `PROMPT_TOKENS` + `COMPLETION_TOKENS`.
 *
 * Instead of rates, a test may give the exact rule (`ErrorRule`): which model errs on which
 * expression, for panels whose errors are correlated by construction.
 */
import { createHash } from 'node:crypto';
import type { PanelSetup } from '../../eval/src/systems';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import type { ChatProvider } from '../../daemon/src/providers/types';
import { instructionsOf, startFakeOpenAI, type ChatBody, type FakeOpenAI } from './openaiServer';

export const PROMPT_TOKENS = 100;
export const COMPLETION_TOKENS = 10;
const EXPR = /(\d+)\+(\d+)\*(\d+)\+(\d+)-(\d+)\*(\d+)/;

function unit(s: string): number {
  return createHash('sha256').update(s).digest().readUInt32BE(0) / 2 ** 32;
}

export function truth(expr: string): number {
  const m = EXPR.exec(expr);
  if (!m) throw new Error(`not an expression: ${expr}`);
  const [a, b, c, d, e, f] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return a + b * c + d - e * f;
}

/** Whether `model` errs on `expr`. */
export type ErrorRule = (expr: string, model: string) => boolean;
/** Error rates per model, or the exact rule. */
export type Errs = Record<string, number> | ErrorRule;

function errs(e: Errs, expr: string, model: string): boolean {
  return typeof e === 'function' ? e(expr, model) : unit(`${expr}|${model}`) < (e[model] ?? 0);
}

/** What `model` answers on its own. */
export function modelAnswer(expr: string, model: string, rates: Errs): number {
  const t = truth(expr);
  if (!errs(rates, expr, model)) return t;
  return t + (unit(`${expr}|${model}|offset`) < 0.5 ? 1 : 2);
}

/** Whether the best-of judge errs on `expr` (then it picks answer-1 whatever it says). */
export function judgeErrs(expr: string, judgeErrorRate: number): boolean {
  return unit(`${expr}|judge`) < judgeErrorRate;
}

export interface EvalServer {
  fake: FakeOpenAI;
  /** Chat completions received so far. */
  chatCalls(): number;
  /** Chat completions that were independent answers (not meeting calls). */
  independentCalls(): number;
  /** Chat completions that were roundtable worker turns. */
  workerTurns(): number;
  /** Chat completions that were the best-of judge's picks. */
  judgePicks(): number;
}

/** The best-of judge: the label of the first quoted answer that is right, else answer-1. */
function pick(expr: string, user: string, judgeErrorRate: number): string {
  const quoted = [...user.matchAll(/from=answer-(\d+) [^\n]*\n((?:\|[^\n]*\n?)*)/g)].map((m) => ({
    label: m[1] ?? '1',
    answer: Number(/ANSWER:\s*(-?\d+)/.exec(m[2] ?? '')?.[1]),
  }));
  const right = judgeErrs(expr, judgeErrorRate) ? undefined : quoted.find((c) => c.answer === truth(expr));
  return `I checked each answer.\nBEST: [[${right?.label ?? '1'}]]`;
}

function strictMajority(xs: number[]): number | undefined {
  for (const x of xs) if (xs.filter((y) => y === x).length * 2 > xs.length) return x;
  return undefined;
}

function reply(body: ChatBody, rates: Errs, judgeErrorRate: number): string {
  const system = instructionsOf(body);
  // The topic is in the transcript, the seat and the round line in the last message: read them all.
  const user = (body.messages ?? [])
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');
  const me = /^You are ([^,\s]+),/.exec(system)?.[1];
  const expr = EXPR.exec(user)?.[0];
  if (/the assistant who chairs|meeting's assistant/.test(system) || !expr) return 'Noted.';
  if (/^You are .*, the judge/.test(system)) return '[CLEAN]';
  if (system.startsWith('You pick the best')) return pick(expr, user, judgeErrorRate);
  let answer = modelAnswer(expr, body.model ?? '', rates);
  // Round 1 has no room position yet: NEUTRAL, so the meeting goes on to a second round.
  let stance = 'NEUTRAL';
  // The worker prompt's transcript ends with the previous round's block: its posts are the peers'
  // (the worker's own, under its own name, is left out).
  const peersAt = user.search(/^Round \d+:\n(?![\s\S]*^Round \d+:\n)/m);
  if (peersAt >= 0) {
    // Each quoted post: its envelope header names the seat (w<k>-<model>), its body the answer.
    const peers = [...user.slice(peersAt).matchAll(/from=(w\d+-([A-Za-z0-9_-]+)) [^\n]*\n((?:\|[^\n]*\n?)*)/g)]
      .filter((m) => m[1] !== me)
      .map((m) => ({ model: m[2] ?? '', answer: Number(/ANSWER:\s*(-?\d+)/.exec(m[3] ?? '')?.[1]) }));
    const all = [{ model: body.model ?? '', answer }, ...peers];
    const majority = strictMajority(all.map((p) => p.answer));
    // No majority: everyone defers to the model whose name sorts first (a conformist panel).
    answer = majority ?? [...all].sort((a, b) => a.model.localeCompare(b.model))[0]?.answer ?? answer;
    stance = majority === undefined ? 'DISAGREE' : 'AGREE';
  }
  const marker = /a worker in a structured roundtable/.test(system) ? `\n[STANCE: ${stance}]` : '';
  return `I compute ${expr} step by step.\nANSWER: ${answer}${marker}`;
}

/** `models` is needed with an `ErrorRule` (rates name their models). */
export async function startEvalServer(
  rates: Errs,
  opts: { judgeErrorRate?: number; models?: string[] } = {},
): Promise<EvalServer> {
  const judgeErrorRate = opts.judgeErrorRate ?? 0;
  const fake = await startFakeOpenAI(
    (body) => ({
      text: reply(body, rates, judgeErrorRate),
      promptTokens: PROMPT_TOKENS,
      completionTokens: COMPLETION_TOKENS,
    }),
    { models: opts.models ?? (typeof rates === 'function' ? ['fake-model'] : Object.keys(rates)) },
  );
  const chats = () => fake.requests.filter((r) => r.path.startsWith('/v1/chat/completions'));
  return {
    fake,
    chatCalls: () => chats().length,
    independentCalls: () =>
      chats().filter((r) => r.body.messages?.[0]?.content.startsWith('You answer questions exactly')).length,
    workerTurns: () => chats().filter((r) => /a worker in a structured roundtable/.test(instructionsOf(r.body))).length,
    judgePicks: () => chats().filter((r) => instructionsOf(r.body).startsWith('You pick the best')).length,
  };
}

/** The panel an eval run uses against `server` (its models), or against `provider` when given. */
export function evalSetup(server: EvalServer, models: string[], provider?: ChatProvider): PanelSetup {
  return {
    provider: provider ?? new OpenAIProvider({ baseURL: server.fake.baseURL, maxRetries: 0 }),
    models,
    maxTokens: 256,
    rounds: 2,
    budget: 50_000,
    turnTimeoutMs: 20_000,
  };
}
