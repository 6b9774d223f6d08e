/**
 * The one place that decides which request parameters an OpenAI-compatible server honours for a
 * model: the token cap's name, whether a temperature may be sent, and how a JSON reply is asked
 * for. Known from the model's name at the start (OpenAI's reasoning models), from the server's
 * `GET /v1/models` list where it says (OpenRouter's `supported_parameters`, vLLM's
 * `max_model_len`), and learnt from a 400 that names the refused parameter: such a refusal is
 * retried once with the adapted parameter and remembered for that server and model for the
 * daemon's life, so it happens at most once per server, model and parameter.
 *
 * Evidence for the refusals read here (exact texts; see test/fakes/openaiServer.ts personalities):
 * - OpenAI, reasoning models (o1/o3/o4, gpt-5 family): HTTP 400 `{"error":{"message":"Unsupported
 *   parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens'
 *   instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`
 *   (github.com/griptape-ai/ComfyUI-Griptape/issues/312, fish2018/YPrompt/issues/26) and
 *   `"Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1)
 *   value is supported."`, param `temperature`, code `unsupported_value`
 *   (github.com/gabrii/Cursor-Azure-GPT-5/issues/33, holoviz/lumen/pull/1087).
 * - LM Studio: HTTP 400 `{"error":"'response_format.type' must be 'json_schema' or 'text'"}` for
 *   `json_object` (the error is a bare string; github.com/LoadShine/tada/issues/16,
 *   lmstudio-ai/lmstudio-bug-tracker#189 and #307).
 * - Ollama silently ignores `max_completion_tokens` (no 400, reply uncapped: ollama/ollama#7125),
 *   so everything not known to need it gets `max_tokens`.
 *
 * Structured output starts as `json_object`, the widest supported: OpenAI, Ollama, vLLM,
 * OpenRouter (its API reference lists both modes) and DeepSeek (whose JSON Output guide offers
 * only `json_object`). LM Studio refuses it and is switched to `json_schema` (`strict: false`, so
 * a schema OpenAI's strict mode would reject still passes); OpenAI refuses `json_object` when no
 * message says "json", and is switched the same way; where a schema is refused too, no JSON mode
 * at all: the parsers read JSON out of prose.
 */
import type { ModelInfo } from '@roundtable/protocol/modelList';

/** The name under which the reply's token cap is sent. */
export type TokenParam = 'max_tokens' | 'max_completion_tokens';

/** How a JSON reply is asked for: OpenAI's JSON mode, a JSON schema, or not at all (read from prose). */
export type JsonMode = 'json_object' | 'json_schema' | 'none';

/** The parameters one call sends. */
export interface CallParams {
  tokenParam: TokenParam;
  /** False where only the default temperature is accepted: none is sent then. */
  temperature: boolean;
  json: JsonMode;
}

const DEFAULTS: CallParams = { tokenParam: 'max_tokens', temperature: true, json: 'json_object' };

/** The model's own name without a gateway prefix (`openai/gpt-5` → `gpt-5`) or an Ollama tag. */
function bareName(model: string): string {
  const last = model.trim().toLowerCase().split('/').pop() ?? '';
  return last.replace(/:[^:]*$/, '');
}

/**
 * OpenAI's reasoning models (o1, o3, o4 series and the gpt-5 family, also behind a gateway
 * prefix): they take `max_completion_tokens` and only the default temperature.
 */
export function isOpenAIReasoningModel(model: string): boolean {
  const name = bareName(model);
  return /^o\d+(?:-|$)/.test(name) || /^gpt-5(?:[.-]|$)/.test(name);
}

/**
 * Whether a model thinks before it answers, by its name: it needs room to think (a thinking
 * allowance on top of its reply cap) and its thinking is read apart from its reply. OpenAI's
 * o-series and gpt-5, DeepSeek-R1 / deepseek-reasoner and its distills, QwQ, Qwen3 (the hybrid
 * and `-thinking` models, not `-instruct`/`-coder`), gpt-oss, Magistral, Phi-4-reasoning and any
 * `*-reasoning` / `*-thinking` model, Gemini 2.5+, Grok 3 mini / Grok 4.
 */
export function isReasoningModel(model: string): boolean {
  if (isOpenAIReasoningModel(model)) return true;
  const full = model.trim().toLowerCase();
  const name = bareName(model);
  if (/deepseek-r1|deepseek-reasoner|r1-distill/.test(full)) return true;
  if (/(?:^|[^a-z])qwq/.test(name)) return true;
  if (/qwen3/.test(name)) return /thinking/.test(name) || !/instruct|coder/.test(name);
  if (/gpt-oss/.test(name) || /magistral/.test(name)) return true;
  if (/(?:^|[-_.])(?:reasoning|reasoner|thinking)(?:$|[-_.])/.test(name)) return true;
  if (/^gemini-(?:2\.5|[3-9])/.test(name)) return true;
  return /^grok-(?:3-mini|[4-9])/.test(name);
}

/** A server's base URL as the daemon calls it and knows it by: trimmed, with no trailing slash. */
export function normalizeBaseURL(baseURL: string): string {
  return baseURL.trim().replace(/\/+$/, '');
}

const key = (baseURL: string, model: string) => `${normalizeBaseURL(baseURL)}\u0000${model}`;

