/**
 * A decision record's `scope:` (issue 33): the workspace-relative globs of the paths it governs.
 * One check for every door: the rulebook reading a record, the digest review where the person
 * edits the scope before Accept, and the writer of the record. The scope Accept proposes comes
 * from the meeting's context: the files, folders and globs attached, and each selection's file.
 */
import type { MeetingState } from './state';
import { UNSAFE_CHARS, visibleText } from './text';

/** Longest scope glob kept, in characters. */
export const MAX_SCOPE_GLOB_CHARS = 200;
/** Most scope globs a record holds. */
export const MAX_SCOPE_GLOBS = 50;

/**
 * A scope glob as the matcher takes it (trimmed, a leading `./` dropped), or why it cannot be one,
 * in a few words that follow the glob in a one-line message.
 */
export function scopeGlobCheck(raw: string): { glob: string } | { why: string } {
  const g = raw.trim().replace(/^\.\//, '');
  if (g === '') return { why: 'is empty' };
  if (g.length > MAX_SCOPE_GLOB_CHARS) return { why: `is longer than ${MAX_SCOPE_GLOB_CHARS} characters` };
  // eslint-disable-next-line no-control-regex -- a control character has no place in a path
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(g)) return { why: 'holds a control character' };
  if (g.startsWith('/') || g.startsWith('~') || /^[A-Za-z]:/.test(g) || g.replace(/\\/g, '/').split('/').includes('..'))
    return { why: 'points outside the workspace (scope globs are workspace-relative)' };
  return { glob: g };
}

const SHOWN_AS_CODE = new RegExp(`[${UNSAFE_CHARS}\\t\\n\\r\\u2028\\u2029]`, 'g');

/** A glob as a one-line message quotes it: every control character as a visible code point, cut at 60. */
const quoted = (raw: string): string =>
  visibleText(raw.trim())
    .replace(SHOWN_AS_CODE, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`)
    .slice(0, 60);

/**
 * The scope the person typed (one glob per line, or separated by commas), checked: the globs, or
 * the first problem in one line. An empty text is no scope.
 */
export function parseScopeInput(text: string): { ok: true; globs: string[] } | { ok: false; error: string } {
  const globs: string[] = [];
  for (const raw of text.split(/[\n,]/)) {
    if (raw.trim() === '') continue;
    const c = scopeGlobCheck(raw);
    if ('why' in c) return { ok: false, error: `Scope "${quoted(raw)}" ${c.why}.` };
    if (!globs.includes(c.glob)) globs.push(c.glob);
  }
  if (globs.length > MAX_SCOPE_GLOBS)
    return { ok: false, error: `A scope lists at most ${MAX_SCOPE_GLOBS} globs (this one ${globs.length}).` };
  return { ok: true, globs };
}

/** The file of a selection item's path (`src/db.ts:10-20` → `src/db.ts`). */
const fileOfSelection = (p: string): string => p.replace(/:\d+-\d+$/, '');

/**
 * The scope Accept proposes: the context paths the meeting was started with (files, folders and
 * globs as attached; a selection's file), those the rulebook would keep, at most
 * `MAX_SCOPE_GLOBS`. A meeting with no context proposes none. Logs written before the paths were
 * recorded fall back on the files that were read.
 */
export function proposedScope(s: MeetingState): string[] {
  const ctx = s.context;
  if (!ctx) return [];
  const asked =
    ctx.paths ??
    ctx.items
      .filter((i) => i.kind === 'file' || i.kind === 'selection')
      .map((i) => (i.kind === 'selection' ? fileOfSelection(i.path ?? '') : (i.path ?? '')));
  const out: string[] = [];
  for (const p of asked) {
    const c = scopeGlobCheck(p);
    if ('glob' in c && !out.includes(c.glob)) out.push(c.glob);
    if (out.length >= MAX_SCOPE_GLOBS) break;
  }
  return out;
}
