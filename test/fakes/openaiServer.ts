/**
 * A real OpenAI-compatible HTTP server on 127.0.0.1 (port 0) for tests: `POST /v1/chat/completions`
 * streamed as SSE in the exact chunk format of the Chat Completions API (with the final usage chunk
 * when `stream_options.include_usage` is set) or as one JSON completion, and `GET /v1/models`.
 *
 * Replies are scripted: behaviours queued with `enqueue` are used first, in order; when the queue
 * is empty the responder decides. Behaviours can also fail: HTTP errors with Retry-After, sockets
 * destroyed mid-stream, stalls, servers that ignore `include_usage`. Thinking is streamed before
 * the reply (`reasoning` in a delta field, or counted only), and a `personality` makes the server
 * refuse and ignore parameters as a real server does (see `Personality`).
 *
 *   const fake = await startFakeOpenAI((body) => ({ text: `hi from ${body.model}` }));
 *   const provider = new OpenAIProvider({ baseURL: fake.baseURL });
 *   fake.enqueue({ status: 429, retryAfter: 1 }, { text: 'after the wait' });
 *   ...
 *   await fake.close();
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PrefixCache, serializePrompt, type PrefixCacheOptions } from '../../daemon/src/providers/prefixCache';

export { PrefixCache, serializePrompt, type PrefixCacheOptions };

/** One scripted reply. Everything is optional: `{}` is an empty, successful completion. */
export interface Behaviour {
  /** The reply text (default ''). */
  text?: string;
  /** Characters (code points) per streamed content chunk (default 8). */
  chunkSize?: number;
  /** Delay before the first byte (before the status line and headers). */
  delayMs?: number;
  /** Delay before each streamed content chunk. */
  chunkDelayMs?: number;
  /** Send the usage chunk when the client asks for it (default true); false = a server that ignores it. */
  usage?: boolean;
  /** Token counts reported in `usage` (default: about one token per four characters). */
  promptTokens?: number;
  completionTokens?: number;
  /** Prompt tokens reported as served from the cache (`usage.prompt_tokens_details.cached_tokens`; absent by default). */
  cachedTokens?: number;
  /** `finish_reason` of the last choice chunk (default `stop`). */
  finishReason?: 'stop' | 'length' | 'content_filter';
  /** Answer with this HTTP status (>= 400) and `errorBody` instead of a completion. */
  status?: number;
  /** Seconds, sent as the Retry-After header of an error answer. */
  retryAfter?: number;
  /** Milliseconds, sent as the retry-after-ms header (honoured by the official SDKs; keeps tests fast). */
  retryAfterMs?: number;
  /** Headers of an error answer sent verbatim (a Retry-After as an HTTP date, `-1`, `NaN`, …). */
  errorHeaders?: Record<string, string>;
  /** JSON body of an error answer (default: OpenAI's `{ error: { message, type, param, code } }`). */
  errorBody?: unknown;
  /** Destroy the socket after this many content chunks (0 = right after the headers and role chunk). */
  resetAfterChunks?: number;
  /** Send nothing for this long mid-stream (after `stallAfterChunks` content chunks), then go on. */
  stallMs?: number;
  /** Content chunks sent before the stall (default 1). */
  stallAfterChunks?: number;
  /** Ask the client to call these tools (streamed as `tool_calls` deltas, finish_reason `tool_calls`). */
  toolCalls?: { name: string; arguments: string }[];
  /**
   * Raw `delta.tool_calls` values, one chunk each, sent verbatim after `toolCalls` (a hostile or
   * broken server: any index, any shape), with finish_reason `tool_calls`.
   */
  rawToolCallDeltas?: unknown[];
  /** Send the text's `<INVALID-UTF8>` markers as raw bytes that are not valid UTF-8 (0xC3 0x28). */
  invalidUtf8?: boolean;
  /**
   * The model's thinking, streamed before the content: in the delta field `reasoningField`, inline
   * as `<think>…</think>` (personality `think-inline`), or only counted (`openai-reasoning`).
   */
  reasoning?: string;
  /** The delta field the thinking is streamed in (default: the personality's, else `reasoning_content`). */
  reasoningField?: 'reasoning' | 'reasoning_content';
  /** Reported as `usage.completion_tokens_details.reasoning_tokens` (inside completion_tokens, as OpenAI counts). */
  reasoningTokens?: number;
  /**
   * After the thinking, go on thinking (a short piece every 50 ms, as a model that thinks for
   * long does) until this settles or the client goes: a live view can be looked at while a
   * model is thinking, however slow the machine, and one that attaches late still sees it.
   */
  holdAfterThinking?: Promise<void>;
  /** Send this exact `usage` value instead of the one built from the counts (a real server's shape, or a hostile one). */
  rawUsage?: unknown;
  /** Send this text verbatim as the `usage` value (JSON that JSON.stringify cannot make: `1e999`, `-0`). */
  rawUsageJson?: string;
  /**
   * Where the usage goes in a stream: `final` (default) a chunk of its own with `choices: []`
   * before [DONE] (OpenAI); `finish` on the chunk that carries finish_reason (llama.cpp #15443,
   * Gemini's OpenAI endpoint); `every` on every chunk, counting up, then the final chunk (vLLM's
   * `continuous_usage_stats`, vllm-project/vllm#7262).
   */
  usageIn?: 'final' | 'finish' | 'every';
}

