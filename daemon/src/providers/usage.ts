/**
 * The one check of the token figures a server reports for a call, where they enter the daemon.
 * Nothing a server sends is billed unchecked: a figure that is not a whole number of tokens (a
 * string such as "126", a fraction, a negative, NaN, 1e300), a missing one, or one far beyond what
 * the call could have been is replaced by our own count with the engine's tokenizer; a cached count
 * above the prompt is taken as the prompt, a thinking count above the completion as the completion.
 * Each replacement is said in one line of the daemon log. So a billed budget is never NaN, strings
 * are never added up, and a bogus figure never ends a meeting.
 *
 * How far a figure may go (a bound, not a guess at the server's tokenizer): no tokenizer makes more
 * tokens of a text than it has UTF-8 bytes (byte-level BPE at worst; SentencePiece's byte
 * fallback the same), so a prompt is at most the bytes sent plus `TEMPLATE_SLACK` (a chat
 * template, a hidden system prompt). A completion has no such bound: a model may think without
 * showing it, and a server may ignore max_tokens; so a whole completion count up to
 * MAX_CALL_TOKENS is billed as reported, and on a billed budget an over-report stops the room
 * (money is what the server says it charged). Our own count is only made when a figure is replaced.
 */
import { MAX_CALL_TOKENS, isRecord, type Usage } from '@roundtable/protocol';

/** Tokens a server may add to what was sent or streamed (its chat template, a hidden system prompt). */
export const TEMPLATE_SLACK = 4_096;
/** Tokens a template may put around each message (role markers, separators). */
const PER_TEXT_SLACK = 16;

/** The most tokens `texts` can be by any tokenizer: one per UTF-8 byte, plus a template's share. */
export function tokenCeiling(texts: Iterable<string>): number {
  let n = TEMPLATE_SLACK;
  for (const t of texts) n += Buffer.byteLength(t, 'utf8') + PER_TEXT_SLACK;
  return Math.min(n, MAX_CALL_TOKENS);
}

/** The figures a server reported, each as it came (any JSON value, or absent). */
export interface Reported {
  prompt?: unknown;
  completion?: unknown;
  cached?: unknown;
  reasoning?: unknown;
}

/** What the daemon knows of the same call: its own counts (made only when needed) and the ceilings. */
export interface Counted {
  /** Our count of the prompt with the engine's tokenizer. */
  promptTokens: () => number;
  /** Our count of what was streamed: reply, thinking and tool calls (what was read of them). */
  completionTokens: () => number;
  /** Of that, the thinking the server showed, counted. */
  reasoningTokens: number;
  /** `tokenCeiling` of everything sent (messages, tool definitions). */
  promptCeiling: number;
}

/**
 * The figures of an OpenAI-style `usage` object (OpenAI, vLLM, Ollama, LM Studio, llama.cpp,
 * OpenRouter all send this shape), or undefined when there is none (`usage: null`, absent).
 */
export function openAiReported(usage: unknown): Reported | undefined {
  if (!isRecord(usage)) return undefined;
  // `prompt_tokens_details: null` (vLLM's default) and absent details both mean "not said".
  const pd = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const cd = isRecord(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  return {
    prompt: usage.prompt_tokens,
    completion: usage.completion_tokens,
    cached: pd.cached_tokens,
    reasoning: cd.reasoning_tokens,
  };
}

/** A reported value as a log line shows it: short, with no control characters or quotes unescaped. */
function shown(v: unknown): string {
  const s = typeof v === 'number' ? String(v) : (JSON.stringify(v) ?? typeof v);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

function isTokenCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= MAX_CALL_TOKENS;
}

/** -0 (a JSON `-0`) is a count of zero. */
const whole = (v: number): number => (v === 0 ? 0 : v);

/** A main figure: the reported one when it is a plausible count, else ours, with why. */
function figure(
  name: string,
  v: unknown,
  ours: () => number,
  cap: number,
  notes: string[],
): { n: number; reported: boolean } {
  if (isTokenCount(v) && v <= cap) return { n: whole(v), reported: true };
  const n = ours();
  const why =
    v === undefined
      ? 'is missing'
      : isTokenCount(v)
        ? `${v} is more than this call can be (at most ${cap})`
        : `${shown(v)} is not a whole number of tokens`;
  notes.push(`${name} ${why}; counted ${n} instead`);
  return { n, reported: false };
}

/** A part of a main figure (cached of prompt, thinking of completion): kept within it, dropped when bogus. */
function part(name: string, v: unknown, of: number, ofName: string, notes: string[]): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isTokenCount(v)) {
    notes.push(`${name} ${shown(v)} is not a whole number of tokens; ignored`);
    return undefined;
  }
  if (v <= of) return whole(v);
  notes.push(`${name} ${v} is above ${ofName} ${of}; taken as ${of}`);
  return of;
}

/**
 * The usage recorded for a call: what the server reported where it holds, our count where it does
 * not, and the notes saying what was replaced (empty when everything held). A server that reported
 * nothing (`reported` undefined: it ignores include_usage) is counted, with no note.
 */
export function checkUsage(reported: Reported | undefined, counted: Counted): { usage: Usage; notes: string[] } {
  const notes: string[] = [];
  const r = reported ?? {};
  const prompt = figure('prompt_tokens', r.prompt, counted.promptTokens, counted.promptCeiling, notes);
  const completion = figure('completion_tokens', r.completion, counted.completionTokens, MAX_CALL_TOKENS, notes);
  const cached = part('cached_tokens', r.cached, prompt.n, 'prompt_tokens', notes);
  const said = part('reasoning_tokens', r.reasoning, completion.n, 'completion_tokens', notes);
  // The thinking the server reported where it holds, else the thinking it showed, counted.
  const thought = said !== undefined && said > 0 ? said : Math.min(counted.reasoningTokens, completion.n);
  return {
    usage: {
      promptTokens: prompt.n,
      completionTokens: completion.n,
      // Partly counted is counted: the bill says so.
      source: prompt.reported && completion.reported ? 'provider' : 'estimate',
      ...(cached !== undefined ? { cachedTokens: cached } : {}),
      ...(thought > 0 ? { reasoningTokens: thought } : {}),
    },
    notes: reported ? notes : [],
  };
}

/** The log line of a call whose usage was partly replaced, or undefined when it all held. */
export function usageNote(server: string, model: string, notes: string[]): string | undefined {
  if (notes.length === 0) return undefined;
  return `usage from ${server} (model ${shown(model)}) not taken as sent: ${notes.join('; ')}`;
}
