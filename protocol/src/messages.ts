/**
 * Wire protocol. One envelope for every message, one typed map per direction, methods
 * namespaced with `/`. Learned from LSP: requests get exactly one response, events are fire and
 * forget, and `initialize` comes first with the protocol version.
 */
import type {
  DecisionKind,
  MeetingConfig,
  MeetingEvent,
  MeetingMode,
  MessageDelta,
  Participant,
  ProviderConfig,
  TerminationReason,
} from './events';

/** Bumped on any incompatible change; a mismatch at `initialize` is refused. */
export const PROTOCOL_VERSION = 1;

/** Largest message either side accepts, in bytes. */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** `meeting/get` pages: default and largest `limit`. */
export const MEETING_PAGE_DEFAULT = 1000;
export const MEETING_PAGE_MAX = 5000;

export interface RequestEnvelope<M extends string = string, P = unknown> {
  kind: 'request';
  /** Positive integer, unique per connection and direction. */
  id: number;
  method: M;
  params: P;
}

export interface ResponseOk<R = unknown> {
  kind: 'response';
  id: number;
  ok: true;
  result: R;
}

export interface ResponseError {
  kind: 'response';
  id: number;
  ok: false;
  error: ProtocolError;
}

export type ResponseEnvelope<R = unknown> = ResponseOk<R> | ResponseError;

export interface EventEnvelope<M extends string = string, P = unknown> {
  kind: 'event';
  method: M;
  params: P;
}

export type Envelope = RequestEnvelope | ResponseEnvelope | EventEnvelope;

/** Error codes: stable strings a client can branch on. */
export type ErrorCode =
  | 'bad_request'
  | 'unknown_method'
  | 'not_initialized'
  | 'version_mismatch'
  | 'not_found'
  | 'conflict'
  | 'forbidden'
  | 'too_large'
  | 'internal';

export interface ProtocolError {
  code: ErrorCode;
  /** What went wrong and what to do, for a human. */
  message: string;
}

/** Summary of a meeting for lists. */
export interface MeetingSummary {
  meetingId: string;
  topic: string;
  mode: MeetingMode;
  status: MeetingStatus;
  /** Current round (0 before the first). */
  round: number;
  maxRounds: number;
  tokensSpoken: number;
  tokenBudget: number;
  /** Set once closed. */
  terminatedBy?: TerminationReason;
  createdAt: number;
  lastSeq: number;
}

export type MeetingStatus = 'running' | 'awaiting_human' | 'closed';

export interface StartMeetingParams {
  /** The question or design topic the room discusses. Non-empty. */
  topic: string;
  mode: MeetingMode;
  /** Everyone at the table: exactly one assistant, at most one judge, two or more workers. */
  participants: Participant[];
  /** Overrides of the defaults. */
  config?: Partial<MeetingConfig>;
  /** Options for a consensus meeting. */
  options?: string[];
  /** Where the models are; logged with the meeting (no secrets). */
  providers?: ProviderConfig;
  /** Absolute folder that cited evidence is checked against (consensus mode). */
  workspace?: string;
  /**
   * API key for `openai` participants. Held in the daemon's memory for this meeting only: never
   * logged, never stored. A meeting resumed after a restart falls back to the daemon's environment.
   */
  apiKey?: string;
}

/** Requests the extension (or CLI) sends to the daemon: method -> [params, result]. */
export interface DaemonRequests {
  initialize: [{ protocolVersion: number; client: string }, { protocolVersion: number; daemonVersion: string }];
  'meeting/start': [StartMeetingParams, { meetingId: string }];
  'meeting/list': [Record<string, never>, { meetings: MeetingSummary[] }];
  /**
   * One page of a meeting's log: events with seq > sinceSeq (default 0), at most `limit` (1-5000,
   * default 1000) and cut so the frame stays well under MAX_MESSAGE_BYTES. `lastSeq` is the seq of
   * the last event returned (sinceSeq when none); `more` = ask again with sinceSeq = lastSeq.
   */
  'meeting/get': [
    { meetingId: string; sinceSeq?: number; limit?: number },
    { summary: MeetingSummary; events: MeetingEvent[]; lastSeq: number; more: boolean },
  ];
  'room/subscribe': [{ meetingId: string; sinceSeq: number }, { lastSeq: number }];
  'room/unsubscribe': [{ meetingId: string }, Record<string, never>];
  'room/post': [{ meetingId: string; text: string; from?: string }, { messageId: string }];
  /** Ends the meeting at once; in-flight model calls are aborted. */
  'meeting/cut': [{ meetingId: string }, Record<string, never>];
  /** Ends the meeting gracefully once the round in progress is complete. */
  'meeting/close': [{ meetingId: string }, Record<string, never>];
  /**
   * Takes a seat as an attached agent. The seat is a participant with provider `attached`, or,
   * for a name not on the panel, a new worker who speaks from the next round. The identity is
   * bound to this connection: every later agent call on this meeting speaks as it, whatever
   * the arguments say.
   */
  'agent/join': [{ meetingId: string; name: string }, { participant: Participant; cursor: number }];
  /** Speaks in the room as the joined identity. Only when it is that agent's turn. */
  'agent/speak': [{ meetingId: string; text: string }, { messageId: string }];
  /**
   * Posts since this connection's own cursor (never its own), wrapped as evidence, and the
   * pending turn if it is this agent's turn to speak. Waits up to `waitMs` for something new.
   */
  'agent/listen': [{ meetingId: string; waitMs?: number }, AgentListenResult];
  /** Gives up the seat: the agent passes and sits out the remaining rounds. */
  'agent/leave': [{ meetingId: string }, Record<string, never>];
  /**
   * Consensus mode: the human's answer while the meeting is `awaiting_human`: pick an option,
   * ask for another round with an instruction, or defer.
   */
  'meeting/resolve': [
    { meetingId: string; action: 'pick' | 'another_round' | 'defer'; option?: string; instruction?: string },
    Record<string, never>,
  ];
  'meeting/decide': [
    { meetingId: string; decision: DecisionKind; instruction?: string; digestText?: string },
    Record<string, never>,
  ];
  /** The minutes of a meeting rendered from its log (Markdown), with the file name to use and, for a consensus meeting, its MANIFEST.jsonl line. */
  'meeting/render': [{ meetingId: string }, { minutes: string; fileBase: string; manifestLine?: string }];
  /** This connection answers `vscode-lm` participants' model calls (the VS Code extension). */
  'lm/register': [{ models: string[] }, Record<string, never>];
  /** A piece of a streamed `lm/request` reply. */
  'lm/delta': [{ requestId: string; text: string }, Record<string, never>];
  /** The end of an `lm/request` reply. */
  'lm/done': [
    { requestId: string; text: string; promptTokens?: number; completionTokens?: number },
    Record<string, never>,
  ];
  /** An `lm/request` that failed, with a message for the user. */
  'lm/fail': [
    { requestId: string; message: string; kind: 'unreachable' | 'auth' | 'rate_limited' | 'server' | 'bad_request' },
    Record<string, never>,
  ];
}

