/**
 * The meeting against a peer framework's group chat: AutoGen 0.7.5's `RoundRobinGroupChat` of five
 * `AssistantAgent`s, the same panel of workers on the same kind of server (the loopback
 * OpenAI-compatible server of the tests with OpenAI's prefix cache, one cache for the server:
 * any earlier prompt, 1,024-token minimum, 128-token blocks), the same replies: every reply about
 * 120 tokens (the workers', and the judge's and the assistant's too), the stances never agree (w1
 * always dissents) and never move, and the judge's reviews correct nobody (120 tokens that only say
 * "continue"). Ours runs with its default configuration, `maxRounds` rounds at most (stop when
 * stable on); AutoGen runs `maxRounds` turns per agent (`max_turns`).
 *
 * AutoGen cannot be installed here (no Python registry), so its side replays the requests its
 * code sends, read from microsoft/autogen at tag python-v0.7.5 (83afbf5857aac683340d4c692194e548b1e8edda):
 * - `teams/_group_chat/_round_robin_group_chat.py`: speakers in turn, `max_turns` ends the run;
 * - `teams/_group_chat/_chat_agent_container.py`: every message of the thread is buffered in every
 *   agent's container and handed to the agent on its turn (`on_messages_stream(self._message_buffer)`);
 * - `agents/_assistant_agent.py`: the agent's model context keeps every message it was handed as
 *   `UserMessage(content, source)` and its own replies as `AssistantMessage`; each inference sends
 *   `[SystemMessage(system_message)] + model_context` (an unbounded context by default);
 * - autogen-ext `models/openai/_message_transform.py`: a user message carries `name: source`
 *   (`include_name_in_message` defaults to true), content as is; `_openai_client.py`: `create`
 *   sends one non-streaming completion.
 * Two ways a team writes the same task into AutoGen, both measured: each agent's `system_message`
 * says who it is and the worker's part of our rules; or the agents keep AutoGen's default system
 * message and the task carries the rules (then every agent's prompt starts with the same bytes).
 * AutoGen has no judge, no briefing, no digest.
 *
 * Both sides are billed from the server's own records: every chat completion it answered, with
 * the usage it reported (a `name` as OpenAI bills it); a completion without usage is counted and
 * shown (`unbilled`), never dropped.
 */
import OpenAI from 'openai';
import { DEFAULT_CONFIG } from '@roundtable/protocol';
import { stanceMarker } from '@roundtable/protocol/stance';
import { systemClock } from '../daemon/src/meeting/clock';
import { Meeting } from '../daemon/src/meeting/engine';
import { WORKER_ANTI_CONFORMITY } from '../daemon/src/meeting/antiConformity';
import { OpenAIProvider } from '../daemon/src/providers/openai';
import { MemoryStore } from '../daemon/src/store/memoryStore';
import { lastUserMessage, startFakeOpenAI, type ChatBody, type RecordedRequest } from '../test/fakes/openaiServer';
import { PRICES, benchPanel, callsPerModel, moneyOf, prose, type Money } from './wholeMeeting';
import { HOSTED } from './serverModel';

const TOPIC = 'Should we adopt a monorepo for our services?';
const WORKERS = 5;

/** w1 always dissents; the others hold one position each from round 1 on. */
function stanceOf(worker: number): string {
  return worker === 1 ? 'DISAGREE' : worker % 2 ? 'AGREE' : 'NEUTRAL';
}

/** The fake models: each worker's n-th call is its round n; the judge corrects nobody. */
function responder(): (body: ChatBody) => { text: string; delayMs: number } {
  const nth = callsPerModel();
  return (body) => {
    const { model, n } = nth(body);
    const reply = (text: string) => ({ text, delayMs: 20 });
    const w = /^w(\d+)$/.exec(model);
    if (w) {
      const i = Number(w[1]);
      return reply(`Round ${n}, ${model}: ${prose(i * 5 + n * 13, 110)}.\n[STANCE: ${stanceOf(i)}]`);
    }
    // A review that corrects nobody and does not end the meeting, in as many words as a worker's.
    if (model === 'jude') return reply(`The round stays on topic; continue. ${prose(n * 11, 110)}`);
    const user = lastUserMessage(body);
    if (/Update the rolling summary/.test(user)) return reply(`Summary: ${prose(7, 300)}`);
    if (/Open the meeting/.test(user)) return reply(`Welcome. ${prose(3, 115)}`);
    return reply(
      'CONSENSUS_STATEMENT: the room did not converge on the monorepo\n' +
        'CONTRIBUTORS: w1 argued against on release coupling, w2 proposed gating merges on path scoped tests\n' +
        `DISSENT: w1 on release coupling, w2 and w4 neutral; ${prose(5, 80)}`,
    );
  };
}

