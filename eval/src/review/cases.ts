/**
 * Review cases for `roundtable eval --review SET`: a small repository (the base files, decision
 * records among them), a change, and the findings a careful reviewer would report (none for a
 * clean control). A set is the built-in one (`builtin`) or a folder a team writes, one folder per
 * case (docs/eval.md):
 *
 *   SET/<case-id>/case.json   {"title", "labels": [{"file", "lines", "decision" | "defect"}], "deleted"?, "note"?}
 *   SET/<case-id>/base/…      every file of the base commit
 *   SET/<case-id>/change/…    each file the change adds or replaces, as it reads after the change
 *
 * Everything read is data: paths are checked to stay inside the case, symbolic links are refused,
 * sizes are capped, and a bad case is one error naming it.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import type { LineRange } from '@roundtable/protocol';
import { isRecord } from '@roundtable/protocol';

/** A finding a careful reviewer would report: where, and the decision it breaks or its defect class. */
export interface Label {
  file: string;
  lines: LineRange;
  /** The id of the decision record it breaks (`0003`; `ADR-0003` and `3` read the same). */
  decision?: string;
  /** Or the defect class (`correctness`, `security`, …); with both, a finding naming either matches. */
  defect?: string;
}

export interface ReviewCase {
  id: string;
  title: string;
  /** The base commit's files, path → text (decision records under docs/decisions among them). */
  base: Record<string, string>;
  /** The files the change adds or replaces, path → whole new text. */
  change: Record<string, string>;
  /** Files of the base the change deletes. */
  deleted: string[];
  /** What a careful reviewer reports; none = a clean control. */
  labels: Label[];
  /** What the case is about, for people reading the set. */
  note?: string;
}

export const MAX_CASES = 500;
const MAX_FILES_PER_CASE = 60;
const MAX_FILE_BYTES = 256 * 1024;
const MAX_CASE_BYTES = 1024 * 1024;
const MAX_LABELS = 50;
const MAX_CASE_JSON_BYTES = 64 * 1024;
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** A case that cannot be read: one line naming the case and what to fix. */
export class CaseError extends Error {
  override name = 'CaseError';
}

/**
 * A repository-relative path a case may hold: `/`-separated, no `..`, not absolute, and no `.git`
 * anywhere (a nested repository's config could name a program for git to run).
 */
export function safeCasePath(p: string): boolean {
  if (!p || p.length > 500 || p.includes('\\') || p.includes('\0') || p.startsWith('/')) return false;
  return p.split('/').every((s) => s !== '' && s !== '.' && s !== '..' && s.toLowerCase() !== '.git');
}

/** `"12"`, `"12-14"` or `{"start": 12, "end": 14}` as a line range, or undefined. */
export function parseLines(v: unknown): LineRange | undefined {
  const ok = (n: number) => Number.isSafeInteger(n) && n >= 1;
  if (typeof v === 'number') return ok(v) ? { start: v, end: v } : undefined;
  if (typeof v === 'string') {
    const m = /^\s*(\d{1,7})\s*(?:[-–]\s*(\d{1,7}))?\s*$/.exec(v);
    if (!m) return undefined;
    const start = Number(m[1]);
    const end = m[2] === undefined ? start : Number(m[2]);
    return ok(start) && end >= start ? { start, end } : undefined;
  }
  if (isRecord(v) && typeof v.start === 'number' && typeof v.end === 'number')
    return ok(v.start) && v.end >= v.start && ok(v.end) ? { start: v.start, end: v.end } : undefined;
  return undefined;
}

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Checks a case as a whole (its files, its change, its labels); throws a CaseError naming it. */
export function checkCase(c: ReviewCase): ReviewCase {
  const bad = (what: string) => new CaseError(`review case ${c.id}: ${what}`);
  if (!ID.test(c.id)) throw bad('its id must be letters, digits, ".", "_" or "-" (at most 100)');
  const all = [...Object.keys(c.base), ...Object.keys(c.change), ...c.deleted];
  for (const p of all)
    if (!safeCasePath(p)) throw bad(`the path "${p.slice(0, 200)}" leaves the repository or names .git`);
  if (Object.keys(c.base).length + Object.keys(c.change).length > MAX_FILES_PER_CASE)
    throw bad(`it holds more than ${MAX_FILES_PER_CASE} files: keep a case small`);
  let bytes = 0;
  for (const text of [...Object.values(c.base), ...Object.values(c.change)]) {
    const n = Buffer.byteLength(text);
    if (n > MAX_FILE_BYTES) throw bad(`a file is over ${MAX_FILE_BYTES / 1024} KiB: keep a case small`);
    bytes += n;
  }
  if (bytes > MAX_CASE_BYTES) throw bad(`its files are over ${MAX_CASE_BYTES / 1024 / 1024} MiB in all`);
  for (const p of c.deleted) if (!(p in c.base)) throw bad(`it deletes ${p}, which is not in base/`);
  const changed = Object.entries(c.change).filter(([p, text]) => c.base[p] !== text);
  if (changed.length === 0 && c.deleted.length === 0)
    throw bad('its change is empty: put the changed files in change/');
  if (c.labels.length > MAX_LABELS) throw bad(`it has more than ${MAX_LABELS} labels`);
  for (const l of c.labels) {
    const text = c.change[l.file];
    if (text === undefined) throw bad(`a label names ${l.file}, which the change does not add or change`);
    if (l.lines.end > lineCount(text))
      throw bad(`a label's lines ${l.lines.start}-${l.lines.end} are past the end of ${l.file}`);
    if (!l.decision && !l.defect) throw bad(`the label on ${l.file} needs "decision" or "defect"`);
  }
  return c;
}

