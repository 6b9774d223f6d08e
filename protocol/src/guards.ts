/**
 * Runtime validation. WebSocket frames and webview postMessage payloads are untrusted JSON:
 * every one is checked here for shape, method name and size before anything acts on it.
 * Each guard returns either the typed value or a message saying exactly what is wrong.
 */
import { DEFAULT_CONFIG, type MeetingConfig, type Participant } from './events';
import {
  DAEMON_METHODS,
  MEETING_PAGE_MAX,
  type DaemonMethod,
  type Envelope,
  type FromWebview,
  type ParamsOf,
  type RequestEnvelope,
  type StartMeetingParams,
} from './messages';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const fail = <T>(error: string): Checked<T> => ({ ok: false, error });

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Longest topic, post or persona we accept, in characters. */
export const MAX_TEXT_CHARS = 200_000;
export const MAX_PARTICIPANTS = 32;
export { NAME_PATTERN } from './names';
import { NAME_PATTERN, isReservedName, reservedNameError } from './names';

function str(v: unknown, field: string, opts: { min?: number; max?: number } = {}): Checked<string> {
  const min = opts.min ?? 0;
  const max = opts.max ?? MAX_TEXT_CHARS;
  if (typeof v !== 'string') return fail(`${field} must be a string`);
  if (v.trim().length < min) return fail(`${field} must not be empty`);
  if (v.length > max) return fail(`${field} is longer than ${max} characters`);
  return ok(v);
}

function int(v: unknown, field: string, min: number, max: number): Checked<number> {
  if (typeof v !== 'number' || !Number.isInteger(v)) return fail(`${field} must be an integer`);
  if (v < min || v > max) return fail(`${field} must be between ${min} and ${max}`);
  return ok(v);
}

export function checkParticipant(v: unknown, where = 'participant'): Checked<Participant> {
  if (!isRecord(v)) return fail(`${where} must be an object`);
  const name = str(v.name, `${where}.name`, { min: 1, max: 40 });
  if (!name.ok) return name;
  if (!NAME_PATTERN.test(name.value)) {
    return fail(`${where}.name "${name.value}" must start with a letter and use only letters, digits, - and _`);
  }
  if (v.role !== 'assistant' && v.role !== 'judge' && v.role !== 'worker') {
    return fail(`${where} "${name.value}": role must be assistant, judge or worker`);
  }
  if (v.provider !== 'scripted' && v.provider !== 'openai' && v.provider !== 'vscode-lm' && v.provider !== 'attached') {
    return fail(`${where} "${name.value}": provider must be scripted, openai, vscode-lm or attached`);
  }
  const model = str(v.model, `${where} "${name.value}".model`, { min: 1, max: 200 });
  if (!model.ok) return model;
  if (v.persona !== undefined) {
    const persona = str(v.persona, `${where} "${name.value}".persona`, { max: 20_000 });
    if (!persona.ok) return persona;
  }
  const p: Participant = { name: name.value, role: v.role, provider: v.provider, model: model.value };
  if (typeof v.persona === 'string') p.persona = v.persona;
  return ok(p);
}

/** A panel must have one assistant, at most one judge and at least two workers, all named uniquely. */
export function checkPanel(v: unknown): Checked<Participant[]> {
  if (!Array.isArray(v)) return fail('participants must be a list');
  if (v.length > MAX_PARTICIPANTS) return fail(`at most ${MAX_PARTICIPANTS} participants are allowed`);
  const out: Participant[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of v.entries()) {
    const p = checkParticipant(raw, `participants[${i}]`);
    if (!p.ok) return p;
    const key = p.value.name.toLowerCase();
    if (seen.has(key)) return fail(`participant name "${p.value.name}" is used twice`);
    if (isReservedName(key)) return fail(`participant name: ${reservedNameError(p.value.name)}`);
    seen.add(key);
    out.push(p.value);
  }
  const workers = out.filter((p) => p.role === 'worker').length;
  const assistants = out.filter((p) => p.role === 'assistant').length;
  const judges = out.filter((p) => p.role === 'judge').length;
  if (workers < 2) return fail(`a meeting needs at least 2 workers, got ${workers}`);
  if (assistants !== 1) return fail(`a meeting needs exactly 1 assistant, got ${assistants}`);
  if (judges > 1) return fail(`a meeting has at most 1 judge, got ${judges}`);
  return ok(out);
}

