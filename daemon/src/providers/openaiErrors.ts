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

/** The longest wait before a retry a server may ask for; past it the call fails at once and says how long it asked. */
export const RETRY_AFTER_CAP_MS = 60_000;

/** A header value longer than this is not a number of seconds nor a date: ignored. */
const RETRY_HEADER_MAX = 64;

/**
 * The wait a failed answer asks for before a retry, in ms, or undefined when it asks none that
 * can be read (then the usual backoff applies). Read as the official SDK reads it (openai-node
 * `client.ts` `retryRequest`): `retry-after-ms` first (OpenAI's, milliseconds), then `Retry-After`
 * as delay-seconds or an HTTP-date (RFC 9110 §10.2.3: `Retry-After: 120`,
 * `Retry-After: Fri, 31 Dec 1999 23:59:59 GMT`). Validated here, where it enters: a negative,
 * NaN, empty or overlong value is ignored, a date in the past means now, a huge one stays huge
 * (the caller compares it with `RETRY_AFTER_CAP_MS`).
 */
export function retryAfterOf(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms')?.trim();
  if (ms && ms.length <= RETRY_HEADER_MAX && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  const after = headers?.get('retry-after')?.trim();
  if (!after || after.length > RETRY_HEADER_MAX) return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Number(after) * 1000;
  // A date names a day of the week or a month in letters; a bare "-1" or "1e9" is not one.
  if (!/[a-z]{3}/i.test(after)) return undefined;
  const at = Date.parse(after);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/** A wait as a person reads it: "45 s", "12 min", "5 h", "11 days". */
export function waitText(ms: number): string {
  const s = ms / 1000;
  if (!Number.isFinite(s)) return 'for ever';
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 120 * 60) return `${Math.floor(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86_400).toLocaleString('en-US')} days`;
}

/** The backoff before retry `attempt` (0-based) when the server asks no wait: 0.5 s doubling to 8 s, less up to 25% jitter (as the SDK). */
function backoffMs(attempt: number): number {
  return Math.min(500 * 2 ** attempt, 8_000) * (1 - Math.random() * 0.25);
}

/** Whether a failed request is worth another attempt (the statuses and errors the SDK retries). */
function retryable(e: unknown): boolean {
  if (e instanceof OpenAI.APIUserAbortError) return false;
  if (e instanceof OpenAI.APIConnectionError) return true;
  if (!(e instanceof OpenAI.APIError) || typeof e.status !== 'number') return false;
  const should = (e.headers as Headers | undefined)?.get('x-should-retry');
  if (should === 'true' || should === 'false') return should === 'true';
  return e.status === 408 || e.status === 409 || e.status === 429 || e.status >= 500;
}

/**
 * How long to wait before retrying a request that failed with `e` (attempt `attempt`, 0-based,
 * of `maxRetries`), or undefined when it is not retried. A server asking more than
 * `RETRY_AFTER_CAP_MS` fails the call at once, in one line that says how long it asked.
 */
export function retryWait(e: unknown, attempt: number, maxRetries: number, baseURL: string): number | undefined {
  if (attempt >= maxRetries || !retryable(e)) return undefined;
  const headers = e instanceof OpenAI.APIError ? (e.headers as Headers | undefined) : undefined;
  const asked = retryAfterOf(headers);
  if (asked !== undefined && asked > RETRY_AFTER_CAP_MS) {
    const status = e instanceof OpenAI.APIError ? (e.status as number | undefined) : undefined;
    const what = status === 429 ? 'rate limited' : `unavailable (${status ?? 'error'})`;
    throw new ProviderError(
      `${what}: the model server at ${baseURL} asks to wait ${waitText(asked)} before a retry, more than the ${waitText(RETRY_AFTER_CAP_MS)} Roundtable waits; try again later`,
      status === 429 ? 'rate_limited' : 'server',
    );
  }
  return asked ?? backoffMs(attempt);
}

/**
 * `p`, or a rejection with `why()` as soon as `signal` aborts (even while the SDK sleeps, or a
 * provider never settles); what `p` brings later is dropped.
 */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal, why: () => Error = aborted): Promise<T> {
  p.catch(() => undefined);
  if (signal.aborted) return Promise.reject(why());
  let onAbort: () => void = () => undefined;
  const stop = new Promise<never>((_, reject) => {
    onAbort = () => reject(why());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([p, stop]).finally(() => signal.removeEventListener('abort', onAbort));
}

/** Waits `ms` before a retry; rejects as aborted at once when `signal` aborts, leaving no timer behind. */
export function waitToRetry(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
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
