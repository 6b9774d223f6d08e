/**
 * Wire protocol, defined once. One envelope for every message, one table per direction binding
 * each method's name, params and result (LSP's `ProtocolRequestType`, written in zod): the
 * types, the validators and the method lists all come from these tables. Requests get exactly
 * one response, events are fire and forget, and `initialize` comes first with the protocol version.
 */
import {
  ConfigOverridesSchema,
  DecisionKindSchema,
  MessageDeltaSchema,
  MeetingEstimateSchema,
  MeetingEventSchema,
  MeetingModeSchema,
  NameSchema,
  PanelSchema,
  ParticipantSchema,
  ProviderConfigSchema,
  ResolveActionSchema,
  TerminationReasonSchema,
} from './events';
import * as z from 'zod';
import { WHOLE, int, meetingIdSchema, oneOf, text } from './schema';
import {
  ContextRequestSchema,
  LmToolSchema,
  MAX_TOOL_CALLS_IN_ONE_REPLY,
  ToolCallSchema,
  ToolTurnSchema,
} from './context';

/** Bumped on any incompatible change (3: `meeting/start` follows the meeting it starts, `room/delta` says its call's purpose); a mismatch at `initialize` is refused. */
export const PROTOCOL_VERSION = 3;

/** Largest message either side accepts, in bytes. */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** `meeting/get` pages: default and largest `limit`. */
export const MEETING_PAGE_DEFAULT = 1000;
export const MEETING_PAGE_MAX = 5000;

/** Error codes: stable strings a client can branch on. */
export const ERROR_CODES = [
  'bad_request',
  'unknown_method',
  'not_initialized',
  'version_mismatch',
  'not_found',
  'conflict',
  'forbidden',
  'too_large',
  'internal',
] as const;
export const ErrorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** True for the codes a response may carry (not a client's own `timeout`, `closed`, `cancelled`). */
export function isErrorCode(code: string): code is ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(code);
}

export const ProtocolErrorSchema = z.object({
  code: ErrorCodeSchema,
  /** What went wrong and what to do, for a human. */
  message: z.string(),
});
export type ProtocolError = z.infer<typeof ProtocolErrorSchema>;

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

export const MeetingStatusSchema = z.enum(['running', 'awaiting_human', 'closed']);
export type MeetingStatus = z.infer<typeof MeetingStatusSchema>;

/** Summary of a meeting for lists. */
export const MeetingSummarySchema = z.object({
  meetingId: z.string(),
  topic: z.string(),
  mode: MeetingModeSchema,
  status: MeetingStatusSchema,
  /** Current round (0 before the first). */
  round: z.number(),
  maxRounds: z.number(),
  tokensSpoken: z.number(),
  tokenBudget: z.number(),
  /** Set once closed. */
  terminatedBy: TerminationReasonSchema.optional(),
  createdAt: z.number(),
  lastSeq: z.number(),
  /** Set once its digest is written (and cleared when another round reopens it). */
  digestReady: z.boolean().optional(),
  /** The human's decision on the current digest, once taken. */
  decision: DecisionKindSchema.optional(),
  /** Set when the digest says there is no decision to accept (the view offers Retry, not Review). */
  noDecision: z.boolean().optional(),
});
export type MeetingSummary = z.infer<typeof MeetingSummarySchema>;

/** Options of a consensus meeting: none (the workers propose them) or two to twenty. */
const OptionsSchema = z
  .array(
    text({ min: 1, max: 2_000 }).transform((s) => s.trim()),
    { error: 'must be a list of at most 20' },
  )
  .max(20, { error: 'must be a list of at most 20' })
  .refine((o) => o.length !== 1, {
    error: `${WHOLE}a consensus needs at least 2 options (or none, to have the workers propose them)`,
  });

/** POSIX (`/…`) or Windows (`C:\…`, `\\server\…`) absolute; the protocol runs in the browser too, so no node:path. */
const isAbsolutePath = (p: string): boolean => /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(p);

/** An absolute folder path the daemon reads from (the workspace, or where context is read). */
const FolderSchema = z
  .string({ error: 'must be a folder path' })
  .min(1, { error: 'must be a folder path' })
  .max(4096)
  .refine(isAbsolutePath, { error: 'must be an absolute folder path' });