export function checkConfig(v: unknown): Checked<Partial<MeetingConfig>> {
  if (v === undefined) return ok({});
  if (!isRecord(v)) return fail('config must be an object');
  const out: Partial<MeetingConfig> = {};
  const known = Object.keys(DEFAULT_CONFIG);
  for (const key of Object.keys(v)) {
    if (!known.includes(key)) return fail(`config.${key} is not a known setting (known: ${known.join(', ')})`);
  }
  const ints: [keyof MeetingConfig, number, number][] = [
    ['maxRounds', 1, 100],
    ['tokenBudget', 1, 10_000_000],
    ['turnTimeoutMs', 1, 3_600_000],
    ['timeLimitMs', 1, 24 * 3_600_000],
    ['summaryMaxTokens', 16, 8_000],
    ['replyMaxTokens', 16, 32_000],
    ['seed', 0, 2 ** 31 - 1],
  ];
  for (const [key, min, max] of ints) {
    if (v[key] === undefined) continue;
    const c = int(v[key], `config.${key}`, min, max);
    if (!c.ok) return c;
    (out as Record<string, number>)[key] = c.value;
  }
  if (v.maxOptions !== undefined) {
    const c = int(v.maxOptions, 'config.maxOptions', 2, 20);
    if (!c.ok) return c;
    out.maxOptions = c.value;
  }
  if (v.challengeRounds !== undefined) {
    const c = int(v.challengeRounds, 'config.challengeRounds', 0, 5);
    if (!c.ok) return c;
    out.challengeRounds = c.value;
  }
  if (v.consensusThreshold !== undefined) {
    if (typeof v.consensusThreshold !== 'number' || !(v.consensusThreshold > 0 && v.consensusThreshold <= 1)) {
      return fail('config.consensusThreshold must be a number above 0 and at most 1');
    }
    out.consensusThreshold = v.consensusThreshold;
  }
  if (v.order !== undefined) {
    if (v.order !== 'parallel' && v.order !== 'sequential' && v.order !== 'shuffle') {
      return fail('config.order must be parallel, sequential or shuffle');
    }
    out.order = v.order;
  }
  return ok(out);
}

export function checkStartParams(v: unknown): Checked<StartMeetingParams> {
  if (!isRecord(v)) return fail('params must be an object');
  const topic = str(v.topic, 'topic', { min: 1, max: 20_000 });
  if (!topic.ok) return topic;
  if (v.mode !== 'roundtable' && v.mode !== 'consensus') return fail('mode must be roundtable or consensus');
  const panel = checkPanel(v.participants);
  if (!panel.ok) return panel;
  const config = checkConfig(v.config);
  if (!config.ok) return config;
  const out: StartMeetingParams = {
    topic: topic.value.trim(),
    mode: v.mode,
    participants: panel.value,
    config: config.value,
  };
  if (v.providers !== undefined) {
    if (!isRecord(v.providers)) return fail('providers must be an object');
    const providers: { baseURL?: string; script?: unknown } = {};
    if (v.providers.baseURL !== undefined) {
      if (
        typeof v.providers.baseURL !== 'string' ||
        !/^https?:\/\/\S+$/.test(v.providers.baseURL) ||
        v.providers.baseURL.length > 2000
      ) {
        return fail('providers.baseURL must be an http(s) URL');
      }
      providers.baseURL = v.providers.baseURL;
    }
    if (v.providers.script !== undefined) {
      if (!isRecord(v.providers.script)) return fail('providers.script must be an object');
      providers.script = v.providers.script;
    }
    out.providers = providers;
  }
  if (v.workspace !== undefined) {
    if (typeof v.workspace !== 'string' || v.workspace.length === 0 || v.workspace.length > 4096)
      return fail('workspace must be a folder path');
    out.workspace = v.workspace;
  }
  if (v.apiKey !== undefined) {
    if (typeof v.apiKey !== 'string' || v.apiKey.length > 1000) return fail('apiKey must be a string');
    out.apiKey = v.apiKey;
  }
  if (v.options !== undefined) {
    if (!Array.isArray(v.options) || v.options.length > 20) return fail('options must be a list of at most 20');
    if (v.options.length === 1)
      return fail('a consensus needs at least 2 options (or none, to have the workers propose them)');
    const options: string[] = [];
    for (const [i, o] of v.options.entries()) {
      const s = str(o, `options[${i}]`, { min: 1, max: 2_000 });
      if (!s.ok) return s;
      options.push(s.value.trim());
    }
    out.options = options;
  }
  return ok(out);
}