/**
 * Real servers' habits, from public evidence (the sources are cited beside each in `refusal`,
 * `honouredCap` and `REASONING_FIELD`):
 * - `openai-reasoning`: OpenAI's o-series / gpt-5. Refuses `max_tokens` and a non-default
 *   temperature with HTTP 400 and the exact bodies; honours `max_completion_tokens` (thinking
 *   counts against it); reports `completion_tokens_details.reasoning_tokens`; never streams the
 *   thinking; JSON mode wants the word "json" in the messages.
 * - `lmstudio`: refuses `response_format: json_object` with `{"error":"'response_format.type' must
 *   be 'json_schema' or 'text'"}`; takes json_schema; honours max_tokens; thinking in `reasoning_content`.
 * - `ollama`: ignores `max_completion_tokens` (reply uncapped), honours `max_tokens`; thinking in
 *   `delta.reasoning` (with `content: ""`); both JSON modes.
 * - `vllm`: thinking in `reasoning` (vLLM >= 0.11), `vllm-legacy` in `reasoning_content`; both caps;
 *   `/v1/models` carries `max_model_len`.
 * - `deepseek`: deepseek-reasoner; thinking in `reasoning_content`, reasoning_tokens reported.
 * - `think-inline`: Qwen3 / DeepSeek-R1 served without a reasoning parser (vLLM without
 *   `--reasoning-parser`, llama.cpp with `--reasoning-format none`): the thinking arrives inline
 *   in the content as `<think>…</think>`.
 */
export type Personality =
  'openai-reasoning' | 'lmstudio' | 'ollama' | 'vllm' | 'vllm-legacy' | 'deepseek' | 'think-inline';

