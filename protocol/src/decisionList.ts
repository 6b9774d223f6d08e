/**
 * The team's decision records as `decisions/list` returns them (issue 33): read by the daemon's
 * one rulebook loader through the workspace gate, for the Decisions view and `roundtable decisions`.
 */
import * as z from 'zod';
import { text } from './schema';

export const DecisionStatusSchema = z.enum(
  ['accepted', 'proposed', 'rejected', 'deprecated', 'superseded', 'unknown'],
  {
    error: 'must be one of accepted, proposed, rejected, deprecated, superseded, unknown',
  },
);
/** A record's status normalised (`superseded` also when an accepted record replaces it). */
export type DecisionStatus = z.infer<typeof DecisionStatusSchema>;
export const DECISION_STATUSES: readonly DecisionStatus[] = DecisionStatusSchema.options;

/**
 * How a record with no status at all (MADR makes the status optional) is read: `accepted`, a rule
 * (the default: a record the team merged into its decisions folder without a status is how MADR's
 * own repository and JabRef keep the decisions in force), or `ignore`, not a rule. A status that is
 * written but not recognised is never read as accepted.
 */
export const UnstatusedSchema = z.enum(['accepted', 'ignore'], { error: 'must be accepted or ignore' });
export type Unstatused = z.infer<typeof UnstatusedSchema>;
export const DEFAULT_UNSTATUSED: Unstatused = 'accepted';

/** A file in the decisions folder that was not read as a record, and why (`a template`, `a README`). */
export const SkippedFileSchema = z.object({ path: z.string(), reason: z.string() });
export type SkippedFile = z.infer<typeof SkippedFileSchema>;

/** One record as listed. */
export const DecisionEntrySchema = z.object({
  /**
   * The record's id, the same in every surface: its number as its file name writes it (`0005`,
   * `001`), else its file name without `.md`; the file name also when two records share a number.
   */
  id: z.string(),
  title: z.string(),
  status: DecisionStatusSchema,
  /** The status as written (one line). */
  statusText: z.string().optional(),
  /** No status is written in the record: `status` is what `unstatused` made of it. */
  unstatused: z.boolean().optional(),
  date: z.string().optional(),
  /** Workspace-relative, `/`-separated. */
  path: z.string(),
  /** Workspace-relative globs of the paths it governs. */
  scope: z.array(z.string()),
  /** Paths of the records it replaces / that replace it. */
  supersedes: z.array(z.string()),
  supersededBy: z.array(z.string()),
  /** The record in force now in its place (the end of its "superseded by" chain). */
  current: z.string().optional(),
  /** With `file`: the scope glob that covers it. */
  matchedScope: z.string().optional(),
});
export type DecisionEntry = z.infer<typeof DecisionEntrySchema>;

export const DecisionsListParamsShape = {
  /** Words the records must share (best match first), as `roundtable decisions WORDS`. */
  query: text({ max: 1_000 }).optional(),
  /** Only records with one of these statuses. */
  status: z.array(DecisionStatusSchema).max(6).optional(),
  /** Only the records whose scope covers this workspace-relative file. */
  file: text({ min: 1, max: 1_000 }).optional(),
  /** The decisions folder, relative to the workspace (default `docs/decisions`). */
  folder: text({ min: 1, max: 1_000 }).optional(),
  /** How records with no status are read (default `accepted`). */
  unstatused: UnstatusedSchema.optional(),
};

export const DecisionsListResultSchema = z.object({
  folder: z.string(),
  /** Records in the folder before any narrowing. */
  total: z.number(),
  records: z.array(DecisionEntrySchema),
  /** Files the gate would not let through, each with its reason. */
  refused: z.array(z.object({ path: z.string(), reason: z.string() })),
  /** What could not be read as written, one line each. */
  notes: z.array(z.string()),
  /** Files in the folder that are not records (templates, READMEs, indexes…), each with why. */
  skipped: z.array(SkippedFileSchema).optional(),
  /** Records with no status, and how they were read. */
  unstatused: z.object({ count: z.number(), readAs: UnstatusedSchema }).optional(),
});
export type DecisionsListResult = z.infer<typeof DecisionsListResultSchema>;