const MEETING_ID = /^[A-Za-z0-9_-]{1,64}$/;

function meetingId(v: Record<string, unknown>): Checked<string> {
  if (typeof v.meetingId !== 'string' || !MEETING_ID.test(v.meetingId))
    return fail('meetingId is missing or malformed');
  return ok(v.meetingId);
}

/** Validates the params of a daemon request for its method. */
export function checkParams<M extends DaemonMethod>(method: M, v: unknown): Checked<ParamsOf<M>> {
  const r = checkParamsAny(method, v);
  return r as Checked<ParamsOf<M>>;
}

function checkParamsAny(method: DaemonMethod, v: unknown): Checked<unknown> {
  if (!isRecord(v)) return fail(`${method}: params must be an object`);
  switch (method) {
    case 'initialize': {
      const version = int(v.protocolVersion, 'protocolVersion', 0, 1_000_000);
      if (!version.ok) return version;
      const client = str(v.client, 'client', { min: 1, max: 200 });
      if (!client.ok) return client;
      return ok({ protocolVersion: version.value, client: client.value });
    }
    case 'meeting/start':
      return checkStartParams(v);
    case 'meeting/list':
      return ok({});
    case 'meeting/get': {
      const id = meetingId(v);
      if (!id.ok) return id;
      const out: { meetingId: string; sinceSeq?: number; limit?: number } = { meetingId: id.value };
      if (v.sinceSeq !== undefined) {
        const since = int(v.sinceSeq, 'sinceSeq', 0, Number.MAX_SAFE_INTEGER);
        if (!since.ok) return since;
        out.sinceSeq = since.value;
      }
      if (v.limit !== undefined) {
        const limit = int(v.limit, 'limit', 1, MEETING_PAGE_MAX);
        if (!limit.ok) return limit;
        out.limit = limit.value;
      }
      return ok(out);
    }
    case 'meeting/cut':
    case 'meeting/close':
    case 'agent/leave':
    case 'room/unsubscribe': {
      const id = meetingId(v);
      return id.ok ? ok({ meetingId: id.value }) : id;
    }
    case 'room/subscribe': {
      const id = meetingId(v);
      if (!id.ok) return id;
      const since = int(v.sinceSeq, 'sinceSeq', 0, Number.MAX_SAFE_INTEGER);
      return since.ok ? ok({ meetingId: id.value, sinceSeq: since.value }) : since;
    }
    case 'room/post': {
      const id = meetingId(v);
      if (!id.ok) return id;
      const text = str(v.text, 'text', { min: 1, max: 20_000 });
      if (!text.ok) return text;
      return ok({ meetingId: id.value, text: text.value });
    }
    case 'agent/join': {
      const id = meetingId(v);
      if (!id.ok) return id;
      if (typeof v.name !== 'string' || !NAME_PATTERN.test(v.name)) {
        return fail('name must start with a letter and use only letters, digits, - and _ (at most 40)');
      }
      return ok({ meetingId: id.value, name: v.name });
    }
    case 'agent/speak': {
      const id = meetingId(v);
      if (!id.ok) return id;
      const text = str(v.text, 'text', { min: 1, max: 100_000 });
      return text.ok ? ok({ meetingId: id.value, text: text.value }) : text;
    }
    case 'agent/listen': {
      const id = meetingId(v);
      if (!id.ok) return id;
      if (v.waitMs === undefined) return ok({ meetingId: id.value });
      const wait = int(v.waitMs, 'waitMs', 0, 60_000);
      return wait.ok ? ok({ meetingId: id.value, waitMs: wait.value }) : wait;
    }
    case 'meeting/resolve': {
      const id = meetingId(v);
      if (!id.ok) return id;
      if (v.action !== 'pick' && v.action !== 'another_round' && v.action !== 'defer') {
        return fail('action must be pick, another_round or defer');
      }
      const out: { meetingId: string; action: string; option?: string; instruction?: string } = {
        meetingId: id.value,
        action: v.action,
      };
      if (v.action === 'pick') {
        const o = str(v.option, 'option', { min: 1, max: 2_000 });
        if (!o.ok) return fail('pick needs the option (its id, e.g. O2, or its label)');
        out.option = o.value;
      }
      if (v.action === 'another_round') {
        const t = str(v.instruction, 'instruction', { min: 1, max: 20_000 });
        if (!t.ok) return fail('another_round needs an instruction for the workers');
        out.instruction = t.value;
      }
      return ok(out);
    }
    case 'meeting/render': {
      const id = meetingId(v);
      return id.ok ? ok({ meetingId: id.value }) : id;
    }
    case 'lm/register': {
      if (
        !Array.isArray(v.models) ||
        v.models.length > 100 ||
        !v.models.every((m) => typeof m === 'string' && m.length <= 200)
      ) {
        return fail('models must be a list of model ids');
      }
      return ok({ models: v.models as string[] });
    }
    case 'lm/delta':
    case 'lm/done': {
      if (typeof v.requestId !== 'string' || v.requestId.length > 100) return fail('requestId is missing');
      const text = str(v.text, 'text', { max: 2_000_000 });
      if (!text.ok) return text;
      const out: { requestId: string; text: string; promptTokens?: number; completionTokens?: number } = {
        requestId: v.requestId,
        text: text.value,
      };
      if (method === 'lm/done') {
        for (const k of ['promptTokens', 'completionTokens'] as const) {
          if (v[k] === undefined) continue;
          const n = int(v[k], k, 0, 100_000_000);
          if (!n.ok) return n;
          out[k] = n.value;
        }
      }
      return ok(out);
    }
    case 'lm/fail': {
      if (typeof v.requestId !== 'string' || v.requestId.length > 100) return fail('requestId is missing');
      const message = str(v.message, 'message', { min: 1, max: 2_000 });
      if (!message.ok) return message;
      const kinds = ['unreachable', 'auth', 'rate_limited', 'server', 'bad_request'];
      if (typeof v.kind !== 'string' || !kinds.includes(v.kind)) return fail(`kind must be one of ${kinds.join(', ')}`);
      return ok({ requestId: v.requestId, message: message.value, kind: v.kind });
    }
    case 'meeting/decide': {
      const id = meetingId(v);
      if (!id.ok) return id;
      if (v.decision !== 'accepted' && v.decision !== 'rejected' && v.decision !== 'another_round') {
        return fail('decision must be accepted, rejected or another_round');
      }
      const out: { meetingId: string; decision: string; instruction?: string; digestText?: string } = {
        meetingId: id.value,
        decision: v.decision,
      };
      if (v.instruction !== undefined) {
        const s = str(v.instruction, 'instruction', { max: 20_000 });
        if (!s.ok) return s;
        out.instruction = s.value;
      }
      if (v.digestText !== undefined) {
        const s = str(v.digestText, 'digestText', { max: 100_000 });
        if (!s.ok) return s;
        out.digestText = s.value;
      }
      if (v.decision === 'another_round' && !out.instruction?.trim()) {
        return fail('another_round needs an instruction for the room');
      }
      return ok(out);
    }
  }
}