/** A model call the daemon asks the extension to make through VS Code's language models. */
export interface LmRequest {
  requestId: string;
  /** Model id or family as configured for the participant ("copilot-gpt-4o", "gpt-4o"). */
  model: string;
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  maxTokens: number;
  json: boolean;
  /** Who asks, for the consent prompt and logs. */
  participant: string;
}

export interface AgentListenResult {
  /** Posts by others since the cursor, each wrapped as evidence with its room header. */
  posts: string[];
  /** Cursor (log seq) to continue from; kept by the daemon per connection. */
  cursor: number;
  /** Set when it is this agent's turn: the same prompt a daemon-run worker would get. */
  turn: { round: number; messages: { role: 'system' | 'user' | 'assistant'; content: string }[] } | null;
  /** True once the meeting is closed. */
  closed: boolean;
}

/** Events the daemon pushes to a client: method -> params. */
export interface DaemonEvents {
  /** One logged event of a subscribed meeting, in `seq` order, with no gap and no repeat. */
  'room/event': { event: MeetingEvent };
  /** Live text of a message being written (not logged). */
  'room/delta': { delta: MessageDelta };
  /** A message that could not be read as a request (no id to answer to). */
  'daemon/error': ProtocolError;
  /** Sent to the registered extension: make this model call through VS Code and stream the answer back. */
  'lm/request': LmRequest;
  /** The daemon no longer needs an `lm/request` (cut, timeout). */
  'lm/cancel': { requestId: string };
}

/** Messages the extension sends to a webview. */
export interface ToWebview {
  /** Show this meeting; the view drops what it had unless it is the same meeting. */
  'room/reset': { meetingId: string | null };
  'room/event': { event: MeetingEvent };
  'room/delta': { delta: MessageDelta };
  /** The daemon connection: shown so a person knows why nothing moves. */
  'room/connection': { state: 'connected' | 'connecting' | 'failed'; message?: string };
  'room/error': { message: string };
}

/** Messages a webview sends to the extension. */
export interface FromWebview {
  /** The view is ready; it holds the log of `meetingId` up to `sinceSeq` and wants the rest. */
  'room/ready': { sinceSeq: number; meetingId?: string };
  'room/post': { text: string };
  'room/cut': { reason?: string };
  /** Opens the digest review for the meeting shown. */
  'room/review': { meetingId?: string };
  /** The digest review panel is ready for its content. */
  'digest/ready': { reason?: never };
  /** Digest review: the human's decision, with the digest text as edited. */
  'digest/decide': { decision: DecisionKind; digestText: string; instruction?: string };
  /** Digest review of an escalated consensus meeting. */
  'digest/resolve': { action: 'pick' | 'another_round' | 'defer'; option?: string; instruction?: string };
}

export type DaemonMethod = keyof DaemonRequests;
export type ParamsOf<M extends DaemonMethod> = DaemonRequests[M][0];
export type ResultOf<M extends DaemonMethod> = DaemonRequests[M][1];

export const DAEMON_METHODS: readonly DaemonMethod[] = [
  'initialize',
  'meeting/start',
  'meeting/list',
  'meeting/get',
  'room/subscribe',
  'room/unsubscribe',
  'room/post',
  'meeting/cut',
  'meeting/close',
  'agent/join',
  'agent/speak',
  'agent/listen',
  'agent/leave',
  'meeting/resolve',
  'meeting/decide',
  'meeting/render',
  'lm/register',
  'lm/delta',
  'lm/done',
  'lm/fail',
];
