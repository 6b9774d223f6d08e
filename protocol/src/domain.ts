/**
 * The shapes a meeting is made of — seats, settings, digests, estimates — defined once in zod
 * (the votes and verdicts of a consensus meeting are in `consensus.ts`, re-exported here). The
 * log's event bodies (`events.ts`), the wire protocol (`messages.ts`) and the settings schema
 * (`settings.ts`) are built from these; the types are inferred from them.
 */
import { NAME_PATTERN, isReservedName, reservedNameError } from './names';
import * as z from 'zod';
import { ReviewScopeSchema } from './review';
import { WHOLE, int, isRecord, oneOf, text } from './schema';

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
  /** Roundtable: positions unchanged for two rounds with nothing unanswered; the next could only repeat. */
  'stable',
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

/** The price of one model, in US dollars per million tokens. */
export const PriceSchema = z.object({
  input: z.number().min(0).max(10_000),
  output: z.number().min(0).max(10_000),
  /** Price of prompt tokens served from the cache, where the vendor discounts them (default: `input`). */
  cachedInput: z.number().min(0).max(10_000).optional(),
});
export type Price = z.infer<typeof PriceSchema>;
/** Model id → price; the file behind `--prices FILE` and the `roundtable.prices` setting. */
export const PricesSchema = z.record(text({ min: 1, max: 200 }), PriceSchema);
export type Prices = z.infer<typeof PricesSchema>;

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
  /**
   * What the token budget caps: `spoken` (default, the seed's rule: what is said in the room) or
   * `billed` (prompt + completion of every call: what the team pays).
   */
  budgetBasis: z.enum(['spoken', 'billed']).optional(),
  /** Token budget for workspace context attached at start (default 8,000); what does not fit is cut and said so. */
  contextMaxTokens: int(0, 200_000).optional(),
  /**
   * Roundtable: when the transcript the next round would be shown passes this many tokens, the
   * rounds before the last are folded into the rolling summary (default 6,000). Below it, prompts
   * only grow by appending, so servers' prefix caches serve them.
   */
  compactAtTokens: int(100, 1_000_000).optional(),
  /** Offer workers read-only workspace tools (read_file, search, list_files) where the provider supports tool calls. */
  tools: z.boolean({ error: 'must be true or false' }).optional(),
  /** A review (consensus mode): the change's files and hunks and the decision records in play; set by the daemon. */
  review: ReviewScopeSchema.optional(),
  /** Prices known for this meeting's models, so the minutes can show money (USD per million tokens). */
  prices: PricesSchema.optional(),
  /**
   * Roundtable: end the meeting once every worker's stance is unchanged for two rounds and no
   * correction of the judge or post of the human awaits an answer (default true for a new
   * meeting; absent in a log written before it, which runs on as it did).
   */
  stopWhenStable: z.boolean({ error: 'must be true or false' }).optional(),
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
  stopWhenStable: true,
};

/**
 * The rounds a meeting plans when it opens: a roundtable up to `maxRounds`; a consensus meeting
 * (a review too) its first vote and the challenge rounds after it (`maxRounds` does not bound it).
 */
export function plannedRounds(mode: MeetingMode, config: Pick<MeetingConfig, 'maxRounds' | 'challengeRounds'>): number {
  return mode === 'consensus' ? 1 + config.challengeRounds : config.maxRounds;
}

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

/**
 * The most tokens one model call is ever recorded with, prompt or completion: far past any context
 * window, and small enough that no sum of them overflows. A figure above it is bogus, never billed.
 */
export const MAX_CALL_TOKENS = 100_000_000;

const tokenFigure = z.number().int().min(0).max(MAX_CALL_TOKENS);

/**
 * Logs written before usage was checked where it enters (daemon/src/providers/usage.ts) may hold
 * fractional figures, and cached or thinking counts above the count they are part of. They are read
 * as whole numbers, clamped, so those meetings still open and render. Negative, non-numeric and
 * absurd figures are not guessed at: the record is refused, and its meeting quarantined.
 */
function readLeniently(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const u = { ...(raw as Record<string, unknown>) };
  const whole = (v: unknown): unknown => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : v);
  for (const k of ['promptTokens', 'completionTokens', 'cachedTokens', 'reasoningTokens'])
    if (k in u) u[k] = whole(u[k]);
  const clamp = (part: string, of: string): void => {
    const p = u[part];
    const o = u[of];
    if (typeof p === 'number' && typeof o === 'number' && p > o) u[part] = o;
  };
  clamp('cachedTokens', 'promptTokens');
  clamp('reasoningTokens', 'completionTokens');
  return u;
}

/** Token usage of one model call (whole numbers; cached within prompt, thinking within completion). */
export const UsageSchema = z.preprocess(
  readLeniently,
  z.object({
    promptTokens: tokenFigure,
    completionTokens: tokenFigure,
    /** `provider` when the server reported usage, `estimate` when counted locally with a tokenizer. */
    source: z.enum(['provider', 'estimate']),
    /** Prompt tokens the server served from its prefix cache, where it reports them (never above promptTokens). */
    cachedTokens: tokenFigure.optional(),
    /**
     * Of `completionTokens`, how many were thinking (OpenAI's `reasoning_tokens`, already inside
     * `completion_tokens`; counted with the tokenizer where the server does not say). Never added twice.
     */
    reasoningTokens: tokenFigure.optional(),
  }),
);
export type Usage = z.infer<typeof UsageSchema>;

