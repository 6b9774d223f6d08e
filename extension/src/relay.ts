/**
 * The extension's relay between its webviews and the daemon, by the protocol's pass-through list
 * (`RELAYED_DOWN`, `RELAYED_UP`): no relayed message is named here, so relaying one more is one line
 * in the protocol. Down, a daemon notification about the meeting a view shows goes to the view under
 * its own name with its own fields; up, a webview message becomes the daemon request named beside
 * it, its fields as they are plus the meeting's id. The webview never talks to the daemon itself, so
 * the token stays in the extension. No vscode here: a test drives it with a real daemon connection.
 */
import type {
  DaemonMethod,
  DaemonNotification,
  FromWebviewMessage,
  ParamsOf,
  RelayedDown,
  RelayedUp,
  ResultOf,
  ToWebviewMessage,
} from '@roundtable/protocol';
import { RELAYED_DOWN, RELAYED_UP } from '@roundtable/protocol';

/** A webview message the pass-through list relays up. */
export type RelayedUpMessage = Extract<FromWebviewMessage, { type: RelayedUp }>;
/** A message to a view that is a daemon notification as it came. */
export type RelayedDownMessage = Extract<ToWebviewMessage, { type: RelayedDown }>;

/** Where relayed requests go: the window's daemon link (or any connection's client). */
export interface Requester {
  request<M extends DaemonMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
}

/**
 * What the extension asks before a relayed message goes, per message type: a check or the person's
 * consent, given the meeting it is about. False drops the message; a throw is shown where it came
 * from. A message with no check goes as it is.
 */
export type RelayChecks = { [K in RelayedUp]?: (meetingId: string | undefined) => Promise<boolean> };

/**
 * True for a message the pass-through list relays up from this view: a view's messages are named
 * after it (`room/…`, `digest/…`), and one never relays another's (the review cannot cut unasked).
 */
export function isRelayedUp(msg: FromWebviewMessage, view: 'room' | 'digest'): msg is RelayedUpMessage {
  return Object.hasOwn(RELAYED_UP, msg.type) && msg.type.startsWith(`${view}/`);
}

/**
 * Sends a relayed webview message to the daemon as the request the pass-through list names, about
 * `meetingId`. True once the daemon took it; false when its check dropped it.
 */
export async function relayUp(
  daemon: Requester,
  msg: RelayedUpMessage,
  meetingId: string | undefined,
  checks: RelayChecks = {},
): Promise<boolean> {
  const check = checks[msg.type];
  if (check && !(await check(meetingId))) return false;
  if (!meetingId) throw new Error('No meeting is shown: pick one in the Meetings view, or start one.');
  const { type, ...fields } = msg;
  const method: DaemonMethod = RELAYED_UP[type];
  // The webview's fields were checked against the schema the request's own fields come from.
  await daemon.request(method, { ...fields, meetingId });
  return true;
}

/**
 * The view's message for a daemon notification the pass-through list relays down, when it is about
 * `meetingId` (the meeting the view shows); undefined for any other.
 */
export function relayDown(n: DaemonNotification, meetingId: string | undefined): RelayedDownMessage | undefined {
  if (meetingId === undefined || !Object.hasOwn(RELAYED_DOWN, n.method)) return undefined;
  const about = RELAYED_DOWN[n.method as RelayedDown] as (params: unknown) => string;
  return about(n.params) === meetingId ? ({ type: n.method, ...n.params } as RelayedDownMessage) : undefined;
}
