/**
 * The filler: a model that uses its whole allowance and never settles, for the estimate to play
 * the real engine on. Every reply is as long as the call's `max_tokens`; a worker's turn never
 * agrees and never settles (NEUTRAL in odd rounds, DISAGREE in even ones, so no stop when stable),
 * a judge corrects a worker every round (so its notes are in every later prompt) and never
 * converges, a consensus ballot abstains on every option (so no review finding is settled before
 * every other reviewer voted on it), a reviewer reports as many findings of its own as a review
 * votes on, so the meeting runs to its last round or its budget: the upper figure. What the reply
 * says is decided only from what a server sees (the cap, the JSON shape asked, the prompt), so a
 * test server that answers with `fillerReply` plays the same meeting as the estimate.
 */
import type { CallPurpose, ChatMessage, Participant, ProviderKind } from '@roundtable/protocol';
import { SEVERITIES } from '@roundtable/protocol';
import { stanceMarker } from '@roundtable/protocol/stance';
import { PrefixCache, serializePrompt } from '../providers/prefixCache';
import { isReasoningModel } from '../providers/serverProfile';
import { countTokens, toolTurnPromptTokens, truncateToTokens } from '../providers/tokens';
import type { ChatProvider, ChatRequest, ChatResult } from '../providers/types';
import { ProviderError } from '../providers/types';
import { THINKING_ALLOWANCE } from './budget';
import { REVIEW_MAX_FINDINGS } from './reviewFindings';

const FILLER_WORDS = 'the room weighs this option against its cost risk and evidence from the code and the team ';
/**
 * Ends every text reply: a worker that never agrees and changes its position every round (and
 * harmless in any other reply). By the round its prompt names ("This is round 2").
 */
const STANCES = [`\n${stanceMarker('NEUTRAL')}`, `\n${stanceMarker('DISAGREE')}`] as const;
/** Words of the proposed options' labels: each label its own, so no two are merged as the same option. */
const LABEL_WORDS =
  'staged rewrite vendor freeze pilot rollback shadow cutover hybrid audit defer split merge cache queue shard replica proxy batch stream'.split(
    ' ',
  );
/** As many options as a meeting may hold (`maxOptions` is at most 20): the engine keeps its own number. */
const PROPOSED = 20;

const fillers = new Map<number, string>();
const stanceTokens = new Map<string, number>();

/** The stance a worker's turn ends on: by the parity of the round its seat message names. */
function stanceFor(messages: readonly ChatMessage[]): string {
  const last = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const round = Number([...last.matchAll(/This is round (\d+)/g)].at(-1)?.[1] ?? 1);
  return STANCES[round % 2 === 0 ? 1 : 0];
}

/** Placeholder text of exactly `tokens` tokens (or fewer, for tiny counts). */
function filler(tokens: number): string {
  const n = Math.max(0, tokens);
  let t = fillers.get(n);
  if (t === undefined) {
    t = truncateToTokens(FILLER_WORDS.repeat(Math.ceil(n / 14) + 1), n).trim();
    fillers.set(n, t);
  }
  return t;
}

/** The JSON of `build(pad)` with the largest pad that keeps it within `maxTokens`. */
function fitJson(build: (pad: number) => unknown, fields: number, maxTokens: number): string {
  const bare = countTokens(JSON.stringify(build(0)));
  let pad = Math.max(0, Math.floor((maxTokens - bare) / Math.max(1, fields)));
  let text = JSON.stringify(build(pad));
  // Words may tokenize differently inside JSON: shrink until it fits.
  for (let over = countTokens(text) - maxTokens; over > 0 && pad > 0; over = countTokens(text) - maxTokens) {
    pad = Math.max(0, pad - Math.ceil(over / Math.max(1, fields)));
    text = JSON.stringify(build(pad));
  }
  return text;
}

/** The option ids a ballot prompt lists (`| O1: …`: the options, quoted as the meeting's record). */
function optionIdsOf(messages: readonly ChatMessage[]): string[] {
  const prompt = messages.map((m) => m.content).join('\n');
  return [...new Set([...prompt.matchAll(/^\| (O\d+): /gm)].map((m) => m[1] ?? ''))];
}