/** The request body of a chat completion, as the client sent it. */
export interface ChatBody {
  model?: string;
  messages?: { role: string; content: string; name?: string; tool_call_id?: string; tool_calls?: unknown[] }[];
  /** Function definitions the client offered. */
  tools?: { function: { name: string } }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  response_format?: { type: string; json_schema?: { name?: string; schema?: unknown; strict?: boolean } };
  [key: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  /** Path with query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (`{}` for a request without a body). */
  body: ChatBody;
  /** `Date.now()` when the request arrived. */
  at: number;
  /** The HTTP status answered (set once the answer starts). */
  status?: number;
  /** The usage reported for a completion (set once the answer starts). */
  usage?: { promptTokens: number; completionTokens: number; cachedTokens?: number };
  /** `Date.now()` when the answer ended (or the connection closed). */
  endedAt?: number;
  /**
   * The server's own order of what happened (arrivals and ends share one counter): unlike two
   * `Date.now()` readings, which may fall in one millisecond, it says which came first.
   */
  arrivedStep: number;
  endedStep?: number;
}

/** One counter for every arrival and end the fake servers see (RecordedRequest's steps). */
let steps = 0;

/** A reply: a behaviour, or just its text. */
export type Reply = Behaviour | string;

/**
 * Decides the reply of a chat completion when the queue is empty. `index` counts the chat
 * completion requests the server has received, from 0.
 */
export type Responder = (body: ChatBody, index: number) => Reply | Promise<Reply>;

export interface FakeOpenAIOptions {
  /** When set, every request must carry `Authorization: Bearer <apiKey>`; others get a 401. */
  apiKey?: string;
  /** Model ids listed by `GET /v1/models` (default `['fake-model']`). */
  models?: string[];
  /** Extra fields of a listed model (e.g. OpenRouter's `supported_parameters`, vLLM's `max_model_len`). */
  modelInfo?: Record<string, Record<string, unknown>>;
  /**
   * Answer `GET /v1/models` with this instead of the list (a hostile server: 150 MB of models, a
   * body dribbled a byte at a time, a bare array, deeply nested JSON).
   */
  modelsResponse?: (res: http.ServerResponse) => void | Promise<void>;
  /** Behave like this real server (refusals, ignored parameters, where thinking goes). */
  personality?: Personality;
  /**
   * Answer llama.cpp's `GET /props` (at the server's root, beside `/v1`) with this body, as
   * llama-server does (`total_slots`: its `--parallel`; ggml-org/llama.cpp tools/server/README.md
   * at 00dc8057ab28c9cb4c79a6dd6dfce07fe779f63b); without it `/props` is a 404, as on other servers.
   */
  props?: unknown;
  /**
   * Keep a prefix cache as real servers do (see `PrefixCache`): each completion's prompt tokens
   * are counted on `serializePrompt` (one token per four characters, or by `tokens`) and the longest common prefix
   * with ANY earlier prompt is reported as `prompt_tokens_details.cached_tokens`. Off by default.
   */
  prefixCache?: PrefixCacheOptions;
  /**
   * One prefix cache per model instead of one for the server: the cache holds the model's own KV
   * states, so a prefix one model read serves no other ("the model loads the saved state for that
   * shared prefix", https://docs.together.ai/docs/inference/chat/prompt-caching; OpenAI's guide:
   * https://developers.openai.com/api/docs/guides/prompt-caching). For a panel of distinct models.
   */
  prefixCachePerModel?: boolean;
  /** Take as long as a real server would (see `LatencyModel`), on top of a behaviour's own delays. */
  latency?: LatencyModel;
  /**
   * How the server counts tokens (default: one per four characters). A test that compares a bill
   * with the estimate gives the engine's tokenizer, as a real server counts with its own.
   */
  tokens?: TokenCounter;
}

/**
 * A real server's time per completion: the prefill of the prompt tokens not served from the
 * prefix cache, then the decode of each completion token. Streams take the decode time between
 * their content chunks.
 */
export interface LatencyModel {
  prefillTokensPerSec: number;
  decodeTokensPerSec: number;
}

/** Milliseconds a completion takes under `m`: time to first token, then the decode. */
export function latencyOf(
  m: LatencyModel,
  u: { promptTokens: number; cachedTokens?: number; completionTokens: number },
): { firstTokenMs: number; decodeMs: number } {
  const fresh = Math.max(0, u.promptTokens - (u.cachedTokens ?? 0));
  return {
    firstTokenMs: (fresh / m.prefillTokensPerSec) * 1000,
    decodeMs: (u.completionTokens / m.decodeTokensPerSec) * 1000,
  };
}

/** A server's tokenizer: prompt tokens of a request, tokens of a text, a text cut to a count. */
export interface TokenCounter {
  prompt(messages: { role: 'system' | 'user' | 'assistant'; content: string; name?: string }[]): number;
  text(text: string): number;
  truncate(text: string, tokens: number): string;
}

/** Stands for `rawUsageJson` in a chunk until the text is spliced in. */
const RAW = 'fake-raw-usage-7f3a';

/** One token per four characters. */
const APPROX: TokenCounter = {
  // A message's `name` (group chats send one per speaker) is billed as its tokens plus one
  // (OpenAI's cookbook, "How to count tokens with tiktoken": tokens_per_name = 1).
  prompt: (messages) =>
    approxTokens(serializePrompt(messages)) + messages.reduce((n, m) => n + (m.name ? 1 + approxTokens(m.name) : 0), 0),
  text: (text) => approxTokens(text),
  truncate: (text, tokens) =>
    Array.from(text)
      .slice(0, tokens * 4)
      .join(''),
};

export interface FakeOpenAI {
  /** `http://127.0.0.1:PORT/v1` */
  baseURL: string;
  port: number;
  /** Every request received, in order (chat completions, /models, unknown paths). */
  requests: RecordedRequest[];
  /** Behaviours used first, in order, by the next chat completions, before the responder. */
  enqueue(...b: Reply[]): void;
  /** Behaviours still queued. */
  pending(): number;
  setResponder(r: Responder): void;
  /** Stops the server, destroying open connections (streams in flight end abruptly). */
  close(): Promise<void>;
}

/** The text of the last user message. */
/** How many chat completions the server was asked for (answered or refused): the calls a bill counts. */
export function chatCalls(fake: FakeOpenAI): number {
  return fake.requests.filter((r) => r.path.startsWith('/v1/chat/completions')).length;
}

export function lastUserMessage(body: ChatBody): string {
  const msgs = body.messages ?? [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m?.role === 'user') return typeof m.content === 'string' ? m.content : '';
  }
  return '';
}

