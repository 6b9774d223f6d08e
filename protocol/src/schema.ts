/**
 * The building blocks every protocol schema is written with, so that each check says the same
 * thing the same way: one friendly, exact line naming the field and what is wrong with it.
 * Types, validators, method lists, the MCP tools' input schemas and the extension's settings
 * schema all derive from schemas built here (zod 4).
 */
import * as z from 'zod';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

export const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
export const fail = <T>(error: string): Checked<T> => ({ ok: false, error });

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Whether JSON text nests deeper than `max` (`[`/`{`, strings skipped), in one pass: a deep
 * `[[[[…` from a server or a model costs the parser far more than the check, so it is refused first.
 */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Longest topic, post or persona we accept, in characters. */
export const MAX_TEXT_CHARS = 200_000;

/** A string of `min`..`max` characters; `min` counts non-blank characters. */
export function text(opts: { min?: number; max?: number } = {}) {
  const min = opts.min ?? 0;
  const max = opts.max ?? MAX_TEXT_CHARS;
  let s = z
    .string({ error: (iss) => (iss.input === undefined ? 'is missing' : 'must be a string') })
    .max(max, { error: `is longer than ${max} characters` });
  if (min > 0) s = s.refine((v) => v.trim().length >= min, { error: 'must not be empty' });
  return s;
}

/** An integer in `min`..`max`. */
export function int(min: number, max: number) {
  return z
    .number({ error: (iss) => (iss.input === undefined ? 'is missing' : 'must be an integer') })
    .int({ error: 'must be an integer' })
    .min(min, { error: `must be between ${min} and ${max}` })
    .max(max, { error: `must be between ${min} and ${max}` });
}

/** One of a fixed list of words, named in the error. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  const list = values.length === 1 ? values[0] : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
  return z.enum(values, { error: `must be ${list}` });
}

export const MEETING_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const meetingIdSchema = z
  .string({ error: 'is missing or malformed' })
  .regex(MEETING_ID_PATTERN, { error: 'is missing or malformed' });

/** Marks an issue whose message is a whole sentence that must not be prefixed with its path. */
export const WHOLE = '\u0000';

function pathOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/** Joins a prefix ("config", "event 3 (message_posted):") and a path ("maxRounds", "[2].name"). */
function joinPath(prefix: string, path: string): string {
  if (!prefix || !path) return prefix || path;
  if (prefix.endsWith(':')) return `${prefix} ${path}`;
  return path.startsWith('[') ? `${prefix}${path}` : `${prefix}.${path}`;
}

/** The first issue of a failed parse as one line: `field.path message`. */
export function describeIssue(issue: z.core.$ZodIssue, prefix = ''): string {
  if (issue.message.startsWith(WHOLE)) return issue.message.slice(1);
  const where = joinPath(prefix, pathOf(issue.path));
  if (issue.code === 'unrecognized_keys') return `${joinPath(where, issue.keys[0] ?? '?')} is not a known field`;
  return where ? `${where} ${issue.message}` : issue.message;
}

/** Parses with `schema` and reports the first problem as one friendly line. */
export function check<S extends z.ZodType>(schema: S, v: unknown, prefix = ''): Checked<z.infer<S>> {
  const r = schema.safeParse(v);
  if (r.success) return ok(r.data);
  const first = r.error.issues[0];
  return fail(first ? describeIssue(first, prefix) : `${prefix || 'value'} is invalid`);
}
