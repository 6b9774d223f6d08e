/**
 * A review: a panel reads a change against the team's accepted decision records. It runs as a
 * consensus meeting whose options are findings (proposed by each reviewer independently, merged,
 * checked mechanically, then voted on). Defined once here for the daemon (which runs it), the CLI,
 * the GitHub Action, the MCP tool and the extension (which read its outcome).
 */
import * as z from 'zod';
import { GIT_REF_PATTERN } from './context';
import { UnstatusedSchema } from './decisionList';
import { MAX_EXCEPTIONS, MAX_EXCEPTION_CHARS } from './decisionException';
import { text } from './schema';

export const SeveritySchema = z.enum(['blocking', 'major', 'minor', 'note']);
export type Severity = z.infer<typeof SeveritySchema>;
/** Most severe first. */
export const SEVERITIES: readonly Severity[] = ['blocking', 'major', 'minor', 'note'];

/** A line range of the change's new side (1-based, inclusive). */
export const LineRangeSchema = z.object({
  start: z.number().int().min(1),
  end: z.number().int().min(1),
});
export type LineRange = z.infer<typeof LineRangeSchema>;

/** A range's line numbers: `12`, or `12-14`. */
export const lineNumbers = (r: LineRange): string => (r.start === r.end ? `${r.start}` : `${r.start}-${r.end}`);

/** A range in words: `line 12`, or `lines 12-14`. */
export const lineSpan = (r: LineRange): string => `${r.start === r.end ? 'line' : 'lines'} ${lineNumbers(r)}`;

/** One finding as a reviewer states it. */
export const FindingSchema = z.object({
  /** Workspace-relative path of a file in the change. */
  file: text({ max: 1_000 }),
  lines: LineRangeSchema,
  severity: SeveritySchema,
  /**
   * The severity as the reviewer wrote it, kept when it was on no scale the review knows (a word
   * of no scale, a number whose scale the reply does not show): then `severity` is blocking.
   */
  severityWritten: text({ max: 100 }).optional(),
  /** The decision record it breaks: its id as listed in the rulebook (e.g. "0003"). */
  decision: text({ max: 200 }).optional(),
  /** Or the defect class (e.g. "correctness", "security", "performance"). */
  defect: text({ max: 100 }).optional(),
  /** What is wrong, in one to three sentences. */
  claim: text({ max: 2_000 }),
  /** The diff lines it rests on, quoted. */
  quote: text({ max: 4_000 }).optional(),
  /** Reviewers who proposed it (after merging duplicates). */
  proposedBy: z.array(z.string()).optional(),
  /**
   * Set when the finding is refuted mechanically before any vote, with the reason in one line:
   * its file or lines are not in the change, or its decision does not exist or is not accepted.
   */
  refuted: text({ max: 500 }).optional(),
});
export type Finding = z.infer<typeof FindingSchema>;

/** Longest path a changed file may have (Linux's PATH_MAX), and its shown form (every character escaped, `\u{e0001}`). */
const PATH_MAX = 4_096;
const SHOWN_MAX = PATH_MAX * 10;
/** A full commit id: SHA-1 (40 hex digits) or SHA-256 (64). */
export const COMMIT_ID_PATTERN = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const CommitIdSchema = z.string().regex(COMMIT_ID_PATTERN, { error: 'must be a full commit id' });
const PathReasonSchema = z.object({ path: text({ max: 1_000 }), reason: text({ max: 300 }) });

/**
 * A reasoned exception to a decision (decisionException.ts), as the review took it: a PROVEN
 * finding on that decision is WAIVED, with this reason and where it was said.
 */
export const DecisionExceptionSchema = z.object({
  /** The decision it names: the rulebook's id when it names a record there, else as written. */
  decision: text({ max: 200 }),
  /** Why, in the author's words (empty only when `invalid` says it is missing). */
  reason: text({ max: MAX_EXCEPTION_CHARS }),
  /** Where it was said, for people: `commit 1a2b3c4`, `pull request #12`, `the command line`. */
  from: text({ max: 200 }),
  /** The commit whose message carries it as a trailer. */
  commit: CommitIdSchema.optional(),
  /** Why it is not applied, when it is not (no reason; names no record of the rulebook). */
  invalid: text({ max: 300 }).optional(),
});
export type DecisionException = z.infer<typeof DecisionExceptionSchema>;

/**
 * Where the rules of a review were read (the base, never the change under review), and what the
 * change itself does to the records: reported, never applied in this review.
 */
export const ReviewRulesSchema = z.object({
  /** The commit the records were read at: the merge base, or HEAD for a review of the work tree. */
  commit: CommitIdSchema,
  /** That commit for people: `main (merge base 1a2b3c4)`, `HEAD (1a2b3c4)`. */
  label: text({ max: 300 }),
  /** The decisions folder, workspace-relative. */
  folder: text({ max: 1_000 }),
  /** The change's own edits to records, one line each (`marks 0001 superseded (accepted at the base)`). */
  edits: z.array(z.object({ path: text({ max: 1_000 }), what: text({ max: 500 }) })).optional(),
  /** How many more edits the change makes than `edits` lists. */
  moreEdits: z.number().int().min(0).optional(),
  /** Record files of the base the gate kept back, with the reason. */
  refused: z.array(PathReasonSchema).optional(),
  /** Records of the base a bound left unread: a rule for the change may be among them (exit 3). */
  unread: z.array(PathReasonSchema).optional(),
});
export type ReviewRules = z.infer<typeof ReviewRulesSchema>;