/** Why a model call was made (used for accounting and by the scripted provider). */
export const CallPurposeSchema = z.enum(['briefing', 'turn', 'judge', 'summary', 'digest', 'followup']);
export type CallPurpose = z.infer<typeof CallPurposeSchema>;

/** The closing digest. Computed fields are computed; narrative fields come from the Assistant. */
export const DigestSchema = z.object({
  topic: z.string(),
  /** "Debate changed the outcome: yes/no … · rounds after the first cost N billed tokens" (absent in older logs). */
  debate: z.string().optional(),
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
  /** What the budget caps (absent in digests written before it existed: spoken). */
  budgetBasis: z.enum(['spoken', 'billed']).optional(),
  /** What the calls billed, from the servers' usage (absent in digests written before it existed). */
  billed: z
    .object({
      promptTokens: z.number().int().min(0),
      completionTokens: z.number().int().min(0),
      cachedTokens: z.number().int().min(0),
      totalTokens: z.number().int().min(0),
      calls: z.number().int().min(0),
      costUsd: z.number().min(0).optional(),
      vscodeRequests: z.number().int().min(0).optional(),
      unpricedModels: z.array(z.string()).optional(),
      /** Of `completionTokens`, how many were thinking (reasoning models). */
      reasoningTokens: z.number().int().min(0).optional(),
    })
    .optional(),
  /**
   * Set when the meeting produced no decision to accept: no worker stated a stance, or the digest
   * has no statement. Says what failed (which model, which refusal); the room and the review offer
   * Retry instead of Accept.
   */
  noDecision: z.string().max(2_000).optional(),
  /** Set when the replies were the scripted demo's canned ones: the room and review say "Demo". */
  demo: z.boolean().optional(),
  /** Set when workers left for good: "decided by 3 of 4 workers: grace's server failed (HTTP 429 …)". */
  seats: z.string().max(2_000).optional(),
});
export type Digest = z.infer<typeof DigestSchema>;

/** Calls and tokens of one part of an estimated meeting (an opening, a round, the close, a total). */
export const EstimateLineSchema = z.object({
  calls: z.number().int().min(0),
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
  /** prompt + completion: what the servers would bill. */
  totalTokens: z.number().int().min(0),
  /**
   * Prompt tokens a server's prefix cache would serve (inside promptTokens), by OpenAI's rule: the
   * longest common prefix with an earlier prompt to the same model, from 1,024 tokens, in 128-token
   * blocks. Absent when none would be.
   */
  cachedTokens: z.number().int().min(0).optional(),
  /** What would be spoken in the room (what a `spoken` budget caps). */
  spokenTokens: z.number().int().min(0),
  /** US dollars, when every model's price is known (a lower bound otherwise, see `unpricedModels`). */
  costUsd: z.number().min(0).optional(),
});
export type EstimateLine = z.infer<typeof EstimateLineSchema>;

/**
 * What a meeting is expected to cost before it starts: the real engine plays it on a model whose
 * every reply is as long as its call allows and never agrees (an upper figure for models that
 * answer shorter or settle sooner); reasoning models think through their whole allowance.
 */
export const MeetingEstimateSchema = z.object({
  mode: MeetingModeSchema,
  budget: z.number(),
  budgetBasis: z.enum(['spoken', 'billed']),
  /** Briefing (and, in consensus mode, the workers' proposals). */
  opening: EstimateLineSchema,
  /** Each round if every round runs (roundtable: up to maxRounds; consensus: the vote and its challenge rounds). */
  rounds: z.array(EstimateLineSchema.extend({ round: z.number().int().min(1) })),
  /** The closing digest. */
  closing: EstimateLineSchema,
  /** Every round run. */
  allRounds: EstimateLineSchema.extend({ rounds: z.number().int().min(0) }),
  /**
   * Roundtable: what a vote alone would cost — the workers' independent round-1 answers, counted
   * by majority, with no briefing, judge, later rounds or digest — to set beside the debate.
   */
  voteAlone: EstimateLineSchema.optional(),
  /** Set when the budget would end the meeting before its last round: where it would stop. */
  budgetCut: EstimateLineSchema.extend({ rounds: z.number().int().min(0) }).optional(),
  /** Requests to VS Code's language models in the full run (Copilot's premium requests). */
  vscodeRequests: z.number().int().min(0).optional(),
  unpricedModels: z.array(z.string()),
});
export type MeetingEstimate = z.infer<typeof MeetingEstimateSchema>;

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
  /** Script for `scripted` participants (see docs/cli.md); the demo script when absent. */
  // `: boolean` keeps the type `unknown` (zod 4.1+ narrows to a type predicate's type): the
  // scripted provider's loader checks the script's shape itself.
  script: z
    .unknown()
    .refine((v): boolean => v === undefined || isRecord(v), { error: 'must be an object' })
    .optional(),
});
export type ProviderConfig = z.infer<typeof ProviderConfigSchema>;