/** What a call was for, read from the request the server received. */
function kindOf(body: ChatBody): string {
  const model = body.model ?? '?';
  const last = lastUserMessage(body);
  if (/^w\d+$/.test(model)) return /has no stance marker/.test(last) ? 'followup' : 'turn';
  if (model === 'jude') return 'judge';
  if (/Open the meeting/.test(last)) return 'briefing';
  if (/Update the rolling summary/.test(last)) return 'summary';
  if (/closing digest/.test(last)) return 'digest';
  return 'other';
}

export interface Side {
  /** Chat completions the server answered. */
  calls: number;
  /** Of them, answered without usage (counted at zero: must be 0 for an honest bill). */
  unbilled: number;
  rounds: number;
  terminatedBy?: string;
  money: Money;
  byKind: Record<string, { calls: number; money: Money }>;
}

function sideOf(requests: RecordedRequest[], rounds: number, kind: (b: ChatBody) => string): Side {
  const chats = requests.filter((r) => r.path.startsWith('/v1/chat/completions'));
  const byKind: Side['byKind'] = {};
  for (const k of new Set(chats.map((r) => kind(r.body)))) {
    const of = chats.filter((r) => kind(r.body) === k);
    byKind[k] = { calls: of.length, money: moneyOf(of, () => 0) };
  }
  return {
    calls: chats.length,
    unbilled: chats.filter((r) => !r.usage).length,
    rounds,
    money: moneyOf(chats, () => 0),
    byKind,
  };
}

/** Our meeting: the default configuration (stop when stable on), `rounds` at most. */
export async function runOursPeer(rounds: number): Promise<{ side: Side; requests: RecordedRequest[] }> {
  const fake = await startFakeOpenAI(responder(), { prefixCache: HOSTED.cache });
  try {
    const provider = new OpenAIProvider({ baseURL: fake.baseURL });
    const m = await Meeting.open(
      { store: new MemoryStore(), providerFor: () => provider, clock: systemClock },
      `bench-peer-${rounds}`,
      {
        topic: TOPIC,
        mode: 'roundtable',
        participants: benchPanel(),
        config: { maxRounds: rounds, timeLimitMs: 3_600_000 },
      },
    );
    const s = await m.run();
    const side = { ...sideOf(fake.requests, s.rounds.length, kindOf), terminatedBy: s.closed?.reason ?? '?' };
    return { side, requests: [...fake.requests] };
  } finally {
    await fake.close();
  }
}

/** The worker's part of our rules, as a team would write it for an AutoGen agent. */
function workerRules(who: string): string {
  return (
    `You are ${who}, one of ${WORKERS} panelists in a round-robin discussion of the topic the user gives. ` +
    `Argue from evidence and answer the others' strongest point, in about ${DEFAULT_CONFIG.replyMaxTokens} tokens or less. ` +
    `End with one stance marker on its own line: ${stanceMarker('AGREE')} if you support the position the room converges on, ` +
    `${stanceMarker('DISAGREE')} if you oppose it, or ${stanceMarker('NEUTRAL')}. ${WORKER_ANTI_CONFORMITY}`
  );
}

/** AutoGen 0.7.5's `AssistantAgent` default `system_message`. */
const AUTOGEN_DEFAULT_SYSTEM =
  'You are a helpful AI assistant. Solve tasks using your tools. Reply with TERMINATE when the task has been completed.';

/** Where the task's rules go: each agent's system message, or the task beside AutoGen's default one. */
export type AutoGenSetup = 'system' | 'task';

type OaiMessage = { role: 'system' | 'user' | 'assistant'; content: string; name?: string };

/** AutoGen 0.7.5's RoundRobinGroupChat of the five workers, `rounds` turns each (`max_turns`). */
export async function runAutoGen(
  rounds: number,
  setup: AutoGenSetup,
): Promise<{ side: Side; requests: RecordedRequest[] }> {
  const fake = await startFakeOpenAI(responder(), { prefixCache: HOSTED.cache });
  try {
    const client = new OpenAI({ baseURL: fake.baseURL, apiKey: 'bench', maxRetries: 0 });
    const names = Array.from({ length: WORKERS }, (_, i) => `w${i + 1}`);
    const task = setup === 'task' ? `${TOPIC}\n\n${workerRules('one of the panelists')}` : TOPIC;
    // Each container's buffer and each agent's model context (messages in the order handed over).
    const buffer = new Map<string, { source: string; content: string }[]>(names.map((n) => [n, []]));
    const context = new Map<string, OaiMessage[]>(names.map((n) => [n, []]));
    // GroupChatStart: the task goes into every container's buffer.
    for (const n of names) buffer.get(n)?.push({ source: 'user', content: task });
    for (let turn = 0; turn < rounds * WORKERS; turn++) {
      const name = names[turn % WORKERS] as string;
      const ctx = context.get(name) as OaiMessage[];
      for (const m of buffer.get(name) ?? []) ctx.push({ role: 'user', content: m.content, name: m.source });
      buffer.set(name, []);
      const system = setup === 'system' ? workerRules(name) : AUTOGEN_DEFAULT_SYSTEM;
      const r = await client.chat.completions.create({
        model: name,
        messages: [{ role: 'system', content: system }, ...ctx],
      });
      const text = r.choices[0]?.message.content ?? '';
      ctx.push({ role: 'assistant', content: text });
      // GroupChatAgentResponse: every other container buffers the reply.
      for (const n of names) if (n !== name) buffer.get(n)?.push({ source: name, content: text });
    }
    const side = { ...sideOf(fake.requests, rounds, () => 'turn'), terminatedBy: 'max_turns' };
    return { side, requests: [...fake.requests] };
  } finally {
    await fake.close();
  }
}

