/**
 * Any OpenAI-compatible server (OpenAI, Ollama, LM Studio, vLLM) through the official `openai`
 * package: streaming with `stream_options.include_usage`, explicit timeout and retries (the SDK
 * retries 429 and 5xx itself, honouring Retry-After), abort on cut. The API key lives in memory
 * only and never appears in an error message.
 */
import OpenAI from 'openai';
import { countPromptTokens, countTokens } from './tokens';
import { ProviderError, type ChatProvider, type ChatRequest, type ChatResult } from './types';

export interface OpenAIProviderOptions {
  baseURL: string;
  apiKey?: string;
  /** Per request, in ms (default 60,000). */
  timeoutMs?: number;
  /** Retries on 408/409/429/5xx and connection errors (default 2). */
  maxRetries?: number;
}

function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Turns whatever the SDK threw into a ProviderError that says what to do. */
export function toProviderError(e: unknown, baseURL: string, signal?: AbortSignal): ProviderError {
  if (signal?.aborted || e instanceof OpenAI.APIUserAbortError)
    return new ProviderError('the call was aborted', 'aborted');
  if (e instanceof OpenAI.APIConnectionTimeoutError) {
    return new ProviderError(`the model server at ${baseURL} did not answer in time`, 'unreachable');
  }
  if (e instanceof OpenAI.APIConnectionError) {
    const inner = e.cause as NodeJS.ErrnoException | undefined;
    const cause: string = inner?.code ?? inner?.message ?? e.message;
    return new ProviderError(`cannot reach the model server at ${baseURL}: ${cause}. Is it running?`, 'unreachable');
  }
  if (e instanceof OpenAI.APIError) {
    const status: number = typeof e.status === 'number' ? e.status : 0;
    const detail = clip(e.message.replace(/sk-[A-Za-z0-9_-]{8,}/g, 'sk-…'));
    if (status === 401 || status === 403) {
      return new ProviderError(
        `the model server at ${baseURL} rejected the API key (${status}); set a valid key`,
        'auth',
      );
    }
    if (status === 429)
      return new ProviderError(
        `the model server at ${baseURL} is rate limiting us (429) after retries: ${detail}`,
        'rate_limited',
      );
    if (status >= 500)
      return new ProviderError(`the model server at ${baseURL} failed (${status}) after retries: ${detail}`, 'server');
    return new ProviderError(
      `the model server at ${baseURL} refused the request (${status}): ${detail}`,
      'bad_request',
    );
  }
  const err = e as Error;
  return new ProviderError(`the call to ${baseURL} failed: ${clip(err?.message ?? String(e))}`, 'server');
}

export class OpenAIProvider implements ChatProvider {
  readonly id: string;
  private readonly client: OpenAI;
  private readonly baseURL: string;

  constructor(opts: OpenAIProviderOptions) {
    this.baseURL = opts.baseURL.replace(/\/+$/, '');
    this.id = `openai@${this.baseURL}`;
    this.client = new OpenAI({
      baseURL: this.baseURL,
      // Local servers ignore the key, but the SDK insists on one.
      apiKey: opts.apiKey || 'not-needed',
      timeout: opts.timeoutMs ?? 60_000,
      maxRetries: opts.maxRetries ?? 2,
    });
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    let text = '';
    let usage: ChatResult['usage'] | undefined;
    try {
      const stream = await this.client.chat.completions.create(
        {
          model: req.model,
          messages: req.messages,
          max_tokens: req.maxTokens,
          stream: true,
          stream_options: { include_usage: true },
          ...(req.json ? { response_format: { type: 'json_object' as const } } : {}),
        },
        { signal: req.signal },
      );
      for await (const chunk of stream) {
        const piece = chunk.choices[0]?.delta?.content;
        if (piece) {
          text += piece;
          req.onDelta?.(piece);
        }
        if (chunk.usage) {
          usage = {
            promptTokens: chunk.usage.prompt_tokens,
            completionTokens: chunk.usage.completion_tokens,
            source: 'provider',
          };
        }
      }
    } catch (e) {
      throw toProviderError(e, this.baseURL, req.signal);
    }
    // The SDK ends the iteration quietly on abort: a cut reply must not pass for a complete one.
    if (req.signal.aborted) throw new ProviderError('the call was aborted', 'aborted');
    return {
      text,
      // Servers that ignore include_usage (some local ones) are counted with the tokenizer.
      usage: usage ?? {
        promptTokens: countPromptTokens(req.messages),
        completionTokens: countTokens(text),
        source: 'estimate',
      },
    };
  }
}

/**
 * Fails fast, with one clear line, when the server cannot be reached at all. Any HTTP answer
 * (even 404 from a server without /models) counts as reachable; 401/403 means a bad key.
 */
export async function probeOpenAIServer(baseURL: string, apiKey?: string, timeoutMs = 5_000): Promise<void> {
  const url = `${baseURL.replace(/\/+$/, '')}/models`;
  let res: Response;
  try {
    res = await fetch(url, {
      headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    const err = e as Error & { cause?: NodeJS.ErrnoException };
    const cause =
      err.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : (err.cause?.code ?? err.message);
    throw new ProviderError(`cannot reach the model server at ${baseURL}: ${cause}. Is it running?`, 'unreachable');
  }
  await res.body?.cancel().catch(() => undefined);
  if (res.status === 401 || res.status === 403) {
    throw new ProviderError(
      `the model server at ${baseURL} rejected the API key (${res.status}); set a valid key`,
      'auth',
    );
  }
}