/**
 * Who a request is for and what it asks: the seat message ("You are ada, …", the last user message
 * of a roundtable prompt, whose system message holds only the room's shared rules) first, then the
 * system message. Prompts with the seat in the system message (consensus mode) read as before.
 */
export function instructionsOf(body: ChatBody): string {
  const system = body.messages?.find((m) => m.role === 'system')?.content ?? '';
  const last = lastUserMessage(body);
  return /^You are /.test(last) ? `${last}\n${system}` : `${system}\n${last}`;
}

/** Who is asked (the seat's name), in which round, and the instructions read (see instructionsOf). */
export function seatOf(body: ChatBody): { me: string; round: number; system: string } {
  const system = instructionsOf(body);
  const me = /^You are (\w+)/.exec(system)?.[1] ?? '?';
  const round = Number(/This is round (\d+)|Review round (\d+)/.exec(system)?.slice(1).find(Boolean) ?? 0);
  return { me, round, system };
}

/**
 * Default: the rest of a `REPLY: ...` line in the last user message is the reply; otherwise
 * `ok from <model> [STANCE: AGREE]`.
 */
export const defaultResponder = (body: ChatBody): Behaviour => {
  const scripted = /^[ \t]*REPLY:[ \t]*(.*)$/m.exec(lastUserMessage(body))?.[1];
  return { text: scripted !== undefined ? scripted.trim() : `ok from ${body.model ?? 'model'} [STANCE: AGREE]` };
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function approxTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** The request's messages as the tokenizer reads them (a tool result's text is its content). */
function messagesOf(body: ChatBody): Parameters<TokenCounter['prompt']>[0] {
  return (body.messages ?? []).map((m) => ({
    role: m.role as 'system' | 'user' | 'assistant',
    content: typeof m.content === 'string' ? m.content : '',
    ...(typeof m.name === 'string' ? { name: m.name } : {}),
  }));
}

/** Prompt and cached tokens of a request on the server's prefix cache (counted on `serializePrompt`). */
function lookup(
  cache: PrefixCache,
  body: ChatBody,
  tokens: TokenCounter,
): { promptTokens: number; cachedTokens: number } {
  const promptTokens = tokens.prompt(messagesOf(body));
  return { promptTokens, cachedTokens: cache.lookup(serializePrompt(body.messages), promptTokens) };
}

function errorType(status: number): { type: string; code: string | null } {
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' };
  if (status === 404) return { type: 'invalid_request_error', code: 'model_not_found' };
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' };
  if (status >= 500) return { type: 'server_error', code: null };
  return { type: 'invalid_request_error', code: null };
}

