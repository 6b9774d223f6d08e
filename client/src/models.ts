/**
 * What an OpenAI-compatible server offers: its `GET /v1/models` list, asked with a short timeout,
 * and a probe of the usual local servers (Ollama, LM Studio, vLLM). One definition for the CLI's
 * `--provider auto`, the preflight and the extension's model picker. Never logs the key. What a
 * list says about its models goes to `onInfos` (the daemon's server profile keeps it).
 */
import { collapseWhitespace, jsonNestsDeeperThan } from '@roundtable/protocol';
import type { ModelInfo, ModelList } from '@roundtable/protocol/modelList';

/** The local servers probed when nothing is configured, in this order. */
export const LOCAL_SERVERS: readonly { name: string; baseUrl: string }[] = [
  { name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1' },
  { name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1' },
  { name: 'vLLM', baseUrl: 'http://127.0.0.1:8000/v1' },
];

/** Most bytes of a model list read; past it the list is not read at all (one line says so). */
export const MODEL_LIST_MAX_BYTES = 4 * 1024 * 1024;

/** Most models read from one list (OpenRouter lists about 500). */
export const MODEL_LIST_MAX_ENTRIES = 10_000;

/** Largest context window believed, in tokens (the largest served today are 10M); above it the figure is ignored. */
export const MAX_CONTEXT_TOKENS = 100_000_000;

/** Most `supported_parameters` kept per model, and their longest name. */
const MAX_PARAMETERS = 64;
const MAX_PARAMETER_CHARS = 64;

/** Longest wait for a local server's model list while probing. */
export const PROBE_TIMEOUT_MS = 300;

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
  let text: string;
  try {
    const read = await readCapped(res, MODEL_LIST_MAX_BYTES);
    if (read === undefined) {
      return {
        ok: false,
        kind: 'bad_response',
        error: `${baseUrl}/models sent more than ${MODEL_LIST_MAX_BYTES / 1024 / 1024} MB; its list was not read`,
      };
    }
    text = read;
  } catch (e) {
    const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
    const why = timedOut ? `did not send its model list within ${timeoutMs} ms` : 'broke off its model list';
    return { ok: false, kind: timedOut ? 'unreachable' : 'bad_response', error: `${baseUrl}/models ${why}` };
  }
  const infos = modelInfosOf(text);
  if (!infos) return { ok: false, kind: 'bad_response', error: `${baseUrl}/models did not answer with a model list` };
  // What the list says a model supports (OpenRouter's supported_parameters, vLLM's
  // max_model_len) feeds the parameters the provider sends to this server.
  o.onInfos?.(infos);
  return { ok: true, models: infos.map((m) => m.id) };
}

/**
 * A body read to at most `max` bytes, or undefined past it (the rest is not read: the stream is
 * cancelled). A 150 MB list took the process to 1.2 GB when read whole.
 */
async function readCapped(res: Response, max: number): Promise<string | undefined> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel().catch(() => undefined);
    return undefined;
  }
  const reader = res.body?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = (await reader.read()) as { done: boolean; value: Uint8Array };
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > max) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** Deeper than this, a body is not a model list (OpenAI's is 3 levels; OpenRouter's about 5). */
const MAX_NESTING = 32;

/**
 * The entries of a `GET /v1/models` body (`{"object": "list", "data": [...]}`), or undefined when
 * it is not one: not JSON, nested past `MAX_NESTING`, a bare array, a string. At most
 * `MODEL_LIST_MAX_ENTRIES` entries are read.
 */
function modelInfosOf(text: string): ModelInfo[] | undefined {
  if (jsonNestsDeeperThan(text, MAX_NESTING)) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const data = (body as { data?: unknown }).data;
  const entries: unknown[] = Array.isArray(data) ? data.slice(0, MODEL_LIST_MAX_ENTRIES) : [];
  return entries.map(parseModelInfo).filter((m): m is ModelInfo => m !== undefined);
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

/** Reads one entry of a `GET /v1/models` list into what the profile uses. */
export function parseModelInfo(m: unknown): ModelInfo | undefined {
  if (typeof m !== 'object' || m === null) return undefined;
  const r = m as Record<string, unknown>;
  const id = r.id;
  if (typeof id !== 'string' || id.length === 0 || id.length > 200) return undefined;
  const info: ModelInfo = { id };
  if (Array.isArray(r.supported_parameters))
    info.supportedParameters = r.supported_parameters
      .slice(0, MAX_PARAMETERS)
      .filter((s): s is string => typeof s === 'string' && s.length > 0 && s.length <= MAX_PARAMETER_CHARS);
  // A whole number of tokens within the cap, else ignored (1e300, -1, 4096.5, "32768", NaN).
  const ctx = [r.max_model_len, r.context_length, r.max_context_length, r.loaded_context_length].find(
    (n): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n > 0 && n <= MAX_CONTEXT_TOKENS,
  );
  if (ctx !== undefined) info.contextLength = ctx;
  return info;
}

/** Most bytes of a `/props` answer read (llama.cpp's carries the chat template: tens of KB). */
export const PROPS_MAX_BYTES = 1024 * 1024;

/** Most slots believed; above it the figure is ignored. */
export const MAX_SERVER_SLOTS = 4_096;

/**
 * How many requests the server behind `baseUrl` runs at once, where it says: llama.cpp's
 * `GET /props` (at the server's root, beside `/v1`) answers `total_slots`, "the total number of
 * slots for process requests (defined by `--parallel` option)" (ggml-org/llama.cpp
 * tools/server/README.md at 00dc8057ab28c9cb4c79a6dd6dfce07fe779f63b). Undefined for any other
 * answer (a 404 from a server without it, a body that is no object, a figure that is no whole
 * number from 1 to `MAX_SERVER_SLOTS`), never an error.
 */
export async function readServerSlots(
  baseUrl: string,
  o: { apiKey?: string; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<number | undefined> {
  const root = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const signals = [AbortSignal.timeout(o.timeoutMs ?? 2_000), ...(o.signal ? [o.signal] : [])];
  try {
    const res = await fetch(`${root}/props`, {
      headers: o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {},
      signal: AbortSignal.any(signals),
    });
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      return undefined;
    }
    const text = await readCapped(res, PROPS_MAX_BYTES);
    if (text === undefined || jsonNestsDeeperThan(text, MAX_NESTING)) return undefined;
    const body: unknown = JSON.parse(text);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
    const slots = (body as { total_slots?: unknown }).total_slots;
    return typeof slots === 'number' && Number.isSafeInteger(slots) && slots >= 1 && slots <= MAX_SERVER_SLOTS
      ? slots
      : undefined;
  } catch {
    return undefined;
  }
}
