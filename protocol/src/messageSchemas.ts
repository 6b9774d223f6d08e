/**
 * The schemas of the wire protocol's params and results, and of its errors: what the method
 * tables in `messages.ts` and `notifications.ts` are built from. `messages.ts` re-exports the
 * public ones.
 */
import { MeetingEventSchema } from './events';
import {
  ConfigOverridesSchema,
  MeetingModeSchema,
  PanelSchema,
  ProviderConfigSchema,
  TerminationReasonSchema,
} from './domain';
import { DecisionKindSchema, INSTRUCTION_NEEDED, ResolveActionSchema, lacksInstruction } from './consensus';
import * as z from 'zod';
import { WHOLE, text } from './schema';
import { ContextRequestSchema, LmToolSchema, ToolTurnSchema } from './context';
import { ReviewRequestSchema } from './review';

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
  /** The request was cancelled (`$/cancelRequest`, or its receiver is going away): LSP's RequestCancelled. */
  'cancelled',
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
  /** The meeting's `maxRounds` setting (a roundtable's bound; a consensus meeting is bound by its challenge rounds instead). */
  maxRounds: z.number(),
  /** The most rounds it runs as it stands (`roundLimit` in state.ts): what "round 2 of N" counts against, in either mode. */
  roundLimit: z.number().optional(),
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
  /**
   * A review, once closed: what it upheld (PROVEN and CONTESTED findings) and whether it could not
   * be read or counted whole (exit 3). A review waits for no decision: the view lists it as finished.
   */
  review: z.object({ proven: z.number(), contested: z.number(), incomplete: z.boolean().optional() }).optional(),
  /**
   * Set when the daemon could not read this meeting's log at start-up (a record it refuses: where
   * and why, in one line). The meeting is kept on disk but not loaded; it is listed as closed on an error.
   */
  quarantined: z.string().optional(),
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
export const FolderSchema = z
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
  /** Run the consensus meeting as a review of a change against the accepted decision records (needs `workspace`). */
  review: ReviewRequestSchema.optional(),
  /**
   * API key for `openai` participants. Held in the daemon's memory for this meeting only: never
   * logged, never stored. A meeting resumed after a restart falls back to the daemon's environment.
   */
  apiKey: z.string({ error: 'must be a string' }).max(1000, { error: 'must be a string' }).optional(),
});
export type StartMeetingParams = z.input<typeof StartMeetingParamsSchema>;

/** One chat message sent to a model: what the engine builds, agents read and VS Code's models are sent. */
export const ChatMessageSchema = z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() });
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

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
export const MeetingPageSchema = z.object({
  summary: MeetingSummarySchema,
  /** Events with `seq > sinceSeq`, in order, at most `limit` and never more than fits one frame. */
  events: z.array(MeetingEventSchema),
  /** Seq of the last event returned (`sinceSeq` when none). */
  lastSeq: z.number(),
  /** True when more events follow: ask again from the last returned seq. */
  more: z.boolean(),
});

/** A model call the daemon asks the extension to make through VS Code's language models. */
export const LmRequestSchema = z.object({
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

/**
 * What a person sends about a meeting, field by field: the same whether the room or the digest
 * review sends it to the extension (`FROM_WEBVIEW`) or a client sends it to the daemon (the
 * `room/post`, `meeting/cut`, `meeting/decide` and `meeting/resolve` requests, with the meeting's id).
 */
export const PostFields = { text: text({ min: 1, max: 20_000 }) };
export const CutFields = { reason: text({ max: 500 }).optional() };
export const DecideFields = {
  decision: DecisionKindSchema,
  instruction: text({ max: 20_000 }).optional(),
  digestText: text({ max: 100_000 }).optional(),
};
export const ResolveFields = {
  action: ResolveActionSchema,
  option: text({ min: 1, max: 2_000 }).optional(),
  instruction: text({ min: 1, max: 20_000 }).optional(),
};

/** The rule of a decision on a digest: another round needs an instruction. */
export function checkDecide(p: { decision: string; instruction?: string | undefined }, ctx: z.RefinementCtx): void {
  if (lacksInstruction(p.decision, p.instruction))
    ctx.addIssue({ code: 'custom', message: `${WHOLE}${INSTRUCTION_NEEDED}` });
}

/** The rules of an answer to an escalation: a pick names its option, another round has an instruction. */
export function checkResolve(
  p: { action: string; option?: string | undefined; instruction?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (p.action === 'pick' && !p.option)
    ctx.addIssue({ code: 'custom', message: `${WHOLE}pick needs the option (its id, e.g. O2, or its label)` });
  if (lacksInstruction(p.action, p.instruction))
    ctx.addIssue({ code: 'custom', message: `${WHOLE}${INSTRUCTION_NEEDED}` });
}