export const StartMeetingParamsSchema = z.object({
  /** The question or design topic the room discusses. Non-empty. */
  topic: text({ min: 1, max: 20_000 }).transform((s) => s.trim()),
  mode: MeetingModeSchema,
  /** Everyone at the table: exactly one assistant, at most one judge, two or more workers. */
  participants: PanelSchema,
  /** Overrides of the defaults. */
  config: ConfigOverridesSchema.optional(),
  /** Options for a consensus meeting. */
  options: OptionsSchema.optional(),
  /** Where the models are; logged with the meeting (no secrets). */
  providers: ProviderConfigSchema.optional(),
  /** Absolute folder that cited evidence is checked against (consensus mode). */
  workspace: FolderSchema.optional(),
  /**
   * Absolute folder `context` is read from when it is not `workspace` (default: `workspace`). The
   * shipped demo checks its canned evidence in examples/, but the files the person attached are in
   * the folder they ran `roundtable run` from.
   */
  contextWorkspace: FolderSchema.optional(),
  /** Workspace context to read once at start and show every participant (needs `workspace`). */
  context: ContextRequestSchema.optional(),
  /**
   * API key for `openai` participants. Held in the daemon's memory for this meeting only: never
   * logged, never stored. A meeting resumed after a restart falls back to the daemon's environment.
   */
  apiKey: z.string({ error: 'must be a string' }).max(1000, { error: 'must be a string' }).optional(),
});
export type StartMeetingParams = z.input<typeof StartMeetingParamsSchema>;

const meetingRef = z.object({ meetingId: meetingIdSchema });
const empty = z.object({});
/** One chat message sent to a model: what the engine builds, agents read and VS Code's models are sent. */
export const ChatMessageSchema = z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() });
export type ChatMessage = z.infer<typeof ChatMessageSchema>;
const requestIdSchema = z
  .string({ error: 'is missing' })
  .min(1, { error: 'is missing' })
  .max(100, { error: 'is missing' });

/** What `agent/listen` returns. */
export const AgentListenResultSchema = z.object({
  /** Posts by others since the cursor, each wrapped as evidence with its room header. */
  posts: z.array(z.string()),
  /** Cursor (log seq) to continue from; kept by the daemon per connection. */
  cursor: z.number(),
  /** Set when it is this agent's turn: the same prompt a daemon-run worker would get. */
  turn: z.object({ round: z.number(), messages: z.array(ChatMessageSchema) }).nullable(),
  /** True once the meeting is closed. */
  closed: z.boolean(),
});
export type AgentListenResult = z.infer<typeof AgentListenResultSchema>;

/** A page of a meeting's log. */
const MeetingPageSchema = z.object({
  summary: MeetingSummarySchema,
  /** Events with `seq > sinceSeq`, in order, at most `limit` and never more than fits one frame. */
  events: z.array(MeetingEventSchema),
  /** Seq of the last event returned (`sinceSeq` when none). */
  lastSeq: z.number(),
  /** True when more events follow: ask again from the last returned seq. */
  more: z.boolean(),
});

function method<P extends z.ZodType, R extends z.ZodType>(params: P, result: R, doc: string) {
  return { params, result, doc };
}

/**
 * Requests a client (the extension, the CLI, the MCP server, an agent) sends to the daemon.
 * Adding a method here adds its type, its validation and its place in `DAEMON_METHODS`.
 */
