/** Whether an OpenAI-compatible server answers at all, asked once before a command's work starts. */
import { collapseWhitespace, isRecord } from '@roundtable/protocol';
import { invalidURL, redact, rootCause, seconds } from './openaiErrors';
import { normalizeBaseURL } from './serverProfile';
import { ProviderError } from './types';

/**
 * Fails fast, with one clear line, when the server cannot be reached at all. Any HTTP answer
 * (even 404 from a server without /models) counts as reachable; 401/403 means a bad key.
 */
export async function probeOpenAIServer(baseURL: string, apiKey?: string, timeoutMs = 5_000): Promise<void> {
  const base = normalizeBaseURL(baseURL);
  const bad = invalidURL(base);
  if (bad) throw bad;
  let res: Response;
  try {
    res = await fetch(`${base}/models`, {
      headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    const timedOut = isRecord(e) && (e.name === 'TimeoutError' || e.name === 'AbortError');
    const cause = timedOut
      ? `no answer within ${seconds(timeoutMs)}`
      : collapseWhitespace(redact(rootCause(e), apiKey));
    throw new ProviderError(`cannot reach the model server at ${base}: ${cause}. Is it running?`, 'unreachable');
  }
  await res.body?.cancel().catch(() => undefined);
  if (res.status === 401 || res.status === 403) {
    throw new ProviderError(
      `the model server at ${base} rejected the API key (${res.status}); set a valid key`,
      'auth',
    );
  }
}