export interface PeerRow {
  maxRounds: number;
  ours: Side;
  autogen: Record<AutoGenSetup, Side>;
  /** AutoGen's money over ours, by setup then price table (>= 1: ours costs no more). */
  autogenOverOurs: Record<AutoGenSetup, Record<string, number>>;
  /** Each part of our prompts: its tokens, the fresh (uncached) ones, its money at gpt-5 prices. */
  parts: { part: string; tokens: number; fresh: number; usd: number }[];
}

export async function benchPeer(lengths = [3, 10]): Promise<PeerRow[]> {
  const rows: PeerRow[] = [];
  for (const n of lengths) {
    const ours = await runOursPeer(n);
    const autogen = { system: (await runAutoGen(n, 'system')).side, task: (await runAutoGen(n, 'task')).side };
    const over = (a: Side) =>
      Object.fromEntries(
        PRICES.map((p) => [p.name, +((a.money.usd[p.name] ?? 0) / (ours.side.money.usd[p.name] ?? 1)).toFixed(3)]),
      );
    rows.push({
      maxRounds: n,
      ours: ours.side,
      autogen,
      autogenOverOurs: { system: over(autogen.system), task: over(autogen.task) },
      parts: partShares(ours.requests),
    });
  }
  return rows;
}

/** The label of each paragraph of a roundtable transcript message (a label holds until the next one). */
function transcriptLabel(paragraph: string, before: string): string {
  if (/^Topic: /.test(paragraph)) return 'topic';
  if (/^Briefing:/.test(paragraph)) return 'briefing';
  if (/^Round \d+:/.test(paragraph)) return 'posts';
  if (/^Judge's feedback/.test(paragraph)) return "judge's notes";
  if (/^Rolling summary/.test(paragraph)) return 'summary';
  if (/^From the human/.test(paragraph)) return 'human';
  return before;
}

/** One request's parts in order, as [label, characters] of the text the server's cache compares. */
function partsOf(body: ChatBody): [string, number][] {
  const msgs = body.messages ?? [];
  const out: [string, number][] = [];
  msgs.forEach((m, i) => {
    const tag = `<${m.role}>\n`.length + 1;
    if (m.role === 'system') {
      for (const line of m.content.split('\n')) {
        const label = /^Workers:/.test(line)
          ? 'rules: workers'
          : /^Posts by others/.test(line)
            ? 'rules: evidence'
            : 'rules: room';
        out.push([label, line.length + 1]);
      }
      out.push(['rules: room', tag - 1]);
    } else if (i === msgs.length - 1) out.push([`seat: ${kindOf(body)}`, m.content.length + tag]);
    else {
      let label = 'topic';
      for (const p of m.content.split('\n\n')) {
        label = transcriptLabel(p, label);
        out.push([label, p.length + 2]);
      }
      out.push(['topic', tag - 2]);
    }
  });
  return out;
}

/**
 * Each prompt part's share of our prompt tokens and money (gpt-5 prices): a call's cached tokens
 * are its first ones, so a part is billed cached up to where the cache ends, fresh after it.
 */
function partShares(requests: RecordedRequest[]): { part: string; tokens: number; fresh: number; usd: number }[] {
  const price = PRICES[0] as (typeof PRICES)[number];
  const acc = new Map<string, { tokens: number; fresh: number; usd: number }>();
  for (const r of requests) {
    if (!r.path.startsWith('/v1/chat/completions') || !r.usage) continue;
    const parts = partsOf(r.body);
    const chars = parts.reduce((n, [, c]) => n + c, 0);
    const perChar = r.usage.promptTokens / Math.max(1, chars);
    const cachedChars = (r.usage.cachedTokens ?? 0) / perChar;
    let at = 0;
    for (const [label, c] of parts) {
      const cached = Math.max(0, Math.min(c, cachedChars - at)) * perChar;
      const fresh = c * perChar - cached;
      const a = acc.get(label) ?? { tokens: 0, fresh: 0, usd: 0 };
      a.tokens += c * perChar;
      a.fresh += fresh;
      a.usd += (fresh * price.input + cached * price.cachedInput) / 1e6;
      acc.set(label, a);
      at += c;
    }
  }
  return [...acc.entries()]
    .map(([part, a]) => ({ part, tokens: Math.round(a.tokens), fresh: Math.round(a.fresh), usd: a.usd }))
    .sort((a, b) => b.usd - a.usd);
}