function openAIError(status: number, message: string): unknown {
  return { error: { message, ...errorType(status), param: null } };
}

/** Where each personality streams the thinking (undefined: not streamed). */
const REASONING_FIELD: Record<Personality, 'reasoning' | 'reasoning_content' | 'inline' | undefined> = {
  // OpenAI's chat completions never return the reasoning text, only its token count.
  'openai-reasoning': undefined,
  // LM Studio's "Separate reasoning_content and content in API responses" (lmstudio-bug-tracker#378);
  // 0.3.23 sends gpt-oss thinking as `reasoning` (lmstudio-bug-tracker#894): set `reasoningField`.
  lmstudio: 'reasoning_content',
  // Ollama's /v1 streams `{"content":"","reasoning":"We"}` (github.com/dirac-run/dirac/pull/227, Ollama 0.34).
  ollama: 'reasoning',
  // vLLM renamed reasoning_content to reasoning (vllm-project/vllm#27752, RFC #27755).
  vllm: 'reasoning',
  'vllm-legacy': 'reasoning_content',
  // DeepSeek's API: `reasoning_content` beside `content` (api-docs.deepseek.com, "Reasoning Model").
  deepseek: 'reasoning_content',
  'think-inline': 'inline',
};

/** The exact 400 body a personality answers this request with, or undefined when it takes it. */
function refusal(personality: Personality | undefined, body: ChatBody): unknown {
  if (personality === 'openai-reasoning') {
    // Verbatim from OpenAI (github.com/griptape-ai/ComfyUI-Griptape/issues/312, fish2018/YPrompt/issues/26).
    if (body.max_tokens !== undefined) {
      return {
        error: {
          message:
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
          type: 'invalid_request_error',
          param: 'max_tokens',
          code: 'unsupported_parameter',
        },
      };
    }
    // Verbatim (github.com/gabrii/Cursor-Azure-GPT-5/issues/33, holoviz/lumen/pull/1087).
    if (body.temperature !== undefined && body.temperature !== 1) {
      return {
        error: {
          message: `Unsupported value: 'temperature' does not support ${String(body.temperature)} with this model. Only the default (1) value is supported.`,
          type: 'invalid_request_error',
          param: 'temperature',
          code: 'unsupported_value',
        },
      };
    }
    // OpenAI's JSON mode guide: json_object needs the word "json" somewhere in the messages.
    const mentionsJson = (body.messages ?? []).some((m) =>
      /json/i.test(typeof m.content === 'string' ? m.content : ''),
    );
    if (body.response_format?.type === 'json_object' && !mentionsJson) {
      return {
        error: {
          message:
            "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
          type: 'invalid_request_error',
          param: 'messages',
          code: null,
        },
      };
    }
  }
  // LM Studio >= 0.3: a bare string error (github.com/LoadShine/tada/issues/16; lmstudio-bug-tracker#189, #307).
  if (
    personality === 'lmstudio' &&
    body.response_format &&
    body.response_format.type !== 'json_schema' &&
    body.response_format.type !== 'text'
  )
    return { error: "'response_format.type' must be 'json_schema' or 'text'" };
  return undefined;
}

/** The token cap the personality honours (undefined: uncapped). */
function honouredCap(personality: Personality | undefined, body: ChatBody): number | undefined {
  switch (personality) {
    case undefined:
      return undefined;
    case 'openai-reasoning':
      return body.max_completion_tokens;
    // Ollama's /v1 ignores max_completion_tokens silently (ollama/ollama#7125: completion_tokens=422
    // for max_completion_tokens 10; max_tokens 10 gives 10 and finish_reason length).
    case 'ollama':
    case 'lmstudio':
    case 'deepseek':
    case 'think-inline':
      return body.max_tokens;
    default:
      return body.max_tokens ?? body.max_completion_tokens;
  }
}

