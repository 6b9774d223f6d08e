/**
 * The meeting log, defined once. A meeting is nothing but an ordered list of these events; every
 * view of a meeting (engine state, live room, minutes, digest) is a fold over them. The schemas
 * here are the single definition: the types are inferred from them, events read back from the
 * store are checked with them, and older logs are brought up to date by the upcasters at the end.
 */
import { NAME_PATTERN, isReservedName, reservedNameError } from './names';
import { WHOLE, check, fail, int, isRecord, oneOf, text, z, type Checked } from './schema';

/** How a meeting is run. */
export const MeetingModeSchema = oneOf(['roundtable', 'consensus']);
export type MeetingMode = z.infer<typeof MeetingModeSchema>;

/** The part a participant plays in the room. */
export const RoleSchema = oneOf(['assistant', 'judge', 'worker']);
export type Role = z.infer<typeof RoleSchema>;

/** Order in which workers are asked within a round. */
export const SpeakingOrderSchema = oneOf(['parallel', 'sequential', 'shuffle']);
export type SpeakingOrder = z.infer<typeof SpeakingOrderSchema>;

/** A stance as parsed from the speaker's own reply (never inferred by another model call). */
export type Stance = 'AGREE' | 'DISAGREE' | 'NEUTRAL' | 'UNKNOWN';
/** What the room shows for one worker in one round: its stance, or why it has none. */
export const StanceCellSchema = z.enum(['AGREE', 'DISAGREE', 'NEUTRAL', 'UNKNOWN', 'PASS', 'TIMEOUT']);
export type StanceCell = z.infer<typeof StanceCellSchema>;

/** Consensus result of a round. */
export const ConsensusLevelSchema = z.enum(['FULL', 'MAJORITY', 'NONE']);
export type ConsensusLevel = z.infer<typeof ConsensusLevelSchema>;

/** Why a meeting ended. */
export const TERMINATION_REASONS = [
  /** Consensus mode: the votes settled the question without the human. */
  'verdict_reached',
  /** Consensus mode: the human picked an option after an escalation. */
  'human_decided',
  /** Consensus mode: the human deferred the decision after an escalation. */
  'deferred',
  'all_passed',
  'consensus_full',
  'consensus_majority',
  'judge_converged',
  'max_rounds',
  'budget_exhausted',
  'time_limit',
  'cut',
  'error',
] as const;
export const TerminationReasonSchema = z.enum(TERMINATION_REASONS);
export type TerminationReason = z.infer<typeof TerminationReasonSchema>;

/**
 * Which backend answers for a participant. `attached` seats are taken by an agent that connects
 * itself (over the daemon's socket or MCP) and speaks through the agent tools.
 */
export const PROVIDER_KINDS = ['openai', 'vscode-lm', 'scripted', 'attached'] as const;
export const ProviderKindSchema = z.enum(PROVIDER_KINDS, { error: 'must be openai, vscode-lm, scripted or attached' });
export type ProviderKind = z.infer<typeof ProviderKindSchema>;

/** A seat name: letters, digits, `-` and `_`, starting with a letter, not a reserved word. */
export const NameSchema = z
  .string({ error: 'must be a string' })
  .regex(NAME_PATTERN, { error: 'must start with a letter and use only letters, digits, - and _ (at most 40)' })
  .refine((n) => !isReservedName(n), { error: (iss) => `${WHOLE}${reservedNameError(String(iss.input))}` });

/** One seat at the table. */
export const ParticipantSchema = z
  .object({
    /** Unique, human-readable name used in the room ("ada"). */
    name: NameSchema.describe('Unique name in the room: letters, digits, - and _, starting with a letter'),
    /** Role in the meeting. */
    role: RoleSchema.describe('assistant opens and closes, judge reviews rounds, workers debate'),
    /** Provider that answers for this participant. */
    provider: ProviderKindSchema.describe('Who answers for the seat; attached = a seat for an MCP agent to join').meta({
      enumDescriptions: [
        'Any OpenAI-compatible server (OpenAI, Ollama, LM Studio, vLLM) at roundtable.providerBaseUrl',
        "VS Code's own language models (e.g. Copilot): no API key needed",
        'Scripted replies (demo)',
        'A seat for an agent that attaches itself (MCP)',
      ],
    }),
    /** Model identifier passed to the provider ("gpt-4o-mini", "llama3.1", "scripted"). */
    model: text({ min: 1, max: 200 }).describe('Model id passed to the provider'),
    /** Persona / system prompt that shapes how the participant argues. */
    persona: text({ max: 20_000 }).optional().describe('How the participant argues (added to its system prompt)'),
  })
  .meta({ title: 'Participant' });
export type Participant = z.infer<typeof ParticipantSchema>;

export const MAX_PARTICIPANTS = 32;