/** Every regular file under `<case>/<part>`, path → text (`/`-separated, relative to it); a link is refused. */
function readTree(caseDir: string, part: 'base' | 'change', caseId: string): Record<string, string> {
  const dir = path.join(caseDir, part);
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(path.join(dir, r));
      if (st.isSymbolicLink())
        throw new CaseError(`review case ${caseId}: ${part}/${r} is a symbolic link: copy the file in`);
      if (st.isDirectory()) walk(r);
      else if (st.isFile()) {
        if (st.size > MAX_FILE_BYTES)
          throw new CaseError(
            `review case ${caseId}: ${part}/${r} is over ${MAX_FILE_BYTES / 1024} KiB: keep a case small`,
          );
        out[r] = readFileSync(path.join(dir, r), 'utf8');
      }
    }
  };
  if (lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) walk('');
  return out;
}

function stringList(v: unknown, what: string, caseId: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    throw new CaseError(`review case ${caseId}: "${what}" must be a list of paths`);
  return v;
}

function labelOf(v: unknown, caseId: string, i: number): Label {
  const where = `review case ${caseId}: labels[${i}]`;
  if (!isRecord(v) || typeof v.file !== 'string') throw new CaseError(`${where} needs "file"`);
  const lines = parseLines(v.lines);
  if (!lines) throw new CaseError(`${where}: "lines" must be "12", "12-14" or {"start": 12, "end": 14}`);
  const text = (k: string) => {
    const x = v[k];
    if (x === undefined) return undefined;
    if (typeof x !== 'string' || !x.trim() || x.length > 200)
      throw new CaseError(`${where}: "${k}" must be a short text`);
    return x.trim();
  };
  const decision = text('decision');
  const defect = text('defect');
  return { file: v.file, lines, ...(decision ? { decision } : {}), ...(defect ? { defect } : {}) };
}

/** One case folder: `case.json`, `base/`, `change/`. */
export function loadCaseFolder(dir: string): ReviewCase {
  const id = path.basename(dir);
  const file = path.join(dir, 'case.json');
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (!st?.isFile())
    throw new CaseError(`review case ${id}: no case.json (each case folder holds case.json, base/ and change/)`);
  if (st.size > MAX_CASE_JSON_BYTES) throw new CaseError(`review case ${id}: case.json is over 64 KiB`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new CaseError(`review case ${id}: case.json is not JSON`);
  }
  if (!isRecord(json) || typeof json.title !== 'string' || !Array.isArray(json.labels))
    throw new CaseError(
      `review case ${id}: case.json needs "title" (text) and "labels" (a list, [] for a clean control)`,
    );
  return checkCase({
    id,
    title: json.title.slice(0, 300),
    base: readTree(dir, 'base', id),
    change: readTree(dir, 'change', id),
    deleted: stringList(json.deleted, 'deleted', id),
    labels: json.labels.map((l, i) => labelOf(l, id, i)),
    ...(typeof json.note === 'string' ? { note: json.note.slice(0, 2000) } : {}),
  });
}

/** A set folder: every sub-folder is a case (other files, a README, are left alone), in name order. */
export function loadCaseSet(dir: string): ReviewCase[] {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (!st?.isDirectory()) throw new CaseError(`--review: ${dir} is not a folder of review cases (or give "builtin")`);
  const names = readdirSync(dir)
    .filter((n) => lstatSync(path.join(dir, n)).isDirectory())
    .sort();
  if (names.length === 0) throw new CaseError(`--review: ${dir} holds no case folder`);
  if (names.length > MAX_CASES) throw new CaseError(`--review: ${dir} holds more than ${MAX_CASES} cases`);
  return names.map((n) => loadCaseFolder(path.join(dir, n)));
}

/** sha256 of everything a case is scored on: ids, files, change and labels, in order. */
export function caseSetHash(cases: readonly ReviewCase[]): string {
  const h = createHash('sha256');
  const sorted = (o: Record<string, string>) => Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const c of cases)
    h.update(JSON.stringify([c.id, sorted(c.base), sorted(c.change), [...c.deleted].sort(), c.labels])).update('\n');
  return h.digest('hex');
}

/** The lines of `text` that contain `needle` (the first occurrence, across lines when it holds several). */
export function linesOf(text: string, needle: string): LineRange {
  const at = text.indexOf(needle);
  if (at === -1) throw new Error(`"${needle}" is not in the file`);
  const start = text.slice(0, at).split('\n').length;
  return { start, end: start + needle.split('\n').length - 1 };
}