/** What was learnt from refusals, per (server, model), for the daemon's life. */
const learnt = new Map<string, Partial<CallParams>>();
/** What each server's model list said, per server, then per model id. */
const listed = new Map<string, Map<string, ModelInfo>>();

/** A server's model list being asked by a provider, or asked (once per server for the daemon's life). */
const asking = new Map<string, Promise<void>>();

/** Runs `ask` for this server unless it already ran (or runs): at most one GET per server. */
export function askServerOnce(baseURL: string, ask: () => Promise<void>): Promise<void> {
  const k = normalizeBaseURL(baseURL);
  let p = asking.get(k);
  if (!p) {
    p = ask().catch(() => undefined);
    asking.set(k, p);
  }
  return p;
}

/** Records a server's model list (called by `listModels` whenever the daemon lists models). */
export function noteServerModels(baseURL: string, models: readonly ModelInfo[]): void {
  listed.set(normalizeBaseURL(baseURL), new Map(models.map((m) => [m.id, m])));
}

/** Whether this server's model list is known (the provider asks for it at most once). */
export function serverListed(baseURL: string): boolean {
  return listed.has(normalizeBaseURL(baseURL));
}

/** What the server's list says about the model, if it was listed. */
export function modelInfo(baseURL: string, model: string): ModelInfo | undefined {
  return listed.get(normalizeBaseURL(baseURL))?.get(model);
}

/** The parameters to send to this server for this model now. */
export function paramsFor(baseURL: string, model: string): CallParams {
  const p: CallParams = { ...DEFAULTS };
  if (isOpenAIReasoningModel(model)) {
    p.tokenParam = 'max_completion_tokens';
    p.temperature = false;
  }
  const sp = modelInfo(baseURL, model)?.supportedParameters;
  if (sp && sp.length > 0) {
    const has = (s: string) => sp.includes(s);
    if (!has('temperature')) p.temperature = false;
    if (has('max_completion_tokens') && !has('max_tokens')) p.tokenParam = 'max_completion_tokens';
    else if (has('max_tokens') && !has('max_completion_tokens')) p.tokenParam = 'max_tokens';
    p.json = has('structured_outputs') ? 'json_schema' : has('response_format') ? 'json_object' : 'none';
  }
  return { ...p, ...learnt.get(key(baseURL, model)) };
}

/** The parameter a refusal was about, and the value that replaces the refused one. */
export interface Adaptation {
  param: 'token_param' | 'temperature' | 'json';
  /** Only what changed (what `remember` keeps). */
  change: Partial<CallParams>;
  params: CallParams;
}

/** Keeps an adaptation for this server and model for the daemon's life. */
export function remember(baseURL: string, model: string, a: Adaptation): void {
  const k = key(baseURL, model);
  learnt.set(k, { ...learnt.get(k), ...a.change });
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/**
 * Reads a 400 refusal: when it names a parameter this profile can change, the adapted
 * parameters (`remember` keeps them once the retry is sent); otherwise null. `error` is the
 * error object of the body (`{message, param, code}`) or the bare string some servers send.
 */
export function adaptToRefusal(
  baseURL: string,
  model: string,
  current: CallParams,
  status: number | undefined,
  error: unknown,
): Adaptation | null {
  if (status !== 400 && status !== 422) return null;
  const rec = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const message = typeof error === 'string' ? error : text(rec.message);
  const param = text(rec.param);
  const m = message.toLowerCase();
  const next = (param2: Adaptation['param'], change: Partial<CallParams>): Adaptation => ({
    param: param2,
    change,
    params: { ...current, ...change },
  });
  const names = (p: string) => param === p || m.includes(`'${p}'`) || m.includes(`"${p}"`) || m.includes(`\`${p}\``);
  // A refusal of the parameter itself, not of its value being too large for the context
  // (vLLM: "'max_tokens' or 'max_completion_tokens' is too large: … maximum context length …").
  const unsupported =
    /unsupported|not supported|does not support|not allowed|not permitted|extra inputs|unrecognized|unknown (?:parameter|field|argument)/.test(
      m,
    ) && !/too large|context length|maximum context/.test(m);
  // OpenAI's reasoning models: "Unsupported parameter: 'max_tokens' … Use 'max_completion_tokens' instead."
  if (current.tokenParam === 'max_tokens' && names('max_tokens') && unsupported)
    return next('token_param', { tokenParam: 'max_completion_tokens' });
  // The other way round: a server that does not know the newer name ("Extra inputs are not permitted").
  if (current.tokenParam === 'max_completion_tokens' && names('max_completion_tokens') && unsupported)
    return next('token_param', { tokenParam: 'max_tokens' });
  // "Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1) value is supported."
  if (current.temperature && names('temperature') && (unsupported || /only the default/.test(m)))
    return next('temperature', { temperature: false });
  if (
    current.json !== 'none' &&
    (param.startsWith('response_format') || /response_format|json_schema|json_object|word 'json'/.test(m))
  ) {
    // LM Studio: "'response_format.type' must be 'json_schema' or 'text'"; OpenAI's JSON mode
    // wants the word "json" in the messages, which a schema does not.
    if (current.json === 'json_object' && (/json_schema/.test(m) || /word 'json'/.test(m)))
      return next('json', { json: 'json_schema' });
    return next('json', { json: 'none' });
  }
  return null;
}

/** Forgets everything learnt and listed (tests only). */
export function resetServerProfiles(): void {
  learnt.clear();
  listed.clear();
  asking.clear();
}
