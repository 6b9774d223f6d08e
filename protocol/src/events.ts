/**
 * The meeting log, defined once. A meeting is nothing but an ordered list of these events; every
 * view of a meeting (engine state, live room, minutes, digest) is a fold over them. The schemas
 * here are the single definition: the types are inferred from them, events read back from the
 * store are checked with them, and older logs are brought up to date by the upcasters at the end.
 */
import {
  CallPurposeSchema,
  ConsensusLevelSchema,
  DigestSchema,
  MeetingConfigSchema,
  MeetingModeSchema,
  MessageKindSchema,
  ParticipantSchema,
  ProviderConfigSchema,
  RoleSchema,
  StanceCellSchema,
  TerminationReasonSchema,
  UsageSchema,
} from './domain';
import {
  ConflictSchema,
  ConsensusOptionSchema,
  DecisionKindSchema,
  OptionResultSchema,
  OptionVoteSchema,
  ResolveActionSchema,
} from './consensus';
import { ContextAttachedSchema, ToolCalledSchema } from './context';
import { FindingSchema } from './review';
import * as z from 'zod';
import { WHOLE, check, fail, isRecord, type Checked } from './schema';

const round = z.number().int().min(0);

/** Every event body, by type: the one definition of the log's contents. */
export const EVENT_BODIES = {
  meeting_opened: z.object({
    topic: z.string(),
    mode: MeetingModeSchema,
    config: MeetingConfigSchema,
    participants: z.array(ParticipantSchema.extend({ name: z.string() })),
    /** The script's contents are the scripted provider's to check when the meeting runs. */
    providers: ProviderConfigSchema.extend({ script: z.unknown().optional() }).optional(),
    /** Options of a consensus meeting. */
    options: z.array(z.string()).optional(),
    /** Folder that cited evidence is checked against (consensus mode). */
    workspace: z.string().optional(),
  }),
  /** Workspace context read once at start (issue 16): what every participant is shown as evidence. */
  context_attached: ContextAttachedSchema,
  /** A read-only workspace tool a model called during its turn, with what it got back (issue 16). */
  tool_called: ToolCalledSchema,
  participant_joined: z.object({ participant: ParticipantSchema.extend({ name: z.string() }) }),
  round_started: z.object({
    round,
    /** Workers asked this round, in speaking order. */
    speakers: z.array(z.string()),
    /** True when this is announced as the last round. */
    final: z.boolean(),
  }),
  message_posted: z.object({
    messageId: z.string(),
    from: z.string(),
    role: z.enum(['assistant', 'judge', 'worker', 'human']),
    /** 0 for the briefing, otherwise the round the message belongs to. */
    round,
    kind: MessageKindSchema,
    text: z.string(),
    /** Tokens of `text`, counted into the room's budget. */
    tokens: z.number(),
    /** The model's thinking before this reply (billed, never spoken; shown folded), capped in size. */
    thinking: z.string().max(64_000).optional(),
    /** Tokens of the model's thinking (from the server's usage where it says, else counted). */
    thinkingTokens: z.number().int().min(0).optional(),
  }),
  stance_recorded: z.object({
    round,
    participant: z.string(),
    stance: StanceCellSchema,
    /** True when the worker said it has nothing more to add and sits out the remaining rounds. */
    passed: z.boolean(),
  }),
  turn_failed: z.object({
    round,
    participant: z.string(),
    reason: z.enum(['timeout', 'error']),
    detail: z.string(),
  }),
  /** A worker whose model failed for good leaves: no more turns, no voice in any tally (issue 35). */
  seat_left: z.object({ round, participant: z.string(), reason: z.string() }),
  judge_feedback: z.object({
    round,
    /** The judge's text; empty when the round was clean. */
    text: z.string(),
    /** Corrections addressed to named workers. */
    corrections: z.array(z.object({ worker: z.string(), text: z.string() })),
    /** Set when the judge posted `CONVERGED: <reason>`. */
    converged: z.string().optional(),
    tokens: z.number(),
  }),
  summary_updated: z.object({ round, text: z.string(), tokens: z.number() }),
  consensus_evaluated: z.object({
    round,
    level: ConsensusLevelSchema,
    agree: z.number(),
    disagree: z.number(),
    neutral: z.number(),
    voters: z.number(),
  }),
  budget_warning: z.object({ spent: z.number(), budget: z.number(), finalRound: z.number() }),
  usage_recorded: z.object({
    participant: z.string(),
    role: RoleSchema,
    purpose: CallPurposeSchema,
    usage: UsageSchema,
    /** The round the call served (0 = briefing); absent in logs written before it was recorded. */
    round: round.optional(),
  }),
  human_posted: z.object({
    messageId: z.string(),
    from: z.string(),
    text: z.string(),
    tokens: z.number(),
    round,
  }),
  meeting_interrupted: z.object({ detail: z.string() }),
  /**
   * A human (or a limit: budget, time) asked the meeting to end. Logged before it is acknowledged,
   * so a close survives a restart. `graceful` ends it once the round in progress is complete;
   * otherwise in-flight calls are aborted and the meeting closes at once, with this reason.
   */
  close_requested: z.object({ reason: TerminationReasonSchema, detail: z.string().optional(), graceful: z.boolean() }),
  meeting_closed: z.object({ reason: TerminationReasonSchema, detail: z.string().optional() }),
  digest_ready: z.object({ digest: DigestSchema, text: z.string() }),
  decision_recorded: z.object({
    decision: DecisionKindSchema,
    instruction: z.string().optional(),
    digestText: z.string().optional(),
  }),
  /** Consensus mode: options proposed by one worker in the proposal round. */
  options_proposed: z.object({
    worker: z.string(),
    options: z.array(z.string()),
    /** In a review: the reviewer's findings, as proposed (before merging and the mechanical checks). */
    findings: z.array(FindingSchema).optional(),
  }),
  /** Consensus mode: the options put to the vote. */
  options_set: z.object({ options: z.array(ConsensusOptionSchema), source: z.enum(['user', 'proposed']) }),
  /** Consensus mode: one worker's ballot for a round. An invalid ballot is recorded as all-abstain with the reason. */
  ballot_recorded: z.object({
    round,
    worker: z.string(),
    votes: z.array(OptionVoteSchema),
    valid: z.boolean(),
    /** Set when the worker was asked again after an invalid first answer. */
    retried: z.boolean(),
    invalidReason: z.string().optional(),
    /** Set when the content was empty and the ballot was the JSON the server put in the reasoning field. */
    fromReasoning: z.literal(true).optional(),
    /** Tokens of the ballot as written, counted into the room's budget. */
    tokens: z.number(),
  }),
  /** Consensus mode: the verdicts after a round. */
  verdict_computed: z.object({
    round,
    results: z.array(OptionResultSchema),
    /** The option the votes decide for, if any. */
    decision: z.string().optional(),
    /** Weighted agreement on the decision (or on the best option), 0–1. */
    actualConsensus: z.number(),
    consensusThreshold: z.number(),
    conflicts: z.array(ConflictSchema),
    /** Why the human must decide; empty when the votes settle it. */
    reasons: z.array(z.string()),
    /** True when no further challenge round will be held. */
    final: z.boolean(),
  }),
  /** Consensus mode: the meeting pauses for the human. */
  escalated: z.object({ reasons: z.array(z.string()) }),
  /** Consensus mode: the human's answer to an escalation. */
  human_resolved: z.object({
    action: ResolveActionSchema,
    option: z.string().optional(),
    instruction: z.string().optional(),
  }),
} as const;