export const DAEMON_REQUESTS = {
  initialize: method(
    z.object({ protocolVersion: int(0, 1_000_000), client: text({ min: 1, max: 200 }) }),
    z.object({ protocolVersion: z.number(), daemonVersion: z.string() }),
    'First message of every connection; a protocol version mismatch is refused.',
  ),
  'meeting/start': method(
    StartMeetingParamsSchema.extend({
      /** Also subscribe this connection to the meeting's events from seq 1 (no `room/subscribe` needed). */
      follow: z.boolean().optional(),
    }),
    z.object({
      meetingId: z.string(),
      /** The log's last seq when the answer was sent; with `follow`, events up to it come next. */
      lastSeq: z.number(),
    }),
    'Opens and runs a meeting.',
  ),
  'meeting/estimate': method(
    StartMeetingParamsSchema,
    MeetingEstimateSchema,
    'Expected calls and billed tokens of a meeting, from the prompts it would send; starts nothing.',
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
      text: text({ min: 1, max: 20_000 }),
      /** Shown as the author (default "human"). */
      from: NameSchema.optional(),
    }),
    z.object({ messageId: z.string() }),
    'A human post, shown to the workers in the next round.',
  ),
  'meeting/cut': method(
    meetingRef.extend({ reason: text({ max: 500 }).optional() }),
    empty,
    'Ends the meeting at once; in-flight model calls are aborted.',
  ),
  'meeting/close': method(
    meetingRef.extend({ reason: text({ max: 500 }).optional() }),
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
    meetingRef
      .extend({
        action: ResolveActionSchema,
        option: text({ min: 1, max: 2_000 }).optional(),
        instruction: text({ min: 1, max: 20_000 }).optional(),
      })
      .superRefine((p, ctx) => {
        if (p.action === 'pick' && !p.option)
          ctx.addIssue({ code: 'custom', message: `${WHOLE}pick needs the option (its id, e.g. O2, or its label)` });
        if (p.action === 'another_round' && !p.instruction)
          ctx.addIssue({ code: 'custom', message: `${WHOLE}another_round needs an instruction for the workers` });
      }),
    empty,
    'Consensus mode: the human answers an escalation.',
  ),
  'meeting/decide': method(
    meetingRef
      .extend({
        decision: DecisionKindSchema,
        instruction: text({ max: 20_000 }).optional(),
        digestText: text({ max: 100_000 }).optional(),
      })
      .superRefine((p, ctx) => {
        if (p.decision === 'another_round' && !p.instruction?.trim())
          ctx.addIssue({ code: 'custom', message: `${WHOLE}another_round needs an instruction for the room` });
      }),
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
  'lm/register': method(
    z.object({
      models: z
        .array(z.string().max(200), { error: 'must be a list of model ids' })
        .max(100, { error: 'must be a list of model ids' }),
    }),
    empty,
    "This connection answers `vscode-lm` participants' model calls (the VS Code extension).",
  ),
  'lm/delta': method(
    z.object({ requestId: requestIdSchema, text: text({ max: 2_000_000 }) }),
    empty,
    'A piece of a streamed `lm/request` reply.',
  ),
  'lm/done': method(
    z.object({
      requestId: requestIdSchema,
      text: text({ max: 2_000_000 }),
      promptTokens: int(0, 100_000_000).optional(),
      completionTokens: int(0, 100_000_000).optional(),
      /** The tools the model asked to call (only when the request offered tools). */
      toolCalls: z.array(ToolCallSchema).max(MAX_TOOL_CALLS_IN_ONE_REPLY).optional(),
    }),
    empty,
    'The end of an `lm/request` reply: its text, and the tool calls the model asked for, if any.',
  ),
  'lm/fail': method(
    z.object({
      requestId: requestIdSchema,
      message: text({ min: 1, max: 2_000 }),
      kind: oneOf(['unreachable', 'auth', 'rate_limited', 'server', 'bad_request']),
    }),
    empty,
    'An `lm/request` that failed, with a message for the user.',
  ),
} as const;

type Requests = typeof DAEMON_REQUESTS;
export type DaemonMethod = keyof Requests;
export type ParamsOf<M extends DaemonMethod> = z.output<Requests[M]['params']>;
export type ResultOf<M extends DaemonMethod> = z.output<Requests[M]['result']>;
/** method -> [params, result], for code that wants the pair. */
export type DaemonRequests = { [M in DaemonMethod]: [ParamsOf<M>, ResultOf<M>] };

export const DAEMON_METHODS = Object.keys(DAEMON_REQUESTS) as DaemonMethod[];

/** A model call the daemon asks the extension to make through VS Code's language models. */
export const LmRequestSchema = z.object({
  requestId: z.string(),
  /** Model id or family as configured for the participant ("copilot-gpt-4o", "gpt-4o"). */
  model: z.string(),
  messages: z.array(ChatMessageSchema),
  maxTokens: z.number(),
  json: z.boolean(),
  /** Who asks, for the consent prompt and logs. */
  participant: z.string(),
  /** Read-only workspace tools the model may call in this reply. */
  tools: z.array(LmToolSchema).optional(),
  /** This turn's tool calls so far and their results, after `messages`. */
  toolTurns: z.array(ToolTurnSchema).optional(),
});
export type LmRequest = z.infer<typeof LmRequestSchema>;