/** What the reviewers are held to: the change's files and hunks, and the decision records in play. */
export const ReviewScopeSchema = z.object({
  /**
   * Each changed file the reviewers read, with the new-side line ranges its hunks cover. `shown`:
   * the name as the reviewers were shown it, when it holds characters that show as nothing or as
   * something else (`services/db\u200b.ts`, see pathText.ts); a finding may name the file either way.
   */
  changed: z.array(
    z.object({
      file: text({ max: PATH_MAX }),
      shown: text({ max: SHOWN_MAX }).optional(),
      ranges: z.array(LineRangeSchema),
    }),
  ),
  /** Every record the rulebook holds, with its status: a finding may cite only an accepted one. */
  decisions: z.array(
    z.object({
      id: text({ max: 200 }),
      title: text({ max: 500 }),
      /** Workspace-relative path of the record. */
      path: text({ max: 1_000 }),
      status: text({ max: 40 }),
    }),
  ),
  /**
   * Files of the change the review could not read (budget, gate, binary), said in the report.
   * `governedBy`: the accepted decisions whose `scope:` covers the file; one such file unread makes
   * the review incomplete (exit 3) unless `unreadAllowed`.
   */
  unread: z
    .array(
      z.object({
        file: text({ max: PATH_MAX }),
        shown: text({ max: SHOWN_MAX }).optional(),
        reason: text({ max: 300 }),
        governedBy: z.array(text({ max: 200 })).optional(),
      }),
    )
    .optional(),
  /** The review was asked to pass without its unread files (`--allow-unread`): they are said, not failed on. */
  unreadAllowed: z.boolean().optional(),
  /** Files in the decisions folder that are not records (templates, READMEs…), each with why. */
  skipped: z.array(PathReasonSchema).optional(),
  /** One line when the folder holds records but none of them is a rule: why, and the fix. */
  rulebookNote: text({ max: 1_000 }).optional(),
  /** Where the rulebook was read, and the change's own edits to it. */
  rules: ReviewRulesSchema.optional(),
  /** The exceptions the change carries (its commits' trailers, the pull request, the command line). */
  exceptions: z
    .array(DecisionExceptionSchema)
    .max(3 * MAX_EXCEPTIONS)
    .optional(),
});
export type ReviewScope = z.infer<typeof ReviewScopeSchema>;

/**
 * What `meeting/start` is asked to review (mode `consensus`, with `workspace`): the daemon reads the
 * change through the workspace gate, picks the decision records, and sets `config.review` itself.
 */
export const ReviewRequestSchema = z.object({
  /** Review the commits since this ref (default: the merge base with the default branch), plus the work tree. */
  base: z.string().regex(GIT_REF_PATTERN, { error: 'must be a branch, tag or commit name' }).optional(),
  /** Review only the work tree against HEAD (uncommitted changes). */
  worktree: z.boolean().optional(),
  /** Folder of the decision records, relative to the workspace (default: found as `roundtable decisions` finds it). */
  decisionsFolder: text({ max: 1_000 }).optional(),
  /** How records with no status are read: `accepted` (default, rules) or `ignore`. */
  unstatused: UnstatusedSchema.optional(),
  /** Pass without the changed files the review could not read, saying so (`--allow-unread`); by default a governed one is exit 3. */
  allowUnread: z.boolean().optional(),
  /**
   * Exceptions said outside the commits (`Decision-Exception:` lines of the pull request's body,
   * `--exception`), each as written (`0001 <reason>`) with where it was said; the daemon adds the
   * commits' trailers itself.
   */
  exceptions: z
    .array(z.object({ line: text({ max: MAX_EXCEPTION_CHARS }), from: text({ min: 1, max: 200 }) }))
    .max(MAX_EXCEPTIONS)
    .optional(),
});
export type ReviewRequest = z.infer<typeof ReviewRequestSchema>;

/** What a review may fail on (`--fail-on`): the lowest bar that makes exit code 1. */
export const FailOnSchema = z.enum(['blocking', 'major', 'contested']);
export type FailOn = z.infer<typeof FailOnSchema>;

/** Exit codes of `roundtable review`, documented in docs/review.md. */
export const REVIEW_EXIT = {
  /** No finding at or above the bar was PROVEN. */
  clean: 0,
  /** At least one finding at or above the bar was PROVEN (or CONTESTED, with --fail-on contested). */
  failed: 1,
  /** Bad usage: unknown flag, bad ref, bad value. */
  usage: 2,
  /** The review could not be done: no model, rate limits, budget spent before a verdict, a reviewer down. */
  couldNotReview: 3,
} as const;

/**
 * The first line of the review's Markdown report (`roundtable review --markdown FILE`): an HTML
 * comment GitHub does not show, by which the GitHub Action finds its own pull-request comment to
 * update it on the next push instead of adding another.
 */
export const REVIEW_COMMENT_MARKER = '<!-- roundtable-review -->';