/** A panel: one assistant, at most one judge and at least two workers, all named uniquely. */
export const PanelSchema = z
  .array(ParticipantSchema, { error: 'must be a list' })
  .max(MAX_PARTICIPANTS, { error: `${WHOLE}at most ${MAX_PARTICIPANTS} participants are allowed` })
  .superRefine((panel, ctx) => {
    const seen = new Set<string>();
    for (const p of panel) {
      const key = p.name.toLowerCase();
      if (seen.has(key))
        ctx.addIssue({ code: 'custom', message: `${WHOLE}participant name "${p.name}" is used twice` });
      seen.add(key);
    }
    const count = (role: Role) => panel.filter((p) => p.role === role).length;
    if (count('worker') < 2)
      ctx.addIssue({ code: 'custom', message: `${WHOLE}a meeting needs at least 2 workers, got ${count('worker')}` });
    if (count('assistant') !== 1)
      ctx.addIssue({
        code: 'custom',
        message: `${WHOLE}a meeting needs exactly 1 assistant, got ${count('assistant')}`,
      });
    if (count('judge') > 1)
      ctx.addIssue({ code: 'custom', message: `${WHOLE}a meeting has at most 1 judge, got ${count('judge')}` });
  });

/** Limits and policies of a meeting, fixed when it opens. */
export const MeetingConfigSchema = z.object({
  /** Maximum number of discussion rounds (default 10). */
  maxRounds: int(1, 100),
  /** Token budget for everything spoken in the room (default 15,000): a hard ceiling. */
  tokenBudget: int(1, 10_000_000),
  /** Order in which workers speak within a round (default parallel). */
  order: SpeakingOrderSchema,
  /** Per-agent turn timeout in milliseconds (default 60,000). */
  turnTimeoutMs: int(1, 3_600_000),
  /** Overall meeting time limit in milliseconds (default 600,000). */
  timeLimitMs: int(1, 24 * 3_600_000),
  /** Upper bound on the rolling summary's length in tokens (default 500). */
  summaryMaxTokens: int(16, 8_000),
  /** Upper bound on a single worker reply in tokens (default 600). */
  replyMaxTokens: int(16, 32_000),
  /** Seed for the shuffle order, so a resumed meeting keeps the same order. */
  seed: int(0, 2 ** 31 - 1),
  /** Consensus mode: weighted agreement needed to decide without the human (default 0.8). */
  consensusThreshold: z
    .number({ error: 'must be a number above 0 and at most 1' })
    .gt(0, { error: 'must be a number above 0 and at most 1' })
    .max(1, { error: 'must be a number above 0 and at most 1' }),
  /** Consensus mode: most options kept from the proposal round (default 5). */
  maxOptions: int(2, 20),
  /** Consensus mode: challenge rounds after the first vote (default 2). */
  challengeRounds: int(0, 5),
});
export type MeetingConfig = z.infer<typeof MeetingConfigSchema>;

export const DEFAULT_CONFIG: MeetingConfig = {
  maxRounds: 10,
  tokenBudget: 15_000,
  order: 'parallel',
  turnTimeoutMs: 60_000,
  timeLimitMs: 600_000,
  summaryMaxTokens: 500,
  replyMaxTokens: 600,
  seed: 1,
  consensusThreshold: 0.8,
  maxOptions: 5,
  challengeRounds: 2,
};

/** Overrides of the defaults, as a client sends them: unknown settings are refused by name. */
export const ConfigOverridesSchema = z.strictObject(MeetingConfigSchema.partial().shape, {
  error: (iss) =>
    iss.code === 'unrecognized_keys'
      ? `${WHOLE}config.${iss.keys[0] ?? '?'} is not a known setting (known: ${Object.keys(DEFAULT_CONFIG).join(', ')})`
      : 'must be an object',
});

/** What kind of post a message is. */
export const MessageKindSchema = z.enum(['briefing', 'contribution', 'announcement', 'closing']);
export type MessageKind = z.infer<typeof MessageKindSchema>;

/** Token usage of one model call. */
export const UsageSchema = z.object({
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
  /** `provider` when the server reported usage, `estimate` when counted locally with a tokenizer. */
  source: z.enum(['provider', 'estimate']),
});
export type Usage = z.infer<typeof UsageSchema>;

/** Why a model call was made (used for accounting and by the scripted provider). */
export const CallPurposeSchema = z.enum(['briefing', 'turn', 'judge', 'summary', 'digest']);
export type CallPurpose = z.infer<typeof CallPurposeSchema>;