/** The first changed file and lines a review's proposal prompt lists (`| src/db.ts: lines 1-6`), if it is one. */
function changedLinesOf(
  messages: readonly ChatMessage[],
): { file: string; lines: { start: number; end: number } } | undefined {
  const prompt = messages.map((m) => m.content).join('\n');
  if (!prompt.includes('{"findings": [')) return undefined;
  const m = /^\| (.+): lines (\d+)(?:-(\d+))?/m.exec(prompt);
  if (!m) return undefined;
  const start = Number(m[2]);
  return { file: m[1] ?? '', lines: { start, end: m[3] ? Number(m[3]) : start } };
}

/**
 * The filler's reply to a call: `maxTokens` long; as text with a NEUTRAL stance, or when JSON is
 * asked for, a ballot where the prompt lists options, else proposals. Decided only from what any
 * server is sent: a provider may ask for JSON without the schema (`json_object`).
 */
export function fillerReply(o: { maxTokens: number; json: boolean; messages: readonly ChatMessage[] }): string {
  const ids = o.json ? optionIdsOf(o.messages) : [];
  const changed = o.json && ids.length === 0 ? changedLinesOf(o.messages) : undefined;
  if (changed) {
    // A review's proposal: as many findings as a ballot may hold, all in the change and each
    // reviewer's its own (by the seat its system message names), so none is refuted or merged and
    // every reviewer votes on every other's; in every severity, so the findings kept (the most
    // severe first) are every reviewer's and each one is asked a ballot: the vote is as long as it can be.
    const seat = /^You are ([^,\s]+)/.exec(o.messages[0]?.content ?? '')?.[1] ?? 'reviewer';
    const findings = (pad: number) =>
      Array.from({ length: REVIEW_MAX_FINDINGS }, (_, i) => ({
        ...changed,
        severity: SEVERITIES[i % SEVERITIES.length],
        defect: `filler ${seat} ${LABEL_WORDS[i] ?? i}`,
        claim: filler(pad) || 'filler',
      }));
    return fitJson((pad) => ({ findings: findings(pad) }), REVIEW_MAX_FINDINGS, o.maxTokens);
  }
  if (o.json && ids.length === 0) {
    const labels = Array.from({ length: PROPOSED }, (_, i) => `Option ${i + 1}: ${LABEL_WORDS[i] ?? i}`);
    return fitJson((pad) => ({ options: labels, why: filler(pad) }), 1, o.maxTokens);
  }
  if (o.json) {
    return fitJson(
      (pad) => ({
        votes: ids.map((option) => ({ option, vote: 'abstain', confidence: 0.5, rationale: filler(pad) })),
      }),
      ids.length,
      o.maxTokens,
    );
  }
  // A judge's review names the round's workers: it corrects the first (a review that corrects
  // nobody is in no later prompt, which would make the estimate low).
  const reviewed = /^Review round \d+ \(workers: ([A-Za-z][\w-]*)/m.exec(o.messages.at(-1)?.content ?? '')?.[1];
  if (reviewed) return `@${reviewed}: ${filler(o.maxTokens - countTokens(`@${reviewed}: `))}`;
  const stance = stanceFor(o.messages);
  let tokens = stanceTokens.get(stance);
  if (tokens === undefined) stanceTokens.set(stance, (tokens = countTokens(stance)));
  return o.maxTokens > tokens ? `${filler(o.maxTokens - tokens)}${stance}` : filler(o.maxTokens);
}

/**
 * `countTokens` that remembers each text: a round's prompts share their transcript message, and
 * an estimate plays the same prompts twice (with and without the budget), so each is tokenized once.
 */
export function rememberingCount(): (text: string) => number {
  const known = new Map<string, number>();
  return (text) => {
    let n = known.get(text);
    if (n === undefined) known.set(text, (n = countTokens(text)));
    return n;
  };
}

/** One call the filler answered, as a server would bill it. */
export interface FilledCall {
  participant: string;
  provider: ProviderKind;
  model: string;
  purpose: CallPurpose;
  round: number;
  promptTokens: number;
  /** What the server's prefix cache would serve (see providers/prefixCache.ts). */
  cachedTokens: number;
  completionTokens: number;
}

/**
 * The work an estimate may do, shared by its plays: the tokens the filler has billed (prompt and
 * completion: each prompt is built and counted, each reply written) up to `max`, and the caller's
 * signal. Past either, every call of the room fails at once and `stopped` says why, so the engine
 * winds the meeting up in a few cheap steps.
 */
export class EstimateMeter {
  billed = 0;
  /** Why the estimate stopped, once it has: `cancelled` or `too_large`. */
  stopped: 'cancelled' | 'too_large' | undefined;
  /** The round being played when it stopped. */
  round = 0;
  /** Called once when the estimate stops: the play cuts its meeting there. */
  onStop: (() => void) | undefined;

  constructor(
    readonly max: number,
    private readonly signal?: AbortSignal,
  ) {}

  /** Throws (as a failed call) once the estimate is cancelled or past its cap. */
  check(round: number): void {
    if (this.signal?.aborted) this.stopped ??= 'cancelled';
    else if (this.billed > this.max) this.stopped ??= 'too_large';
    else return;
    if (!this.round) {
      this.round = round || -1;
      this.onStop?.();
    }
    throw new ProviderError(`the estimate stopped (${this.stopped})`, 'aborted');
  }
}

/**
 * Answers every participant of a meeting with filler and records every call. One prefix cache
 * per provider and model: a server caches what was sent to the same model.
 */
export class FillerRoom {
  readonly calls: FilledCall[] = [];
  private readonly providers = new Map<string, ChatProvider>();

  /**
   * `count`: tokens of a message's text (an estimate shares one that remembers, see
   * `rememberingCount`); `meter`: the estimate's work cap and cancellation.
   */
  constructor(
    private readonly count: (text: string) => number = countTokens,
    private readonly meter?: EstimateMeter,
  ) {}

  providerFor(p: Participant): ChatProvider {
    const key = `${p.provider}\u0000${p.model}`;
    let provider = this.providers.get(key);
    if (!provider) {
      const cache = new PrefixCache();
      provider = {
        id: `filler@${p.provider}`,
        // Answered in the order asked (the cache sees them so), each reply on its own turn of the
        // event loop, as a server's replies arrive: one is recorded before the next comes in.
        chat: (req) =>
          new Promise((resolve, reject) => {
            // A failure too waits its turn: an engine that meets one failure after another is
            // never left looping on microtasks alone (the client's hang-up must get through).
            try {
              const answer = this.answer(p, cache, req);
              setImmediate(() => resolve(answer));
            } catch (e) {
              setImmediate(() => reject(e instanceof Error ? e : new Error(String(e))));
            }
          }),
      };
      this.providers.set(key, provider);
    }
    return provider;
  }

  private answer(p: Participant, cache: PrefixCache, req: ChatRequest): ChatResult {
    // A call the meeting has given up on is never answered, as a server's would not be.
    if (req.signal.aborted) throw new ProviderError('the call was aborted', 'aborted');
    this.meter?.check(req.meta.round);
    // A reasoning model thinks through the room the engine gives it for that, then replies.
    const thought = isReasoningModel(p.model) ? Math.min(THINKING_ALLOWANCE, req.maxTokens) : 0;
    const text = fillerReply({
      maxTokens: req.maxTokens - thought,
      json: req.json !== undefined,
      messages: req.messages,
    });
    const promptTokens = toolTurnPromptTokens(req.messages, [], req.tools?.definitions() ?? [], this.count);
    const usage = {
      promptTokens,
      completionTokens: this.count(text) + thought,
      cachedTokens: cache.lookup(serializePrompt(req.messages), promptTokens),
      source: 'estimate' as const,
      ...(thought ? { reasoningTokens: thought } : {}),
    };
    const { participant, purpose, round } = req.meta;
    if (this.meter) this.meter.billed += promptTokens + usage.completionTokens;
    this.calls.push({ participant, provider: p.provider, model: p.model, purpose, round, ...usage });
    return {
      text,
      ...(thought ? { thinking: filler(thought) } : {}),
      finishReason: text === '' ? 'length' : 'stop',
      usage,
    };
  }
}
