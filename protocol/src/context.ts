/**
 * Workspace context attached to a meeting (issue 16): what a client asks for when it starts a
 * meeting, and what the daemon read and logged. The daemon reads the files itself, relative to the
 * meeting's workspace, so the refusal rules (outside the workspace, binary, git-ignored, secrets)
 * are applied in one place for every client; what it read is logged once, so minutes and resume
 * never read the disk again.
 */
import * as z from 'zod';
import { WHOLE, int, text } from './schema';

/** A git revision as the CLI and the SCM view pass it: no leading `-`, so it can never be an option. */
export const GIT_REF_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._/~^@{}-]{0,199}$/;

const relPath = text({ min: 1, max: 1_000 });

/** Longest context or tool glob matched, in characters: a longer pattern is refused in one line. */
export const MAX_GLOB_LENGTH = 256;

/** A glob (`*`, `?`, `**`), as opposed to a file or folder named as it is. */
export const isGlob = (p: string): boolean => /[*?]/.test(p);

/**
 * Why a context path or glob can never be inside the workspace, told from its text alone (the
 * workspace gate judges the rest on disk): one line, or undefined. A glob is matched against
 * workspace-relative paths, so one that is absolute, starts at a home (`~`), names a drive or
 * climbs out with `..` would match nothing: it is refused before the meeting spends a call.
 * A file or folder may be absolute (the gate checks it is inside); climbing out or `~` never is.
 */
export function contextPathProblem(p: string): string | undefined {
  const glob = isGlob(p);
  const what = glob ? 'glob' : 'context path';
  if (glob && p.length > MAX_GLOB_LENGTH)
    return `${what} is ${p.length} characters long; at most ${MAX_GLOB_LENGTH} are matched`;
  const slashed = p.replace(/\\/g, '/');
  // The wording the workspace gate uses for a path outside, so every door says it the same way.
  const outside = `${what} "${p.length > 80 ? `${p.slice(0, 80)}…` : p}" is outside the workspace`;
  if (slashed.startsWith('~')) return outside;
  const absolute = slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed);
  if (glob && absolute) return outside;
  // `..` after normalization: `src/../x` stays inside, `src/../../x` does not.
  let depth = 0;
  for (const part of absolute ? [] : slashed.split('/')) {
    if (part === '..') depth--;
    else if (part !== '' && part !== '.') depth++;
    if (depth < 0) return outside;
  }
  return undefined;
}

const contextPath = relPath.superRefine((p, ctx) => {
  const problem = contextPathProblem(p);
  if (problem) ctx.addIssue({ code: 'custom', message: WHOLE + problem });
});

/** What the client asks to attach. Paths are relative to `workspace` (or absolute inside it). */
export const ContextRequestSchema = z.object({
  /** Files, folders or globs (`src/**\/*.ts`). */
  paths: z.array(contextPath).max(50, { error: 'must list at most 50 paths' }).optional(),
  /** Line ranges of files: the editor selection. */
  selections: z
    .array(z.object({ path: contextPath, startLine: int(1, 10_000_000), endLine: int(1, 10_000_000) }))
    .max(20, { error: 'must list at most 20 selections' })
    .optional(),
  /** The git diff: staged changes, or the work tree against `ref` (default: the unstaged changes). */
  diff: z
    .object({
      ref: z.string().regex(GIT_REF_PATTERN, { error: 'must be a branch, tag or commit name' }).optional(),
      staged: z.boolean().optional(),
    })
    .optional(),
  /** A plain-text note from the person starting the meeting. */
  note: text({ max: 20_000 }).optional(),
  /** Folder of earlier decision records (MADR or Nygard), relative to the workspace. */
  decisionsFolder: contextPath.optional(),
});
export type ContextRequest = z.infer<typeof ContextRequestSchema>;

export const ContextItemKindSchema = z.enum(['file', 'selection', 'diff', 'note', 'decision']);
export type ContextItemKind = z.infer<typeof ContextItemKindSchema>;

