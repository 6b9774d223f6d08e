/**
 * The consensus domain: the options of a consensus meeting, the workers' votes on them with their
 * evidence, the verdicts and conflicts computed from the votes, and the human's decision and
 * resolution. Defined once in zod; `domain.ts` re-exports all of it.
 */
import * as z from 'zod';
import { FindingSchema } from './review';
import { oneOf } from './schema';

/** One option of a consensus meeting. */
export const ConsensusOptionSchema = z.object({
  /** Stable short id the workers vote with ("O1"). */
  id: z.string(),
  label: z.string(),
  /** In a review, the finding this option stands for (its label is the finding in one line). */
  finding: FindingSchema.optional(),
});
export type ConsensusOption = z.infer<typeof ConsensusOptionSchema>;

/** Below this confidence a vote must say why the worker is unsure (seed CONS-013). */
export const UNCERTAINTY_BELOW = 0.5;

export const VoteKindSchema = z.enum(['accept', 'reject', 'abstain']);
export type VoteKind = z.infer<typeof VoteKindSchema>;

export const EvidenceSchema = z.object({
  file: z.string(),
  section: z.string().optional(),
  type: z.string().optional(),
  /**
   * Checked against the workspace when the vote was recorded; `refused` when the workspace gate
   * would not let the file be read (version control internals, git-ignored, a secret).
   */
  status: z.enum(['exists', 'missing', 'outside_workspace', 'refused', 'unchecked']),
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
  /**
   * No vote was read on this option (none given, or it could not be read; `rationale` says
   * which): recorded as an abstention, and counted as no position toward a review's quorum.
   */
  unread: z.literal(true).optional(),
  /**
   * A review: the worker proposed this finding and gave no readable vote on it, so its proposal
   * counts as its accept (evidence: the finding's own lines).
   */
  proposed: z.literal(true).optional(),
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
/** That answer with what it needs: the option picked, or the next round's instruction. */
export interface Resolution {
  action: ResolveAction;
  option?: string;
  instruction?: string;
}

/** Why a human's extra round is refused without an instruction: the workers need to know what it is for. */
export const INSTRUCTION_NEEDED = 'another round needs an instruction for the workers';

/**
 * The one rule of a human's extra round (on a digest or an escalation, from any front door): it
 * runs on an instruction, never on a blank one.
 */
export function lacksInstruction(choice: string, instruction: string | undefined): boolean {
  return choice === 'another_round' && !instruction?.trim();
}