/** Notifications the daemon pushes to a client: method -> params. */
export const DAEMON_EVENTS = {
  /** One logged event of a subscribed meeting, in `seq` order, with no gap and no repeat. */
  'room/event': z.object({ event: MeetingEventSchema }),
  /** Live text of a message being written (not logged). */
  'room/delta': z.object({ delta: MessageDeltaSchema }),
  /** A message that could not be read as a request (no id to answer to). */
  'daemon/error': ProtocolErrorSchema,
  /** Sent to the registered extension: make this model call through VS Code and stream the answer back. */
  'lm/request': LmRequestSchema,
  /** The daemon no longer needs an `lm/request` (cut, timeout). */
  'lm/cancel': z.object({ requestId: z.string() }),
} as const;
export type DaemonEventMethod = keyof typeof DAEMON_EVENTS;
export type DaemonEvents = { [K in DaemonEventMethod]: z.output<(typeof DAEMON_EVENTS)[K]> };

/** Messages the extension sends to a webview. */
export const TO_WEBVIEW = {
  /** Show this meeting; the view drops what it had unless it is the same meeting. */
  'room/reset': z.object({ meetingId: z.string().nullable() }),
  'room/event': DAEMON_EVENTS['room/event'],
  'room/delta': DAEMON_EVENTS['room/delta'],
  /** The daemon connection: shown so a person knows why nothing moves. */
  'room/connection': z.object({
    state: z.enum(['connected', 'connecting', 'failed']),
    message: z.string().optional(),
  }),
  'room/error': z.object({ message: z.string() }),
  /** The digest review: the meeting's log to render. */
  'digest/show': z.object({ events: z.array(MeetingEventSchema) }),
  /** The digest review: a failure to show in the panel. */
  'digest/error': z.object({ message: z.string() }),
  /**
   * The digest review: the files the meeting wrote (workspace-relative, for links) and who decides
   * (git user.name or the OS user), shown in "Decided: accepted by … on …".
   */
  'digest/files': z.object({
    minutes: z.string().optional(),
    decision: z.string().optional(),
    decidedBy: z.string().optional(),
  }),
} as const;
export type ToWebview = { [K in keyof typeof TO_WEBVIEW]: z.output<(typeof TO_WEBVIEW)[K]> };

/** Messages a webview sends to the extension. */
export const FROM_WEBVIEW = {
  /** The view is ready; it holds the log of `meetingId` up to `sinceSeq` and wants the rest. */
  'room/ready': z.object({ sinceSeq: int(0, Number.MAX_SAFE_INTEGER), meetingId: meetingIdSchema.optional() }),
  'room/post': z.object({ text: text({ min: 1, max: 20_000 }) }),
  'room/cut': z.object({ reason: text({ max: 500 }).optional() }),
  /** Copy a message's text (when the webview's own clipboard is not available). */
  'room/copy': z.object({ text: text({ max: 200_000 }) }),
  /** Opens the digest review for the meeting shown. */
  'room/review': z.object({ meetingId: meetingIdSchema.optional() }),
  /** Starts the meeting shown again (one that failed or produced no decision). */
  'room/retry': z.object({ meetingId: meetingIdSchema }),
  /** The digest review panel is ready for its content. */
  'digest/ready': z.object({}),
  /** Digest review: start the meeting again (it produced no decision to accept). */
  'digest/retry': z.object({}),
  /** Digest review: the human's decision, with the digest text as edited. */
  'digest/decide': z
    .object({
      decision: DecisionKindSchema,
      digestText: text({ max: 100_000 }),
      instruction: text({ min: 1, max: 20_000 }).optional(),
    })
    .superRefine((p, ctx) => {
      if (p.decision === 'another_round' && !p.instruction)
        ctx.addIssue({ code: 'custom', message: `${WHOLE}another round needs an instruction` });
    }),
  /** Digest review: open one of the files the meeting wrote (the extension knows where). */
  'digest/open': z.object({ file: z.enum(['minutes', 'decision']) }),
  /** Digest review of an escalated consensus meeting. */
  'digest/resolve': z
    .object({
      action: ResolveActionSchema,
      option: text({ min: 1, max: 2_000 }).optional(),
      instruction: text({ min: 1, max: 20_000 }).optional(),
    })
    .superRefine((p, ctx) => {
      if (p.action === 'pick' && !p.option) ctx.addIssue({ code: 'custom', message: `${WHOLE}pick needs an option` });
      if (p.action === 'another_round' && !p.instruction)
        ctx.addIssue({ code: 'custom', message: `${WHOLE}another round needs an instruction` });
    }),
} as const;
export type FromWebview = { [K in keyof typeof FROM_WEBVIEW]: z.output<(typeof FROM_WEBVIEW)[K]> };