/** Parses and checks one raw frame as an envelope. Does not check the params of requests. */
export function parseEnvelope(raw: string, maxBytes: number): Checked<Envelope> {
  if (raw.length > maxBytes) return fail(`message of ${raw.length} bytes exceeds the limit of ${maxBytes}`);
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return fail('message is not valid JSON');
  }
  if (!isRecord(v)) return fail('message must be a JSON object');
  if (v.kind === 'request') {
    const id = int(v.id, 'id', 1, Number.MAX_SAFE_INTEGER);
    if (!id.ok) return id;
    if (typeof v.method !== 'string' || v.method.length > 100) return fail('request method must be a string');
    return ok({ kind: 'request', id: id.value, method: v.method, params: v.params ?? {} });
  }
  if (v.kind === 'response') {
    const id = int(v.id, 'id', 1, Number.MAX_SAFE_INTEGER);
    if (!id.ok) return id;
    if (v.ok === true) return ok({ kind: 'response', id: id.value, ok: true, result: v.result });
    if (
      v.ok === false &&
      isRecord(v.error) &&
      typeof v.error.message === 'string' &&
      typeof v.error.code === 'string'
    ) {
      return ok({
        kind: 'response',
        id: id.value,
        ok: false,
        error: { code: v.error.code as never, message: v.error.message },
      });
    }
    return fail('response must have ok:true with result or ok:false with error {code, message}');
  }
  if (v.kind === 'event') {
    if (typeof v.method !== 'string' || v.method.length > 100) return fail('event method must be a string');
    return ok({ kind: 'event', method: v.method, params: v.params });
  }
  return fail('message kind must be request, response or event');
}