type EventBodies = { [K in keyof typeof EVENT_BODIES]: z.infer<(typeof EVENT_BODIES)[K]> };

export type MeetingEventType = keyof EventBodies;

export const MEETING_EVENT_TYPES = Object.keys(EVENT_BODIES) as MeetingEventType[];

/** An event body before the store has given it a place in the log. */
export type EventBody = { [K in MeetingEventType]: { type: K } & EventBodies[K] }[MeetingEventType];

/** Version of the event schema this code writes. Older logs are read through `upcastEvent`. */
export const EVENT_SCHEMA_VERSION = 2;

/** An event in the log. `seq` is per meeting, starts at 1 and has no gaps. */
export type MeetingEvent = EventBody & {
  meetingId: string;
  seq: number;
  /** Milliseconds since the epoch when the event was appended. */
  at: number;
  /** Schema version the event was written with (absent in logs written before versioning: 1). */
  v?: number;
};

/** Body of one event type. */
export type EventOf<K extends MeetingEventType> = Extract<MeetingEvent, { type: K }>;

const EnvelopeFieldsSchema = z.object({
  meetingId: z.string().min(1),
  seq: z.number().int().min(1),
  at: z.number(),
  v: z.number().int().min(1).optional(),
});

/**
 * Upcasters: each turns an event of version `n` into version `n + 1`. Version 1 is every log
 * written before events carried a version; version 2 adds the version field itself and nothing
 * else, so the step is the identity on the body. A later change of shape adds one step here.
 */
