/**
 * Any OpenAI-compatible server (OpenAI, Ollama, LM Studio, vLLM) through the official `openai`
 * package: streaming with `stream_options.include_usage`, explicit timeout and retries (408/409/
 * 429/5xx and connection errors, honouring a Retry-After up to 60 s: see `retryWait`), abort on cut. The
 * API key lives in memory only and never appears in an error message.
 *
 * Every stream goes through the one ReplyReader (replyReader.ts): `delta.content` (with inline
 * `<think>`), `delta.reasoning` (Ollama, newer vLLM) and `delta.reasoning_content` (DeepSeek,
 * older vLLM, LM Studio) become the reply and the thinking. The parameters sent are the server
 * profile's (serverProfile.ts); a 400 that names one of them is retried once, adapted.
 */
import OpenAI from 'openai';
import { isRecord, type ToolTurn } from '@roundtable/protocol';
import type { ListModels } from '@roundtable/protocol/modelList';
import { countPromptTokens, pieceTokens, toolTurnPromptTokens } from './tokens';
import {
  ProviderError,
  type Asked,
  type ChatProvider,
  type ChatRequest,
  type ChatResult,
  type ServerSlots,
} from './types';
import { ToolCallCollector, echoed } from './toolCalls';
import type { FinishReason } from './reply';
import { ReplyReader } from './replyReader';
import { StreamGuard, holdToCap } from './openaiStream';
import { checkUsage, openAiReported, tokenCeiling, usageNote, type Reported } from './usage';
import {
  DEFAULT_KEY,
  aborted,
  invalidURL,
  retryWait,
  seconds,
  toProviderError,
  untilAborted,
  waitToRetry,
} from './openaiErrors';

import {
  adaptToRefusal,
  askServerOnce,
  modelInfo,
  normalizeBaseURL,
  paramsFor,
  remember,
  serverListed,
  type Adaptation,
  type CallParams,
} from './serverProfile';

export interface OpenAIProviderOptions {
  /** e.g. `http://127.0.0.1:11434/v1` (Ollama) or `https://api.openai.com/v1`. */
  baseURL: string;
  /** Local servers ignore it; defaults to `not-needed`. */
  apiKey?: string;
  /**
   * Per attempt, in ms (default 60,000): the longest wait for the response headers, and the
   * longest silence tolerated between two pieces of a streamed reply.
   */
  timeoutMs?: number;
  /** Retries on 408/409/429/5xx and connection errors (default 2). */
  maxRetries?: number;
  /**
   * Ask the server's `GET /models` (once per server for the daemon's life, before the first
   * call) what its models support: `remote` (default) for non-loopback servers only (gateways
   * such as OpenRouter say it; local servers are listed by the preflight anyway), `always`, `never`.
   */
  discover?: 'remote' | 'always' | 'never';
  /** The daemon log: a usage figure replaced by our own count is said here, in one line. */
  log?: (line: string) => void;
  /**
   * How the server's model list is asked when `discover` says to (what it says of its models is
   * noted in the server profile: daemon/src/modelLists.ts). Without it nothing is asked.
   */
  listModels?: ListModels;
  /**
   * How many requests the server runs at once, where it says (llama.cpp's `/props`: asked once per
   * server, daemon/src/modelLists.ts). Without it the server is taken to say nothing.
   */
  serverSlots?: ServerSlots;
}

/** The longest wait for the model list asked before a server's first call. */
const DISCOVER_TIMEOUT_MS = 3_000;

function isLoopback(baseURL: string): boolean {
  try {
    const h = new URL(baseURL).hostname;
    return h === 'localhost' || h === '[::1]' || h === '::1' || /^127\./.test(h);
  } catch {
    return true;
  }
}

/** `finish_reason` as the rest of the daemon reads it. */
export function finishReasonOf(raw: unknown): FinishReason | undefined {
  if (raw === null || raw === undefined || raw === '') return undefined;
  if (raw === 'stop' || raw === 'length' || raw === 'tool_calls' || raw === 'content_filter') return raw;
  if (raw === 'function_call') return 'tool_calls';
  return 'other';
}