export function isDaemonMethod(m: string): m is DaemonMethod {
  return (DAEMON_METHODS as readonly string[]).includes(m);
}

export function isRequest(e: Envelope): e is RequestEnvelope {
  return e.kind === 'request';
}

/** Checks a message from a webview. */
export function checkFromWebview(
  v: unknown,
): Checked<{ [K in keyof FromWebview]: { type: K } & FromWebview[K] }[keyof FromWebview]> {
  if (!isRecord(v) || typeof v.type !== 'string') return fail('webview message must be an object with a type');
  switch (v.type) {
    case 'room/ready': {
      const since = int(v.sinceSeq, 'sinceSeq', 0, Number.MAX_SAFE_INTEGER);
      if (!since.ok) return since;
      if (v.meetingId !== undefined && (typeof v.meetingId !== 'string' || !MEETING_ID.test(v.meetingId)))
        return fail('meetingId is malformed');
      return ok({
        type: 'room/ready',
        sinceSeq: since.value,
        ...(typeof v.meetingId === 'string' ? { meetingId: v.meetingId } : {}),
      });
    }
    case 'room/review':
      if (v.meetingId !== undefined && (typeof v.meetingId !== 'string' || !MEETING_ID.test(v.meetingId)))
        return fail('meetingId is malformed');
      return ok({ type: 'room/review', ...(typeof v.meetingId === 'string' ? { meetingId: v.meetingId } : {}) });
    case 'digest/decide': {
      if (v.decision !== 'accepted' && v.decision !== 'rejected' && v.decision !== 'another_round')
        return fail('decision must be accepted, rejected or another_round');
      const text = str(v.digestText, 'digestText', { max: 100_000 });
      if (!text.ok) return text;
      if (v.decision === 'another_round') {
        const instruction = str(v.instruction, 'instruction', { min: 1, max: 20_000 });
        if (!instruction.ok) return fail('another round needs an instruction');
        return ok({
          type: 'digest/decide',
          decision: v.decision,
          digestText: text.value,
          instruction: instruction.value,
        });
      }
      return ok({ type: 'digest/decide', decision: v.decision, digestText: text.value });
    }
    case 'digest/resolve': {
      if (v.action !== 'pick' && v.action !== 'another_round' && v.action !== 'defer')
        return fail('action must be pick, another_round or defer');
      const out: {
        type: 'digest/resolve';
        action: 'pick' | 'another_round' | 'defer';
        option?: string;
        instruction?: string;
      } = { type: 'digest/resolve', action: v.action };
      if (v.action === 'pick') {
        const o = str(v.option, 'option', { min: 1, max: 2_000 });
        if (!o.ok) return fail('pick needs an option');
        out.option = o.value;
      }
      if (v.action === 'another_round') {
        const t = str(v.instruction, 'instruction', { min: 1, max: 20_000 });
        if (!t.ok) return fail('another round needs an instruction');
        out.instruction = t.value;
      }
      return ok(out);
    }
    case 'room/post': {
      const text = str(v.text, 'text', { min: 1, max: 20_000 });
      return text.ok ? ok({ type: 'room/post', text: text.value }) : text;
    }
    case 'room/cut':
      return ok({ type: 'room/cut' });
    case 'digest/ready':
      return ok({ type: 'digest/ready' });
    default:
      return fail(`unknown webview message type "${v.type.slice(0, 50)}"`);
  }
}
