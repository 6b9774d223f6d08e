/**
 * What goes wrong calling an OpenAI-compatible server, said so a person knows what to do: every
 * SDK error becomes a ProviderError with one line naming the server, what happened, and the fix;
 * keys are redacted from anything taken from the server.
 */
import OpenAI from 'openai';
import { collapseWhitespace, isRecord } from '@roundtable/protocol';
import { ProviderError } from './types';

/** What `toProviderError` needs to know about the call besides the error itself. */
export interface ErrorContext {
  /** Redacted from any text taken from the server. */
  apiKey?: string;
  maxRetries?: number;
  timeoutMs?: number;
  /** The response had started streaming when the error happened. */
  midStream?: boolean;
}

export const DEFAULT_KEY = 'not-needed';

function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function redact(text: string, apiKey?: string): string {
  let out = text;
  if (apiKey && apiKey !== DEFAULT_KEY && apiKey.length >= 4) out = out.split(apiKey).join('***');
  return out.replace(/\bsk-[A-Za-z0-9_*-]{6,}/g, 'sk-***').replace(/(Bearer\s+)\S+/gi, '$1***');
}

export function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/**
 * The most telling reason in an error's `cause` chain: the innermost message (`connect
 * ECONNREFUSED 127.0.0.1:1234`, `getaddrinfo ENOTFOUND host`), with its code when the message
 * lacks it.
 */
export function rootCause(e: unknown): string {
  let cur: unknown = e;
  let message = '';
  let code = '';
  for (let depth = 0; depth < 8 && isRecord(cur); depth++) {
    if (typeof cur.message === 'string' && cur.message) message = cur.message;
    if (typeof cur.code === 'string' && cur.code) code = cur.code;
    // AggregateError (happy eyeballs: one error per address) keeps its reasons in `errors`.
    const next: unknown = cur.cause ?? (Array.isArray(cur.errors) ? cur.errors[0] : undefined);
    if (next === cur) break;
    cur = next;
  }
  if (!message) return code || String(e);
  return code && !message.includes(code) ? `${code} (${message})` : message;
}

/** What the server said about the failure, from its JSON error body when there is one. */
function serverDetail(body: unknown, message: string, apiKey?: string): string {
  let detail: string;
  if (isRecord(body) && typeof body.message === 'string') detail = body.message;
  else if (typeof body === 'string') detail = body;
  else detail = message.replace(/^\d{3}\s+/, '');
  return clip(collapseWhitespace(redact(detail, apiKey)));
}

export function aborted(): ProviderError {
  return new ProviderError('the call was aborted', 'aborted');
}

/** Turns whatever the SDK threw into a ProviderError that says what to do. */
export function toProviderError(
  e: unknown,
  baseURL: string,
  signal?: AbortSignal,
  ctx: ErrorContext = {},
): ProviderError {
  if (e instanceof ProviderError) return e;
  if (signal?.aborted || e instanceof OpenAI.APIUserAbortError) return aborted();
  const after = ctx.maxRetries ? ' after retries' : '';
  if (e instanceof OpenAI.APIConnectionTimeoutError) {
    const wait = ctx.timeoutMs !== undefined ? ` within ${seconds(ctx.timeoutMs)}` : ' in time';
    return new ProviderError(
      `the model server at ${baseURL} did not answer${wait}${after}. Is it running (or still loading the model)?`,
      'unreachable',
    );
  }
  if (e instanceof OpenAI.APIConnectionError) {
    const cause = collapseWhitespace(redact(rootCause(e.cause ?? e), ctx.apiKey));
    if (ctx.midStream) {
      return new ProviderError(`the model server at ${baseURL} broke off the reply: ${cause}`, 'server');
    }
    return new ProviderError(`cannot reach the model server at ${baseURL}: ${cause}. Is it running?`, 'unreachable');
  }
  if (e instanceof OpenAI.APIError) {
    const status: unknown = e.status;
    const detail = serverDetail(e.error, e.message, ctx.apiKey);
    if (typeof status !== 'number') {
      // An `error` event inside the stream.
      return new ProviderError(`the model server at ${baseURL} reported an error mid-reply: ${detail}`, 'server');
    }
    if (status === 401 || status === 403) {
      return new ProviderError(
        `the model server at ${baseURL} rejected the API key (${status}); set a valid key`,
        'auth',
      );
    }
    if (status === 429) {
      return new ProviderError(
        `the model server at ${baseURL} is still rate limiting (429)${after}: ${detail}. Wait a little and try again`,
        'rate_limited',
      );
    }
    if (status >= 500) {
      return new ProviderError(`the model server at ${baseURL} failed (${status})${after}: ${detail}`, 'server');
    }
    const hint = status === 404 ? ' (check the model name and the base URL)' : '';
    return new ProviderError(
      `the model server at ${baseURL} refused the request (${status})${hint}: ${detail}`,
      'bad_request',
    );
  }
  const cause = clip(collapseWhitespace(redact(rootCause(e), ctx.apiKey)));
  if (ctx.midStream) return new ProviderError(`the model server at ${baseURL} broke off the reply: ${cause}`, 'server');
  return new ProviderError(`the call to the model server at ${baseURL} failed: ${cause}`, 'server');
}

/** Null when `baseURL` is a usable http(s) URL, otherwise the error to report. */
export function invalidURL(baseURL: string): ProviderError | null {
  let ok: boolean;
  try {
    const u = new URL(baseURL);
    ok = u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    ok = false;
  }
  return ok
    ? null
    : new ProviderError(
        `the model server address "${baseURL}" is not an http(s) URL; use e.g. http://127.0.0.1:11434/v1`,
        'unreachable',
      );
}
