/**
 * Wire protocol, defined once. One envelope for every message, one table per direction binding
 * each method's name, params and result (LSP's `ProtocolRequestType`, written in zod): the
 * types, the validators and the method lists all come from these tables. Requests get exactly
 * one response, events are fire and forget, and `initialize` comes first with the protocol version.
 * The client → daemon requests' table is here; the daemon → client ones, and the generic
 * `$/cancelRequest` and `$/progress`, in `requestTypes.ts`; the param and result schemas are in
 * `messageSchemas.ts`, the one-way tables (daemon events, webview messages) in `notifications.ts`,
 * all re-exported here.
 */
import { MeetingEstimateSchema, NameSchema, ParticipantSchema } from './domain';
import * as z from 'zod';
import { int, meetingIdSchema, text } from './schema';
import { toDaemon } from './requestTypes';
import { MeetingConfigSchema } from './domain';
import {
  AgentListenResultSchema,
  CutFields,
  DecideFields,
  PostFields,
  ResolveFields,
  checkDecide,
  checkResolve,
  MeetingPageSchema,
  FolderSchema,
  MeetingSummarySchema,
  StartMeetingParamsSchema,
  type ProtocolError,
} from './messageSchemas';
import { DecisionsListParamsShape, DecisionsListResultSchema } from './decisionList';

/**
 * Bumped on any incompatible change (3: `meeting/start` follows the meeting it starts, `room/delta`
 * says its call's purpose; 4: the challenge–response handshake replaces the token in a header, and
 * `daemon.json` records the process start); a mismatch at `initialize` is refused. A new method
 * (`decisions/list`) is no bump: an older daemon answers it with an unknown-method error.
 */
export const PROTOCOL_VERSION = 4;

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

const meetingRef = z.object({ meetingId: meetingIdSchema });
const empty = z.object({});
/** A nonce or an HMAC-SHA256 proof of the handshake: 64 lowercase hex digits. */
const nonceSchema = z
  .string({ error: 'must be 64 hex digits' })
  .regex(/^[0-9a-f]{64}$/, { error: 'must be 64 hex digits' });

/** A client → daemon request (see requestTypes.ts for the daemon → client ones). */
const method = toDaemon;
/** A prepared start's handle: 32 random bytes in hex, good on the connection that asked for it. */
const startTokenSchema = z
  .string({ error: 'must be a start token' })
  .regex(/^[0-9a-f]{64}$/, { error: 'must be a start token' });
const startResultSchema = z.object({
  meetingId: z.string(),
  /** The log's last seq when the answer was sent; with `follow`, events up to it come next. */
  lastSeq: z.number(),
});

/**
 * Requests a client (the extension, the CLI, the MCP server, an agent) sends to the daemon.
 * Adding a method here adds its type, its validation and its place in `DAEMON_METHODS`.
 */
