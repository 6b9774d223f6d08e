/**
 * What an OpenAI-compatible server offers: its `GET /v1/models` list, asked with a short timeout,
 * and a probe of the usual local servers (Ollama, LM Studio, vLLM). One definition for the CLI's
 * `--provider auto`, the preflight and the extension's model picker. Never logs the key. What a
 * list says about its models goes to `onInfos` (the daemon's server profile keeps it).
 */
import { collapseWhitespace } from '@roundtable/protocol';

/** The local servers probed when nothing is configured, in this order. */
export const LOCAL_SERVERS: readonly { name: string; baseUrl: string }[] = [
  { name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1' },
  { name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1' },
  { name: 'vLLM', baseUrl: 'http://127.0.0.1:8000/v1' },
];

/** Longest wait for a local server's model list while probing. */
export const PROBE_TIMEOUT_MS = 300;

export type ModelList =
  { ok: true; models: string[] } | { ok: false; kind: 'unreachable' | 'auth' | 'bad_response'; error: string };

export interface ListModelsOptions {
  apiKey?: string;
  /** Default 5,000 ms; probes use `PROBE_TIMEOUT_MS`. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** What the list says about each model (supported parameters, context length). */
  onInfos?: (infos: ModelInfo[]) => void;
}

function modelsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/models`;
}

/** The model ids a server lists, or why it could not be asked (one line, without the key). */
export async function listModels(baseUrl: string, o: ListModelsOptions = {}): Promise<ModelList> {
  const timeoutMs = o.timeoutMs ?? 5_000;
  const signals = [AbortSignal.timeout(timeoutMs), ...(o.signal ? [o.signal] : [])];
  let res: Response;
  try {
    res = await fetch(modelsUrl(baseUrl), {
      headers: o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {},
      signal: AbortSignal.any(signals),
    });
  } catch (e) {
    const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
    const cause =
      e instanceof Error && e.cause instanceof Error ? e.cause.message : e instanceof Error ? e.message : '';
    return {
      ok: false,
      kind: 'unreachable',
      error: timedOut
        ? `${baseUrl} did not answer within ${timeoutMs} ms`
        : `${baseUrl} is unreachable (${collapseWhitespace(cause).slice(0, 120)})`,
    };
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    return { ok: false, kind: 'auth', error: `${baseUrl} refused the API key (HTTP ${res.status})` };
  }
  if (!res.ok) {
    await res.body?.cancel();
    return { ok: false, kind: 'bad_response', error: `${baseUrl}/models answered HTTP ${res.status}` };
  }
  try {
    const body = (await res.json()) as { data?: unknown };
    const data: unknown[] = Array.isArray(body.data) ? body.data : [];
    const infos = data.map(parseModelInfo).filter((m): m is ModelInfo => m !== undefined);
    // What the list says a model supports (OpenRouter's supported_parameters, vLLM's
    // max_model_len) feeds the parameters the provider sends to this server.
    o.onInfos?.(infos);
    return { ok: true, models: infos.map((m) => m.id) };
  } catch {
    return { ok: false, kind: 'bad_response', error: `${baseUrl}/models did not answer with a model list` };
  }
}

/** The local servers that answer within `timeoutMs` with at least one model, in `LOCAL_SERVERS` order. */
export async function probeLocalServers(
  o: {
    timeoutMs?: number;
    servers?: readonly { name: string; baseUrl: string }[];
    onInfos?: (baseUrl: string) => (infos: ModelInfo[]) => void;
  } = {},
): Promise<{ name: string; baseUrl: string; models: string[] }[]> {
  const servers = o.servers ?? LOCAL_SERVERS;
  const lists = await Promise.all(
    servers.map((s) =>
      listModels(s.baseUrl, {
        timeoutMs: o.timeoutMs ?? PROBE_TIMEOUT_MS,
        ...(o.onInfos ? { onInfos: o.onInfos(s.baseUrl) } : {}),
      }),
    ),
  );
  return servers.flatMap((s, i) => {
    const l = lists[i];
    return l?.ok && l.models.length > 0 ? [{ ...s, models: l.models }] : [];
  });
}

/** What a server's `GET /v1/models` says about one model, where it says anything. */
export interface ModelInfo {
  id: string;
  /** OpenRouter-style `supported_parameters` (e.g. `max_tokens`, `temperature`, `response_format`, `structured_outputs`). */
  supportedParameters?: string[];
  /** Context window in tokens: vLLM's `max_model_len`, OpenRouter's `context_length`, LM Studio's `max_context_length`. */
  contextLength?: number;
}

/** Reads one entry of a `GET /v1/models` list into what the profile uses. */
export function parseModelInfo(m: unknown): ModelInfo | undefined {
  if (typeof m !== 'object' || m === null) return undefined;
  const r = m as Record<string, unknown>;
  const id = r.id;
  if (typeof id !== 'string' || id.length === 0 || id.length > 200) return undefined;
  const info: ModelInfo = { id };
  if (Array.isArray(r.supported_parameters))
    info.supportedParameters = r.supported_parameters.filter((s): s is string => typeof s === 'string');
  const ctx = [r.max_model_len, r.context_length, r.max_context_length, r.loaded_context_length].find(
    (n): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0,
  );
  if (ctx !== undefined) info.contextLength = Math.floor(ctx);
  return info;
}
