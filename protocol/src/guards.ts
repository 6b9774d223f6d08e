/**
 * Runtime validation at every boundary, derived from the schemas: WebSocket frames in both
 * directions, webview postMessage payloads in both directions, and settings. Each guard returns
 * either the typed value or one line saying exactly what is wrong.
 */
import { type MeetingConfig, type Participant, ConfigOverridesSchema, PanelSchema, ParticipantSchema } from './domain';
import {
  DAEMON_METHODS,
  DAEMON_REQUESTS,
  type DaemonMethod,
  type Envelope,
  type ParamsOf,
  type RequestEnvelope,
} from './messages';
import { PEER_NOTIFICATIONS, type PeerNotification, type PeerNotifications } from './requestTypes';
import {
  DAEMON_EVENTS,
  FROM_WEBVIEW,
  TO_WEBVIEW,
  type DaemonEvents,
  type FromWebview,
  type ToWebview,
} from './notifications';
import { ProtocolErrorSchema, StartMeetingParamsSchema, type StartMeetingParams } from './messageSchemas';
import { check, fail, int, isRecord, ok, type Checked } from './schema';

export function checkParticipant(v: unknown, where = 'participant'): Checked<Participant> {
  return check(ParticipantSchema, v, where);
}

/** A panel must have one assistant, at most one judge and at least two workers, all named uniquely. */
export function checkPanel(v: unknown): Checked<Participant[]> {
  return check(PanelSchema, v, 'participants');
}

export function checkConfig(v: unknown): Checked<Partial<MeetingConfig>> {
  if (v === undefined) return ok({});
  return check(ConfigOverridesSchema, v, 'config');
}

export function checkStartParams(v: unknown): Checked<StartMeetingParams> {
  if (!isRecord(v)) return fail('params must be an object');
  return check(StartMeetingParamsSchema, v);
}

/** Validates the params of a daemon request for its method. */
export function checkParams<M extends DaemonMethod>(method: M, v: unknown): Checked<ParamsOf<M>> {
  if (!isRecord(v)) return fail(`${method}: params must be an object`);
  return check(DAEMON_REQUESTS[method].params, v) as Checked<ParamsOf<M>>;
}

export function isDaemonEventMethod(m: string): m is keyof DaemonEvents {
  return Object.hasOwn(DAEMON_EVENTS, m);
}

/** Validates a notification from the daemon. */
export function checkDaemonEvent<K extends keyof DaemonEvents>(method: K, v: unknown): Checked<DaemonEvents[K]> {
  return check(DAEMON_EVENTS[method], v, method) as Checked<DaemonEvents[K]>;
}

/** Validates a `$/cancelRequest` or `$/progress` (the progress value is checked by the call it belongs to). */
export function checkPeerNotification<K extends PeerNotification>(
  method: K,
  v: unknown,
): Checked<PeerNotifications[K]> {
  return check(PEER_NOTIFICATIONS[method], v, method) as Checked<PeerNotifications[K]>;
}

const idSchema = int(1, Number.MAX_SAFE_INTEGER);
const methodName = (v: unknown): v is string => typeof v === 'string' && v.length <= 100;

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
  if (v.kind === 'request' || v.kind === 'response') {
    const id = check(idSchema, v.id, 'id');
    if (!id.ok) return id;
    if (v.kind === 'request') {
      if (!methodName(v.method)) return fail('request method must be a string');
      return ok({ kind: 'request', id: id.value, method: v.method, params: v.params ?? {} });
    }
    if (v.ok === true) return ok({ kind: 'response', id: id.value, ok: true, result: v.result });
    const error = ProtocolErrorSchema.safeParse(v.error);
    if (v.ok === false && error.success) return ok({ kind: 'response', id: id.value, ok: false, error: error.data });
    return fail('response must have ok:true with result or ok:false with error {code, message}');
  }
  if (v.kind === 'event') {
    if (!methodName(v.method)) return fail('event method must be a string');
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

type Tagged<T> = { [K in keyof T]: { type: K } & T[K] }[keyof T];
export type FromWebviewMessage = Tagged<FromWebview>;
export type ToWebviewMessage = Tagged<ToWebview>;

function checkTagged<T>(table: Record<string, import('zod').ZodType>, v: unknown, what: string): Checked<Tagged<T>> {
  if (!isRecord(v) || typeof v.type !== 'string') return fail(`${what} message must be an object with a type`);
  const schema = Object.hasOwn(table, v.type) ? table[v.type] : undefined;
  if (!schema) return fail(`unknown ${what} message type "${v.type.slice(0, 50)}"`);
  const r = check(schema, v);
  return r.ok ? ok({ type: v.type, ...(r.value as object) } as Tagged<T>) : r;
}

/** Checks a message from a webview. */
export function checkFromWebview(v: unknown): Checked<FromWebviewMessage> {
  return checkTagged<FromWebview>(FROM_WEBVIEW, v, 'webview');
}

/** Checks a message to a webview (the webview's side of the boundary). */
export function checkToWebview(v: unknown): Checked<ToWebviewMessage> {
  return checkTagged<ToWebview>(TO_WEBVIEW, v, 'extension');
}
