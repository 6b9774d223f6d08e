/**
 * The one-way messages: the events the daemon pushes to a client, and the messages between the
 * extension and its webviews, each a table of method -> params. `messages.ts` re-exports them.
 */
import { MeetingEventSchema, MessageDeltaSchema } from './events';
import * as z from 'zod';
import { int, meetingIdSchema, text } from './schema';
import {
  CutFields,
  DecideFields,
  PostFields,
  ProtocolErrorSchema,
  ResolveFields,
  checkDecide,
  checkResolve,
} from './messageSchemas';

/** Notifications the daemon pushes to a client: method -> params. */
export const DAEMON_EVENTS = {
  /** One logged event of a subscribed meeting, in `seq` order, with no gap and no repeat. */
  'room/event': z.object({ event: MeetingEventSchema }),
  /** Live text of a message being written (not logged). */
  'room/delta': z.object({ delta: MessageDeltaSchema }),
  /** A message that could not be read as a request (no id to answer to). */
  'daemon/error': ProtocolErrorSchema,
} as const;
export type DaemonEventMethod = keyof typeof DAEMON_EVENTS;
export type DaemonEvents = { [K in DaemonEventMethod]: z.output<(typeof DAEMON_EVENTS)[K]> };

/** A daemon notification as one value: its method and its params. */
export type DaemonNotification = {
  [K in DaemonEventMethod]: { method: K; params: DaemonEvents[K] };
}[DaemonEventMethod];

/**
 * The pass-through list: what the extension relays between its webviews and the daemon without
 * changing what it carries, named here once; the extension relays by these tables, so relaying one
 * more is one line here. Down, a daemon notification goes to the room under its own name with its
 * own fields, when it is about the meeting the room shows (the meeting each names). Up, a webview
 * message becomes the daemon request named beside it, its fields as they are plus the meeting's id:
 * both are built from the same fields (`PostFields`, `CutFields`, `ResolveFields` in messageSchemas.ts).
 */
export const RELAYED_DOWN = {
  'room/event': (p: DaemonEvents['room/event']) => p.event.meetingId,
  'room/delta': (p: DaemonEvents['room/delta']) => p.delta.meetingId,
} as const satisfies { [K in DaemonEventMethod]?: (params: DaemonEvents[K]) => string };
export type RelayedDown = keyof typeof RELAYED_DOWN;
export const RELAYED_UP = {
  'room/post': 'room/post',
  'room/cut': 'meeting/cut',
  'digest/resolve': 'meeting/resolve',
} as const;
export type RelayedUp = keyof typeof RELAYED_UP;

/** The daemon's notifications a webview gets as they are. */
function relayedDown<K extends DaemonEventMethod>(table: Record<K, unknown>): Pick<typeof DAEMON_EVENTS, K> {
  const names = Object.keys(table) as K[];
  return Object.fromEntries(names.map((n) => [n, DAEMON_EVENTS[n]])) as Pick<typeof DAEMON_EVENTS, K>;
}

/** Messages the extension sends to a webview. */
export const TO_WEBVIEW = {
  /** Show this meeting; the view drops what it had unless it is the same meeting. */
  'room/reset': z.object({ meetingId: z.string().nullable() }),
  ...relayedDown(RELAYED_DOWN),
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
  'room/post': z.object(PostFields),
  'room/cut': z.object(CutFields),
  /** Copy a message's text (when the webview's own clipboard is not available). */
  'room/copy': z.object({ text: text({ max: 200_000 }) }),
  /** Opens the digest review for the meeting shown. */
  'room/review': z.object({ meetingId: meetingIdSchema.optional() }),
  /** Starts the meeting shown again (one that failed or produced no decision). */
  'room/retry': z.object({ meetingId: meetingIdSchema }),
  /** The digest review panel is ready for its content. */
  'digest/ready': z.object({}),
  /** The digest review refused or could not render what it was sent: logged by the extension (the panel says so too). */
  'digest/problem': z.object({ message: text({ max: 2_000 }) }),
  /** Digest review: start the meeting again (it produced no decision to accept). */
  'digest/retry': z.object({}),
  /** Digest review: the human's decision, with the digest text as edited. */
  'digest/decide': z
    .object({
      ...DecideFields,
      /** The digest as the person left it: always sent by the review. */
      digestText: text({ max: 100_000 }),
      /** On Accept: the record's `scope:` globs as the person left them (checked again where written). */
      scope: z
        .array(text({ max: 1_000 }))
        .max(100)
        .optional(),
    })
    .superRefine(checkDecide),
  /** Digest review: open one of the files the meeting wrote (the extension knows where). */
  'digest/open': z.object({ file: z.enum(['minutes', 'decision']) }),
  /** Digest review of an escalated consensus meeting. */
  'digest/resolve': z.object(ResolveFields).superRefine(checkResolve),
} as const;
export type FromWebview = { [K in keyof typeof FROM_WEBVIEW]: z.output<(typeof FROM_WEBVIEW)[K]> };