/** The thinking pieces of a streamed delta: `reasoning` (Ollama, vLLM >= 0.11) or `reasoning_content` (DeepSeek, older vLLM, LM Studio). */
function reasoningOf(delta: unknown): string {
  if (!isRecord(delta)) return '';
  const r = delta.reasoning;
  const rc = delta.reasoning_content;
  // A server that sends both (vLLM in its transition) sends the same text twice: read one.
  if (typeof r === 'string' && r) return r;
  return typeof rc === 'string' ? rc : '';
}

/** The request body of one call with these parameters. */
function requestBody(
  req: ChatRequest,
  p: CallParams,
  messages: OpenAI.ChatCompletionMessageParam[],
  tools: ReturnType<NonNullable<ChatRequest['tools']>['definitions']>,
): OpenAI.ChatCompletionCreateParamsStreaming {
  const json = req.json;
  return {
    model: req.model,
    messages,
    ...(p.tokenParam === 'max_completion_tokens'
      ? { max_completion_tokens: req.maxTokens }
      : { max_tokens: req.maxTokens }),
    ...(req.temperature !== undefined && p.temperature ? { temperature: req.temperature } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    stream: true,
    stream_options: { include_usage: true },
    ...(json && p.json === 'json_object' ? { response_format: { type: 'json_object' as const } } : {}),
    ...(json && p.json === 'json_schema'
      ? {
          response_format: {
            type: 'json_schema' as const,
            json_schema: { name: json.name, schema: json.schema, strict: false },
          },
        }
      : {}),
  };
}

export class OpenAIProvider implements ChatProvider {
  readonly id: string;
  private readonly client: OpenAI;
  private readonly baseURL: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly discoverMode: NonNullable<OpenAIProviderOptions['discover']>;
  private readonly log: (line: string) => void;
  private readonly listModels: ListModels | undefined;
  private readonly slots: ServerSlots | undefined;

  constructor(opts: OpenAIProviderOptions) {
    this.baseURL = normalizeBaseURL(opts.baseURL);
    this.id = `openai@${this.baseURL}`;
    // Local servers ignore the key, but the SDK insists on one.
    this.apiKey = opts.apiKey || DEFAULT_KEY;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.maxRetries = opts.maxRetries ?? 2;
    this.discoverMode = opts.discover ?? 'remote';
    this.listModels = opts.listModels;
    this.slots = opts.serverSlots;
    this.log = opts.log ?? (() => undefined);
    this.client = new OpenAI({
      baseURL: this.baseURL,
      apiKey: this.apiKey,
      timeout: this.timeoutMs,
      // Retries are openStream's (a capped Retry-After, a wait that ends with the call).
      maxRetries: 0,
    });
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    const loop = req.tools;
    if (!loop) return (await this.once(req, [], req.maxTokens, false)).result;
    // The model asked for workspace tools: run them and ask again with the results, within the engine's bounds.
    return loop.turn(req.messages, (turns, o) => this.once(req, turns, o.maxTokens ?? req.maxTokens, o.offerTools));
  }

  /** One request: `turns` are the tool calls and their results so far in this turn. */
  private async once(req: ChatRequest, turns: ToolTurn[], maxTokens: number, offerTools: boolean): Promise<Asked> {
    if (req.signal.aborted) throw aborted();
    const tools = offerTools ? (req.tools?.definitions() ?? []) : [];
    const hold = req.stopAtMaxTokens === true;
    const calls = new ToolCallCollector(hold);
    // Tokens streamed (reply, thinking, tool calls) by the engine's own count: a server that
    // ignores max_tokens is not read past it.
    let streamed = 0;
    let overCap = false;
    const bad = invalidURL(this.baseURL);
    if (bad) throw bad;

    const guard = new StreamGuard(req.signal, this.timeoutMs);
    let usage: Reported | undefined;
    let finishReason: FinishReason | undefined;
    let midStream = false;
    const reader = new ReplyReader(req.onDelta);
    try {
      await this.discover(req.signal);
      const messages = [...req.messages, ...turns.map(openAiTurn)];
      const stream = await this.openStream({ ...req, maxTokens }, messages, tools, guard.signal);
      midStream = true;
      guard.arm();
      for await (const chunk of stream) {
        guard.arm();
        const choice = chunk.choices[0];
        const before = calls.streamedTokens;
        calls.add(choice?.delta?.tool_calls, maxTokens - streamed);
        // Thinking first: servers that send both in one delta think before they answer.
        let thought = reasoningOf(choice?.delta);
        let said = choice?.delta?.content ?? '';
        if (hold) {
          // Held to max_tokens by our count: kept up to it, the rest not read (closing the stream stops the server).
          streamed += calls.streamedTokens - before;
          const kept = holdToCap(thought, said, Math.max(0, maxTokens - streamed));
          ({ thought, said } = kept);
          streamed += kept.tokens;
        }
        reader.addReasoning(thought);
        reader.addContent(said);
        if (hold && streamed > maxTokens) {
          overCap = true;
          finishReason = 'length';
          break;
        }
        finishReason = finishReasonOf(choice?.finish_reason) ?? finishReason;
        // The last usage a server sent holds: some send it in every chunk, counting up (vLLM's
        // continuous_usage_stats), others once before [DONE]; `usage: null` meanwhile says nothing.
        usage = openAiReported((chunk as { usage?: unknown }).usage) ?? usage;
      }
    } catch (e) {
      throw guard.stalled && !req.signal.aborted ? this.stallError() : this.failure(e, req.signal, midStream);
    } finally {
      guard.dispose();
    }
    // The SDK ends the iteration quietly on abort: a cut reply must not pass for a complete one.
    if (req.signal.aborted) throw aborted();
    if (guard.stalled) throw this.stallError();
    const { thinking, reply, fromReasoning } = reader.end({ finishReason, json: req.json !== undefined });
    const thinkingTokens = thinking ? pieceTokens(thinking) : 0;
    const checked = this.usageOf(usage, req, turns, tools, {
      thinkingTokens,
      // Servers that ignore include_usage (some local ones) are counted with the tokenizer: the thinking was generated too.
      tokens: () =>
        overCap ? Math.min(streamed, maxTokens) : thinkingTokens + pieceTokens(reply) + calls.streamedTokens,
    });
    const result: ChatResult = {
      text: reply,
      ...(thinking ? { thinking } : {}),
      ...(finishReason ? { finishReason } : {}),
      ...(fromReasoning ? { fromReasoning } : {}),
      usage: checked,
    };
    return { result, calls: calls.calls(), ...(calls.stopped ? { stopped: calls.stopped } : {}) };
  }

  /**
   * The call's usage: what the server reported, checked where it enters (usage.ts), our count where
   * a figure does not hold or the server sent none; a replaced figure is said in the log.
   */
  private usageOf(
    reported: Reported | undefined,
    req: ChatRequest,
    turns: ToolTurn[],
    tools: ReturnType<NonNullable<ChatRequest['tools']>['definitions']>,
    read: { thinkingTokens: number; tokens: () => number },
  ): ChatResult['usage'] {
    const sent = [...req.messages, ...turns.map(openAiTurn)];
    const { usage, notes } = checkUsage(reported, {
      promptTokens: () =>
        turns.length ? toolTurnPromptTokens(req.messages, turns, tools) : countPromptTokens(req.messages),
      completionTokens: read.tokens,
      reasoningTokens: read.thinkingTokens,
      promptCeiling: tokenCeiling([...sent.map((m) => JSON.stringify(m)), JSON.stringify(tools)]),
    });
    const note = usageNote(this.baseURL, req.model, notes);
    if (note) this.log(note);
    return usage;
  }

  /** What the SDK threw, said as one line that names this server. */
  private failure(e: unknown, signal: AbortSignal, midStream: boolean): ProviderError {
    return toProviderError(e, this.baseURL, signal, {
      apiKey: this.apiKey,
      maxRetries: this.maxRetries,
      timeoutMs: this.timeoutMs,
      midStream,
    });
  }

  /**
   * The request's stream. A 400 that names a parameter is retried once per parameter with it
   * adapted (and remembered for this server and model, so the next call sends it right away).
   */
  private async openStream(
    req: ChatRequest,
    messages: OpenAI.ChatCompletionMessageParam[],
    tools: ReturnType<NonNullable<ChatRequest['tools']>['definitions']>,
    signal: AbortSignal,
  ): Promise<AsyncIterable<OpenAI.ChatCompletionChunk>> {
    let params = paramsFor(this.baseURL, req.model);
    const adapted = new Set<Adaptation['param']>();
    for (let attempt = 0; ;) {
      try {
        return await untilAborted(
          this.client.chat.completions.create(requestBody(req, params, messages, tools), { signal }),
          req.signal,
        );
      } catch (e) {
        const a =
          e instanceof OpenAI.APIError && !req.signal.aborted
            ? adaptToRefusal(this.baseURL, req.model, params, e.status as number | undefined, e.error)
            : null;
        if (a && !adapted.has(a.param)) {
          adapted.add(a.param);
          remember(this.baseURL, req.model, a);
          params = a.params;
          continue;
        }
        // Retried here, not by the SDK: its wait honours any Retry-After (999999 s kept a CLI
        // alive) and cannot be cut short; this one is capped and ends with the call.
        const wait = req.signal.aborted ? undefined : retryWait(e, attempt++, this.maxRetries, this.baseURL);
        if (wait === undefined) throw e;
        await waitToRetry(wait, req.signal);
      }
    }
  }

  /** The context window the server's model list gives for `model` (asked as `discover` asks), if any. */
  async contextWindow(model: string, signal: AbortSignal): Promise<number | undefined> {
    await this.discover(signal).catch(() => undefined);
    return modelInfo(this.baseURL, model)?.contextLength;
  }

  /** The slots the server reports (llama.cpp's `/props`), asked once per server; never fails. */
  serverSlots(signal?: AbortSignal): Promise<number | undefined> {
    const slots = this.slots;
    return slots
      ? slots(this.baseURL, this.apiKey !== DEFAULT_KEY ? this.apiKey : undefined, signal)
      : Promise.resolve(undefined);
  }

  /** Asks the server's model list once per server (see `discover`), never failing the call. */
  private discover(signal: AbortSignal): Promise<void> {
    const mode = this.discoverMode;
    const listModels = this.listModels;
    if (!listModels || mode === 'never' || (mode === 'remote' && isLoopback(this.baseURL))) return Promise.resolve();
    if (serverListed(this.baseURL)) return Promise.resolve();
    const pending = askServerOnce(this.baseURL, async () => {
      await listModels(this.baseURL, {
        timeoutMs: DISCOVER_TIMEOUT_MS,
        ...(this.apiKey !== DEFAULT_KEY ? { apiKey: this.apiKey } : {}),
      });
    });
    return untilAborted(pending, signal);
  }

  private stallError(): ProviderError {
    return new ProviderError(
      `the model server at ${this.baseURL} stopped sending mid-reply (nothing for ${seconds(this.timeoutMs)})`,
      'server',
    );
  }
}

/** A tool step of the turn as OpenAI's chat completions API takes it. */
function openAiTurn(t: ToolTurn): OpenAI.ChatCompletionMessageParam {
  if (t.kind === 'result') return { role: 'tool', tool_call_id: t.callId, content: t.text };
  return {
    role: 'assistant',
    content: t.text || null,
    // Arguments past the cap are never sent back in full.
    tool_calls: t.calls.map(echoed).map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    })),
  };
}