function sendJSON(res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}) {
  if (res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startFakeOpenAI(
  responder: Responder = defaultResponder,
  options: FakeOpenAIOptions = {},
): Promise<FakeOpenAI> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  let respond = responder;
  let chatCount = 0;
  const sockets = new Set<Socket>();
  const caches = new Map<string, PrefixCache>();
  const cacheFor = (body: ChatBody): PrefixCache | undefined => {
    if (!options.prefixCache) return undefined;
    const key = options.prefixCachePerModel ? (body.model ?? '') : '';
    let c = caches.get(key);
    if (!c) caches.set(key, (c = new PrefixCache(options.prefixCache)));
    return c;
  };
  const tokens = options.tokens ?? APPROX;

  async function completion(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: ChatBody,
    index: number,
    rec: RecordedRequest,
  ) {
    const refused = refusal(options.personality, body);
    if (refused !== undefined) {
      rec.status = 400;
      sendJSON(res, 400, refused);
      return;
    }
    // Looked up on arrival: a prompt is in the cache for every request that comes after it.
    const cache = cacheFor(body);
    const hit = cache ? lookup(cache, body, tokens) : undefined;
    const reply = queue.length > 0 ? queue.shift() : await respond(body, index);
    const b: Behaviour = typeof reply === 'string' ? { text: reply } : (reply ?? {});
    if (b.delayMs) await sleep(b.delayMs);
    if (res.destroyed) return;
    if (b.status !== undefined && b.status >= 400) {
      rec.status = b.status;
      sendJSON(res, b.status, b.errorBody ?? openAIError(b.status, `fake error ${b.status}`), {
        ...(b.retryAfter !== undefined ? { 'Retry-After': String(b.retryAfter) } : {}),
        ...(b.retryAfterMs !== undefined ? { 'retry-after-ms': String(b.retryAfterMs) } : {}),
        ...b.errorHeaders,
      });
      return;
    }

    rec.status = 200;
    const personality = options.personality;
    const field = b.reasoningField ?? (personality ? REASONING_FIELD[personality] : 'reasoning_content') ?? undefined;
    let text = b.text ?? '';
    let reasoning = b.reasoning ?? '';
    let finishReason: string = b.finishReason ?? 'stop';
    // Thinking counts against the cap first (OpenAI: reasoning tokens are completion tokens).
    const thoughtTokens = b.reasoningTokens ?? (reasoning ? tokens.text(reasoning) : 0);
    const cap = honouredCap(personality, body);
    if (cap !== undefined) {
      if (thoughtTokens >= cap) {
        reasoning = Array.from(reasoning)
          .slice(0, cap * 4)
          .join('');
        text = '';
        finishReason = 'length';
      } else if (tokens.text(text) > cap - thoughtTokens && text) {
        text = tokens.truncate(text, cap - thoughtTokens);
        finishReason = 'length';
      }
    }
    if (field === 'inline' && reasoning) text = `<think>\n${reasoning}\n</think>\n\n${text}`;
    const streamed = field === 'reasoning' || field === 'reasoning_content' ? reasoning : '';
    const reportTokens =
      b.reasoningTokens ??
      (personality === 'openai-reasoning' || personality === 'deepseek' ? thoughtTokens : undefined);
    const id = `chatcmpl-fake${index}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model ?? 'fake-model';
    const promptTokens =
      b.promptTokens ??
      hit?.promptTokens ??
      (options.tokens
        ? options.tokens.prompt(messagesOf(body))
        : approxTokens((body.messages ?? []).map((m) => m.content).join('\n')));
    const cachedTokens = b.cachedTokens ?? (b.promptTokens === undefined ? hit?.cachedTokens : undefined);
    const completionTokens =
      b.completionTokens ?? (field === 'inline' ? tokens.text(text) : tokens.text(text) + thoughtTokens);
    const usage =
      b.rawUsage !== undefined
        ? b.rawUsage
        : {
            prompt_tokens: promptTokens,
            completion_tokens: completionTokens,
            total_tokens: promptTokens + completionTokens,
            ...(cachedTokens !== undefined ? { prompt_tokens_details: { cached_tokens: cachedTokens } } : {}),
            ...(reportTokens !== undefined ? { completion_tokens_details: { reasoning_tokens: reportTokens } } : {}),
          };
    rec.usage = { promptTokens, completionTokens, ...(cachedTokens !== undefined ? { cachedTokens } : {}) };
    const timing = options.latency ? latencyOf(options.latency, rec.usage) : undefined;
    if (timing) await sleep(timing.firstTokenMs);
    if (res.destroyed) return;

    if (!body.stream) {
      if (timing) await sleep(timing.decodeMs);
      sendJSON(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        system_fingerprint: 'fp_fake',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text,
              refusal: null,
              ...(streamed && field ? { [field]: streamed } : {}),
            },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
        usage,
      });
      return;
    }

    const withUsage = body.stream_options?.include_usage === true && b.usage !== false;
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    res.flushHeaders();
    const gone = new Promise<void>((resolve) => res.once('close', () => resolve()));
    // Resolves once the chunk is handed to the socket (so a reset that follows does not swallow
    // it), or when the client has gone away.
    const encode = (frame: string): Buffer =>
      b.invalidUtf8
        ? Buffer.concat(
            frame
              .split('<INVALID-UTF8>')
              .flatMap((part, k) => (k === 0 ? [Buffer.from(part)] : [Buffer.from([0xc3, 0x28]), Buffer.from(part)])),
          )
        : Buffer.from(frame);
    const send = (data: string) =>
      res.destroyed
        ? Promise.resolve()
        : Promise.race([new Promise<void>((resolve) => res.write(encode(`data: ${data}\n\n`), () => resolve())), gone]);
    let sentPieces = 0;
    const usageOnChunk = (finish: string | null): unknown => {
      if (b.usageIn === 'finish' && finish) return usage;
      if (b.usageIn !== 'every') return null;
      // Counting up as the reply streams, as vLLM's continuous_usage_stats does.
      return { prompt_tokens: promptTokens, completion_tokens: sentPieces, total_tokens: promptTokens + sentPieces };
    };
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        system_fingerprint: 'fp_fake',
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...(withUsage ? { usage: usageOnChunk(finish) } : {}),
      });

    await send(chunk({ role: 'assistant', content: '', refusal: null }, null));
    const size = Math.max(1, b.chunkSize ?? 8);
    const thought = Array.from(streamed);
    for (let i = 0; i < thought.length && field !== undefined && field !== 'inline'; i += size) {
      if (res.destroyed) return;
      // Ollama sends `content: ""` beside the thinking; DeepSeek `content: null`.
      const content = personality === 'ollama' ? '' : null;
      await send(chunk({ content, [field]: thought.slice(i, i + size).join('') }, null));
    }
    if (b.holdAfterThinking && field !== undefined && field !== 'inline') {
      let released = false;
      void b.holdAfterThinking.then(() => (released = true));
      const content = personality === 'ollama' ? '' : null;
      while (!released && !res.destroyed) {
        await send(chunk({ content, [field]: ' …' }, null));
        await Promise.race([sleep(50), b.holdAfterThinking, gone]);
      }
    }
    const chars = Array.from(text);
    const pieces: string[] = [];
    for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
    const stallAt = b.stallMs ? Math.min(b.stallAfterChunks ?? 1, pieces.length) : -1;
    for (let i = 0; i <= pieces.length; i++) {
      if (res.destroyed) return;
      if (b.resetAfterChunks !== undefined && i >= b.resetAfterChunks) {
        req.socket.destroy();
        return;
      }
      if (i === stallAt && b.stallMs) await sleep(b.stallMs);
      const piece = pieces[i];
      if (piece === undefined) break;
      if (b.chunkDelayMs) await sleep(b.chunkDelayMs);
      if (timing) await sleep(timing.decodeMs / pieces.length);
      if (res.destroyed) return;
      sentPieces += 1;
      await send(chunk({ content: piece }, null));
    }
    // Each call's arguments arrive in two pieces, as real servers split them.
    for (const [index, c] of (b.toolCalls ?? []).entries()) {
      const half = Math.ceil(c.arguments.length / 2);
      const fn = { name: c.name, arguments: c.arguments.slice(0, half) };
      await send(chunk({ tool_calls: [{ index, id: `call_${index}`, type: 'function', function: fn }] }, null));
      await send(chunk({ tool_calls: [{ index, function: { arguments: c.arguments.slice(half) } }] }, null));
    }
    for (const raw of b.rawToolCallDeltas ?? []) {
      if (res.destroyed) return;
      await send(chunk({ tool_calls: raw }, null));
    }
    const calling = (b.toolCalls?.length ?? 0) > 0 || (b.rawToolCallDeltas?.length ?? 0) > 0;
    await send(chunk({}, calling ? 'tool_calls' : finishReason));
    if (withUsage && b.usageIn !== 'finish') {
      await send(
        JSON.stringify({
          id,
          object: 'chat.completion.chunk',
          created,
          model,
          system_fingerprint: 'fp_fake',
          choices: [],
          usage: b.rawUsageJson === undefined ? usage : RAW,
        }).replace(`"${RAW}"`, b.rawUsageJson ?? `"${RAW}"`),
      );
    }
    await send('[DONE]');
    if (!res.destroyed) res.end();
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const raw = await readBody(req);
    let body: ChatBody = {};
    let parseError = false;
    if (raw) {
      try {
        const parsed: unknown = JSON.parse(raw);
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) body = parsed as ChatBody;
        else parseError = true;
      } catch {
        parseError = true;
      }
    }
    const method = req.method ?? '';
    const url = req.url ?? '';
    const route = url.split('?')[0] ?? '';
    const rec: RecordedRequest = {
      method,
      path: url,
      headers: req.headers,
      body,
      at: Date.now(),
      arrivedStep: ++steps,
    };
    requests.push(rec);
    res.once('close', () => {
      rec.endedAt = Date.now();
      rec.endedStep = ++steps;
    });

    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      sendJSON(res, 401, openAIError(401, 'Incorrect API key provided.'));
      return;
    }
    if (parseError) {
      sendJSON(res, 400, openAIError(400, 'We could not parse the JSON body of your request.'));
      return;
    }
    if (method === 'GET' && route === '/v1/models' && options.modelsResponse) {
      await options.modelsResponse(res);
      return;
    }
    if (method === 'GET' && route === '/v1/models') {
      const data = (options.models ?? ['fake-model']).map((m) => ({
        id: m,
        object: 'model',
        created: 0,
        owned_by: 'fake',
        // vLLM lists the context window (github.com/modal-labs/modal-examples/issues/843).
        ...(options.personality === 'vllm' || options.personality === 'vllm-legacy'
          ? { owned_by: 'vllm', root: m, parent: null, max_model_len: 32768 }
          : {}),
        ...options.modelInfo?.[m],
      }));
      sendJSON(res, 200, { object: 'list', data });
      return;
    }
    if (method === 'GET' && route === '/props' && options.props !== undefined) {
      sendJSON(res, 200, options.props);
      return;
    }
    if (method === 'POST' && route === '/v1/chat/completions') {
      await completion(req, res, body, chatCount++, rec);
      return;
    }
    sendJSON(res, 404, openAIError(404, `Unknown request URL: ${method} ${route}`));
  }

  const server = http.createServer((req, res) => {
    res.on('error', () => undefined);
    handle(req, res).catch((e: unknown) => {
      const message = e instanceof Error ? e.message : String(e);
      if (!res.headersSent) sendJSON(res, 500, openAIError(500, `fake server failure: ${message}`));
      else res.destroy();
    });
  });
  // Node closes a keep-alive socket idle for 5 s; a client reusing it at that instant reads
  // ECONNRESET (undici's own idle timer, 1 s shorter, can fire late on a loaded machine). Real
  // servers keep idle sockets longer (nginx 75 s); the fake keeps them until it closes.
  server.keepAliveTimeout = 0;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('fake OpenAI server has no TCP address');
  const port = (address satisfies AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    enqueue: (...b) => void queue.push(...b),
    pending: () => queue.length,
    setResponder: (r) => {
      respond = r;
    },
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      })),
  };
}

/** A loopback port nothing listens on (bound, then released): a server that is down. */
export async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