/** The closing digest. Computed fields are computed; narrative fields come from the Assistant. */
export const DigestSchema = z.object({
  topic: z.string(),
  /** Computed consensus level of the last evaluated round. */
  consensus: ConsensusLevelSchema,
  /** One-line statement of where the room landed (Assistant). */
  consensusStatement: z.string(),
  /** Who disagreed or held back, and why. Never empty. */
  dissent: z.string(),
  /** Who contributed what ("ada proposed X, grace countered with Y"). */
  contributors: z.string(),
  /** 0.0–1.0, share of workers whose final stance is AGREE. */
  confidence: z.number(),
  /** Tokens spoken in the room. */
  tokensUsed: z.number(),
  /** The meeting's token budget. */
  tokenBudget: z.number(),
  /** Why the meeting ended. */
  terminatedBy: TerminationReasonSchema,
});
export type Digest = z.infer<typeof DigestSchema>;

/** One option of a consensus meeting. */
export const ConsensusOptionSchema = z.object({
  /** Stable short id the workers vote with ("O1"). */
  id: z.string(),
  label: z.string(),
});
export type ConsensusOption = z.infer<typeof ConsensusOptionSchema>;

export const VoteKindSchema = z.enum(['accept', 'reject', 'abstain']);
export type VoteKind = z.infer<typeof VoteKindSchema>;

export const EvidenceSchema = z.object({
  file: z.string(),
  section: z.string().optional(),
  type: z.string().optional(),
  /** Checked against the workspace when the vote was recorded. */
  status: z.enum(['exists', 'missing', 'outside_workspace', 'unchecked']),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

export const OptionVoteSchema = z.object({
  option: z.string(),
  vote: VoteKindSchema,
  /** 0.0–1.0 */
  confidence: z.number(),
  rationale: z.string(),
  evidence: z.array(EvidenceSchema),
  /** Assumptions the vote rests on, as the worker named them (seed CONS-011). */
  assumptions: z.array(z.string()).optional(),
  /** Why the worker is unsure; required when confidence < 0.5 (seed CONS-013). */
  uncertainty: z.string().optional(),
  /** A compromise position the worker proposes (seed CONS-020). */
  compromise: z.string().optional(),
});
export type OptionVote = z.infer<typeof OptionVoteSchema>;

export const VerdictSchema = z.enum(['PROVEN', 'REFUTED', 'CONTESTED', 'INSUFFICIENT_EVIDENCE']);
export type Verdict = z.infer<typeof VerdictSchema>;

export const OptionResultSchema = z.object({
  option: z.string(),
  verdict: VerdictSchema,
  accept: z.number(),
  reject: z.number(),
  abstain: z.number(),
  /** Calibrated confidence-weighted share of accepting weight among non-abstaining votes, 0–1. */
  weightedAccept: z.number(),
  weightedReject: z.number(),
  /** Cited files that exist, on each side. */
  evidenceFor: z.number(),
  evidenceAgainst: z.number(),
});
export type OptionResult = z.infer<typeof OptionResultSchema>;

export const ConflictSeveritySchema = z.enum(['critical', 'high', 'medium', 'low']);
export type ConflictSeverity = z.infer<typeof ConflictSeveritySchema>;
export const ConflictTypeSchema = z.enum([
  'contradiction',
  'partial-overlap',
  'scope-difference',
  'priority-difference',
]);
export type ConflictType = z.infer<typeof ConflictTypeSchema>;

export const ConflictSchema = z.object({
  conflictId: z.string(),
  severity: ConflictSeveritySchema,
  conflictType: ConflictTypeSchema,
  positions: z.array(
    z.object({ worker: z.string(), option: z.string(), vote: VoteKindSchema, confidence: z.number() }),
  ),
  resolution: z.string(),
});
export type Conflict = z.infer<typeof ConflictSchema>;

/** Decision a human records on a digest. */
export const DecisionKindSchema = oneOf(['accepted', 'rejected', 'another_round']);
export type DecisionKind = z.infer<typeof DecisionKindSchema>;

/** The human's answer to an escalation of a consensus meeting. */
export const ResolveActionSchema = oneOf(['pick', 'another_round', 'defer']);
export type ResolveAction = z.infer<typeof ResolveActionSchema>;

/**
 * How the daemon reaches the models of a meeting. Logged with the meeting so it can resume after a
 * restart; an API key is never part of it.
 */
export const ProviderConfigSchema = z.object({
  /** Base URL of the OpenAI-compatible server for `openai` participants. */
  baseURL: z
    .string({ error: 'must be an http(s) URL' })
    .max(2000, { error: 'must be an http(s) URL' })
    .regex(/^https?:\/\/\S+$/, { error: 'must be an http(s) URL' })
    .optional(),
  /** Script for `scripted` participants (see the README); the demo script when absent. */
  script: z
    .unknown()
    .refine((v) => v === undefined || isRecord(v), { error: 'must be an object' })
    .optional(),
});
export type ProviderConfig = z.infer<typeof ProviderConfigSchema>;

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
  options_proposed: z.object({ worker: z.string(), options: z.array(z.string()) }),
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
  from: z.string(),
  round: z.number(),
  /** Text appended since the previous delta. */
  text: z.string(),
});
export type MessageDelta = z.infer<typeof MessageDeltaSchema>;