/** One piece of context as read at start. */
export const ContextItemSchema = z.object({
  kind: ContextItemKindSchema,
  /** Workspace-relative path (`/` separators); for a diff, `git diff <args>`; absent for a note. */
  path: z.string().optional(),
  /** sha256 (hex) of the full content as sent (after the gate's redactions), before any cut. */
  sha256: z.string(),
  /** Tokens of `text`, counted against the context budget. */
  tokens: z.number(),
  text: z.string(),
  /** True when `text` is only the start of the content (the budget ran out). */
  truncated: z.boolean(),
  /**
   * Secrets the workspace gate replaced in place (`[redacted by Roundtable: <rule>]`) before the
   * text was sent: the line (of `text`) and the rule. `sha256` is then of the redacted text.
   * Absent in logs written before the gate redacted anything.
   */
  redacted: z.array(z.object({ line: z.number(), rule: z.string() })).optional(),
  /** Decision records: title, status and date as the record states them. */
  title: z.string().optional(),
  status: z.string().optional(),
  date: z.string().optional(),
});
export type ContextItem = z.infer<typeof ContextItemSchema>;

export const ContextRefusalSchema = z.object({ path: z.string(), reason: z.string() });
export type ContextRefusal = z.infer<typeof ContextRefusalSchema>;

/** Body of the `context_attached` event. */
export const ContextAttachedSchema = z.object({
  items: z.array(ContextItemSchema),
  /** Paths the workspace gate refused (or could not read), one line each: the minutes list them. */
  refused: z.array(ContextRefusalSchema),
  /** The context token budget applied. */
  budget: z.number(),
  /** Set when the budget cut something: what was cut, in one line. */
  cut: z.string().optional(),
  /**
   * The files, folders and globs attached and each selection's file, as asked, workspace-relative
   * (those the gate refused left out): what Accept proposes as the record's `scope:` (issue 33).
   * Absent in logs written before.
   */
  paths: z.array(z.string().max(1_000)).max(100).optional(),
});
export type ContextAttached = z.infer<typeof ContextAttachedSchema>;

/** Default context token budget when the meeting's config does not set `contextMaxTokens`. */
export const DEFAULT_CONTEXT_MAX_TOKENS = 8_000;

/** The read-only workspace tools a model may call during its turn (issue 16). */
export const ToolNameSchema = z.enum(['read_file', 'search', 'list_files']);
export type ToolName = z.infer<typeof ToolNameSchema>;

/** Body of the `tool_called` event: one tool call a model made during its turn, and what it got back. */
export const ToolCalledSchema = z.object({
  round: z.number().int().min(0),
  participant: z.string(),
  /** The tool as the model named it (an unknown name is logged and refused). */
  tool: z.string(),
  /** The arguments as the model wrote them (JSON text, cut at 1,000 characters). */
  args: z.string(),
  /** False when the call was refused or failed; `result` then says why in one line. */
  ok: z.boolean(),
  /** What the model was given back (cut to the per-call cap). */
  result: z.string(),
  /** Tokens of `result`, counted into the room's budget. */
  tokens: z.number(),
});
export type ToolCalled = z.infer<typeof ToolCalledSchema>;

/** Most tokens one tool result may hand back. */
export const TOOL_RESULT_MAX_TOKENS = 1_500;

/** Most tool calls one reply may carry (the ones past the turn's cap are refused, not run). */
export const MAX_TOOL_CALLS_IN_ONE_REPLY = 64;

/** One tool call a model made (OpenAI function calling or a `vscode.lm` tool call part). */
export const ToolCallSchema = z.object({
  id: z.string().max(200),
  name: z.string().max(200),
  /** JSON text as the model wrote it. */
  arguments: z.string().max(100_000),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/**
 * The earlier steps of one turn that used tools, in order, the same for every provider: what the
 * model asked (`calls`, with any text it wrote before), then each result it was given back.
 */
export const ToolTurnSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('calls'),
    text: z.string(),
    calls: z.array(ToolCallSchema).max(MAX_TOOL_CALLS_IN_ONE_REPLY),
  }),
  z.object({ kind: z.literal('result'), callId: z.string().max(200), name: z.string().max(200), text: z.string() }),
]);
export type ToolTurn = z.infer<typeof ToolTurnSchema>;

/** A tool offered to a `vscode.lm` model: VS Code's `LanguageModelChatTool` shape. */
export const LmToolSchema = z.object({
  name: z.string().max(200),
  description: z.string().max(2_000),
  inputSchema: z.record(z.string(), z.unknown()),
});
export type LmTool = z.infer<typeof LmToolSchema>;