const UPCASTERS: Record<number, (raw: Record<string, unknown>) => Record<string, unknown>> = {
  1: (raw) => ({ ...raw, v: 2 }),
};

/** Brings a raw stored event up to the current schema version. */
export function upcastEvent(raw: Record<string, unknown>): Checked<Record<string, unknown>> {
  let v = typeof raw.v === 'number' ? raw.v : 1;
  let out = raw;
  if (v > EVENT_SCHEMA_VERSION)
    return fail(`event version ${v} is newer than this Roundtable reads (${EVENT_SCHEMA_VERSION}); update Roundtable`);
  while (v < EVENT_SCHEMA_VERSION) {
    const step = UPCASTERS[v];
    if (!step) return fail(`no upcaster from event version ${v}`);
    out = step(out);
    v += 1;
  }
  return { ok: true, value: out };
}

/**
 * Checks one event read back from a store or received from the daemon: upcast, then validated
 * against its type's schema. The message names the event so a broken log can be found.
 */
export function checkEvent(raw: unknown): Checked<MeetingEvent> {
  if (!isRecord(raw)) return fail('event must be an object');
  const up = upcastEvent(raw);
  if (!up.ok) return up;
  const type = up.value.type;
  if (typeof type !== 'string' || !(type in EVENT_BODIES)) {
    return fail(`event has an unknown type "${String(type).slice(0, 40)}"`);
  }
  const where = `event ${String(up.value.seq)} (${type}):`;
  const head = check(EnvelopeFieldsSchema, up.value, where);
  if (!head.ok) return head;
  const body = check(EVENT_BODIES[type as MeetingEventType], up.value, where);
  if (!body.ok) return body;
  return { ok: true, value: { ...body.value, ...head.value, type } as MeetingEvent };
}

/** A whole event as one schema (upcast, then checked by type), for messages that carry events. */
export const MeetingEventSchema = z.unknown().transform((v, ctx): MeetingEvent => {
  const c = checkEvent(v);
  if (!c.ok) ctx.addIssue({ code: 'custom', message: `${WHOLE}${c.error}` });
  return c.ok ? c.value : (v as MeetingEvent);
});

/**
 * Live-only streaming of a message being written. Not part of the log (a 500-token reply would
 * otherwise be hundreds of events): the `message_posted` event that follows carries the full text.
 */
export const MessageDeltaSchema = z.object({
  meetingId: z.string(),
  messageId: z.string(),
  /** Why the call is made: tells a turn from a judge, a summary or the digest without reading the id. */
  purpose: CallPurposeSchema,
  from: z.string(),
  round: z.number(),
  /** Text appended since the previous delta. */
  text: z.string(),
  /** Set when the text is the model's thinking, not its reply (shown folded, never spoken). */
  thinking: z.literal(true).optional(),
});
export type MessageDelta = z.infer<typeof MessageDeltaSchema>;