export const DAEMON_REQUESTS = {
  initialize: method(
    z.object({
      protocolVersion: int(0, 1_000_000),
      client: text({ min: 1, max: 200 }),
      /** The client's challenge; optional here only so a client of another version hears `version_mismatch`. */
      nonce: nonceSchema.optional(),
      /**
       * This connection speaks for an agent (`roundtable mcp`), not for the person: it may end,
       * delete or post to only the meetings it opened, and never decide or resolve one.
       */
      agent: z.boolean().optional(),
    }),
    z.object({
      protocolVersion: z.number(),
      daemonVersion: z.string().max(200),
      /** The daemon's challenge, and its answer to the client's (client/src/proof.ts). */
      nonce: nonceSchema,
      proof: nonceSchema,
    }),
    "First message of every connection: the protocol version (a mismatch is refused) and the client's challenge, answered with the daemon's proof that it holds the token and its own challenge.",
  ),
  authenticate: method(
    z.object({ proof: nonceSchema }),
    empty,
    "Second message: the client's answer to the daemon's challenge. Nothing else is served before it; a wrong answer closes the connection.",
  ),
  'meeting/start': method(
    StartMeetingParamsSchema.extend({
      /** Also subscribe this connection to the meeting's events from seq 1 (no `room/subscribe` needed). */
      follow: z.boolean().optional(),
    }),
    startResultSchema,
    'Opens and runs a meeting.',
  ),
  'meeting/estimate': method(
    StartMeetingParamsSchema.extend({
      /** Keep what the estimate read (the context, a review's change) for `meeting/startPrepared`. */
      prepare: z.boolean().optional(),
    }),
    MeetingEstimateSchema.extend({
      /** With `prepare`: the start this estimate prepared, for this connection only, for a few minutes. */
      startToken: startTokenSchema.optional(),
    }),
    'Expected calls and billed tokens of a meeting, from the prompts it would send; starts nothing.',
  ),
  'meeting/startPrepared': method(
    z.object({
      startToken: startTokenSchema,
      /** As in `meeting/start`. */
      follow: z.boolean().optional(),
      /** As in `meeting/start`: the estimate is never sent the key. */
      apiKey: StartMeetingParamsSchema.shape.apiKey,
      /** Rounds and budget changed after the estimate; nothing else of the prepared start may change. */
      limits: MeetingConfigSchema.pick({ maxRounds: true, tokenBudget: true }).partial().strict().optional(),
    }),
    startResultSchema,
    'Opens and runs the meeting a `meeting/estimate` with `prepare` read on this connection, without reading it again. An unknown or expired token is `not_found` (start it with `meeting/start`).',
  ),
  'meeting/list': method(empty, z.object({ meetings: z.array(MeetingSummarySchema) }), 'Every meeting in the store.'),
  'meeting/get': method(
    meetingRef.extend({
      /** Return events after this seq (default 0: from the start). */
      sinceSeq: int(0, Number.MAX_SAFE_INTEGER).optional(),
      /** Most events in the page (default `MEETING_PAGE_DEFAULT`). */
      limit: int(1, MEETING_PAGE_MAX).optional(),
    }),
    MeetingPageSchema,
    'One page of a meeting log; page on while `more` is true.',
  ),
  'room/subscribe': method(
    meetingRef.extend({ sinceSeq: int(0, Number.MAX_SAFE_INTEGER) }),
    z.object({ lastSeq: z.number() }),
    'Live events of a meeting after `sinceSeq`, as `room/event` notifications, in order.',
  ),
  'room/unsubscribe': method(meetingRef, empty, 'Stops the live events of a meeting.'),
  'room/post': method(
    meetingRef.extend({
      ...PostFields,
      /** Shown as the author (default "human"). */
      from: NameSchema.optional(),
    }),
    z.object({ messageId: z.string() }),
    'A human post, shown to the workers in the next round.',
  ),
  'meeting/cut': method(
    meetingRef.extend(CutFields),
    empty,
    'Ends the meeting at once; in-flight model calls are aborted.',
  ),
  'meeting/close': method(
    meetingRef.extend(CutFields),
    empty,
    'Ends the meeting gracefully once the round in progress is complete.',
  ),
  'agent/join': method(
    meetingRef.extend({ name: NameSchema }),
    z.object({ participant: ParticipantSchema.extend({ name: z.string() }), cursor: z.number() }),
    'Takes a seat as an attached agent, bound to this connection.',
  ),
  'agent/speak': method(
    meetingRef.extend({ text: text({ min: 1, max: 100_000 }) }),
    z.object({ messageId: z.string() }),
    'Speaks as the joined identity; only on its turn.',
  ),
  'agent/listen': method(
    meetingRef.extend({ waitMs: int(0, 60_000).optional() }),
    AgentListenResultSchema,
    "Posts since this connection's cursor, wrapped as evidence, and the pending turn.",
  ),
  'agent/leave': method(meetingRef, empty, 'Gives up the seat: the agent passes from now on.'),
  'meeting/resolve': method(
    meetingRef.extend(ResolveFields).superRefine(checkResolve),
    empty,
    'Consensus mode: the human answers an escalation.',
  ),
  'meeting/decide': method(
    meetingRef.extend(DecideFields).superRefine(checkDecide),
    empty,
    "The human's decision on the digest.",
  ),
  'meeting/delete': method(
    meetingRef,
    empty,
    "Removes a closed meeting's log from the store (history); a running or waiting meeting is refused.",
  ),
  'meeting/render': method(
    meetingRef,
    z.object({ minutes: z.string(), fileBase: z.string(), manifestLine: z.string().optional() }),
    'The minutes rendered from the log, the file name to use and, for consensus, the MANIFEST line.',
  ),
  'decisions/list': method(
    z.object({ workspace: FolderSchema, ...DecisionsListParamsShape }),
    DecisionsListResultSchema,
    "The workspace's decision records (listed, searched, or those governing a file), read through the workspace gate.",
  ),
  'lm/register': method(
    z.object({
      models: z
        .array(z.string().max(200), { error: 'must be a list of model ids' })
        .max(100, { error: 'must be a list of model ids' }),
      /** The daemon → client requests this connection answers; a window that does not answer `lm/chat` is refused. */
      answers: z
        .array(text({ max: 100 }))
        .max(20)
        .optional(),
    }),
    empty,
    "This connection answers `vscode-lm` participants' model calls (the VS Code extension) with `lm/chat`.",
  ),
} as const;

type Requests = typeof DAEMON_REQUESTS;
export type DaemonMethod = keyof Requests;
export type ParamsOf<M extends DaemonMethod> = z.output<Requests[M]['params']>;
export type ResultOf<M extends DaemonMethod> = z.output<Requests[M]['result']>;
/** method -> [params, result], for code that wants the pair. */
export type DaemonRequests = { [M in DaemonMethod]: [ParamsOf<M>, ResultOf<M>] };

export const DAEMON_METHODS = Object.keys(DAEMON_REQUESTS) as DaemonMethod[];
