/**
 * The rulebook: every decision record in the decisions folder, read through the workspace gate
 * (no secret, no ignored file, nothing outside the workspace, symlinks included), parsed, and
 * linked both ways (what superseded what). Bounded: at most `MAX_RECORDS` records and
 * `MAX_TOTAL_CHARS` characters are read; past that the rest is left out with a note.
 *
 * Supersession, both ways: a record that says "superseded by B" is superseded and B supersedes it;
 * a record B that says "supersedes A" replaces A only once B is accepted (a proposal that would
 * replace A leaves A in force), and then A is superseded by B even if A's own file still says
 * accepted (people forget to edit the old record).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isGlob, type SkippedFile, type Unstatused } from '@roundtable/protocol';
import type { Refusal, WorkspaceGate } from '../gate';
import { IGNORED } from '../gate/git';
import { globMatcher } from '../gate/glob';
import type { DecisionRecord, RecordLink } from './record';
import { readRecord, skippedByName } from './recordRule';

/** Most record files read from the folder. */
export const MAX_RECORDS = 500;
/** Most characters of records read in all (a folder of huge records stops here). */
export const MAX_TOTAL_CHARS = 32_000_000;

export interface Rulebook {
  ok: true;
  /** The folder as asked (workspace-relative). */
  folder: string;
  records: DecisionRecord[];
  /** Files the gate would not let through, each with its reason. */
  refused: Refusal[];
  /** Files that are not records (./recordRule.ts), each with why. */
  skipped: SkippedFile[];
  /** What was left out or could not be read as written, one line each. */
  notes: string[];
}

export type RulebookRead = Rulebook | { ok: false; folder: string; missing: boolean; reason: string };

/** Symlinked `.md` files directly in the folder: the walk never follows a link, the gate judges where each points. */
async function symlinkedRecords(dirReal: string, folderRel: string): Promise<string[]> {
  const entries = await fs.readdir(dirReal, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isSymbolicLink() && /\.md$/i.test(e.name))
    .slice(0, MAX_RECORDS)
    .map((e) => (folderRel ? `${folderRel}/${e.name}` : e.name));
}

/** Reads and parses every record in `folder` (workspace-relative) through the gate; `unstatused` as ./record.ts reads it. */
export async function loadDecisions(opts: {
  gate: WorkspaceGate;
  folder: string;
  unstatused?: Unstatused;
}): Promise<RulebookRead> {
  const { gate, folder } = opts;
  const where = await gate.locate(folder);
  if ('reason' in where) return { ok: false, folder, missing: where.reason === 'does not exist', reason: where.reason };
  if (!(await fs.stat(where.real)).isDirectory())
    return { ok: false, folder, missing: false, reason: 'is not a folder' };
  const notes: string[] = [];
  const files = await gate.files({ dir: where.real, match: /\.md$/i, limit: MAX_RECORDS });
  if (files.more) notes.push(`more than ${MAX_RECORDS} files in ${folder}: only the first ${MAX_RECORDS} were read`);
  const refused = files.refused.filter((r) => r.reason !== IGNORED);
  const links = await symlinkedRecords(where.real, where.rel);
  const records: DecisionRecord[] = [];
  const skipped: SkippedFile[] = [];
  let chars = 0;
  for (const [f, screened] of [
    ...files.passed.map((f) => [f, true] as const),
    ...links.map((f) => [f, false] as const),
  ]) {
    const byName = skippedByName(f, where.rel);
    if (byName) {
      skipped.push({ path: f, reason: byName });
      continue;
    }
    if (records.length >= MAX_RECORDS) {
      notes.push(`more than ${MAX_RECORDS} records: the rest were not read`);
      break;
    }
    const r = await gate.read(f, { screened });
    if (!r.ok) {
      if (r.reason !== IGNORED) refused.push({ path: f, reason: r.reason });
      continue;
    }
    if (chars + r.text.length > MAX_TOTAL_CHARS) {
      notes.push(
        `the records past ${MAX_TOTAL_CHARS.toLocaleString('en-US')} characters in all were not read (from ${r.rel} on)`,
      );
      break;
    }
    chars += r.text.length;
    const read = readRecord(r.rel, r.text, {
      folder: where.rel,
      ...(opts.unstatused ? { unstatused: opts.unstatused } : {}),
    });
    if (!read.ok) {
      skipped.push({ path: r.rel, reason: read.reason });
      continue;
    }
    const rec = read.record;
    notes.push(...rec.notes.map((n) => `${rec.path}: ${n}`));
    records.push({ ...rec, sha256: r.sha256, redacted: r.redacted });
  }
  records.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  notes.push(...linkSupersession(records, folder));
  return { ok: true, folder, records, refused, skipped, notes };
}

const add = (list: string[], p: string): void => {
  if (!list.includes(p)) list.push(p);
};

/** The record a link names: by its path (relative to the linking record), its file name, or its number. */
function linkedRecord(
  from: DecisionRecord,
  link: RecordLink,
  index: {
    byPath: Map<string, DecisionRecord>;
    byName: Map<string, DecisionRecord>;
    byNumber: Map<number, DecisionRecord[]>;
  },
): DecisionRecord | undefined {
  if (link.target) {
    const rel = /^[a-z][\w+.-]*:/i.test(link.target)
      ? link.target
      : path.posix.join(path.posix.dirname(from.path), link.target);
    const name = path.posix.basename(link.target);
    const hit = index.byPath.get(path.posix.normalize(rel)) ?? index.byName.get(name) ?? index.byName.get(`${name}.md`);
    if (hit) return hit;
  }
  const n =
    /^(?:adr[-_ #]?)?0*(\d{1,6})\b/i.exec(link.label)?.[1] ??
    /^0*(\d{1,6})[-_]/.exec(path.posix.basename(link.target ?? ''))?.[1];
  const same = n === undefined ? undefined : index.byNumber.get(Number(n));
  // Two records with one number (it happens: adr-tools' own folder has two 0007s): no guess.
  return same?.length === 1 ? same[0] : undefined;
}

/** Resolves every record's supersession links into paths, both ways; returns a note per link that names no record. */
export function linkSupersession(records: DecisionRecord[], folder: string): string[] {
  const notes: string[] = [];
  const byPath = new Map(records.map((r) => [r.path, r]));
  const byName = new Map<string, DecisionRecord>();
  const byNumber = new Map<number, DecisionRecord[]>();
  for (const r of records) {
    if (!byName.has(path.posix.basename(r.path))) byName.set(path.posix.basename(r.path), r);
    if (r.number !== undefined) byNumber.set(r.number, [...(byNumber.get(r.number) ?? []), r]);
  }
  for (const r of records)
    for (const link of r.links) {
      const other = linkedRecord(r, link, { byPath, byName, byNumber });
      if (!other) {
        notes.push(
          `${r.path}: "${link.kind.replace('-', ' ')} ${link.label || link.target}" names no record in ${folder}`,
        );
        continue;
      }
      if (other === r) continue;
      if (link.kind === 'superseded-by') {
        add(r.supersededBy, other.path);
        add(other.supersedes, r.path);
      } else {
        add(r.supersedes, other.path);
        if (r.state !== 'accepted') continue;
        add(other.supersededBy, r.path);
        other.state = 'superseded';
      }
    }
  return notes;
}

/**
 * The record now in force in place of `record`: the end of its "superseded by" chain (the first
 * link at each step; a cycle stops where it closes). Undefined when nothing replaced it.
 */
export function currentOf(record: DecisionRecord, records: readonly DecisionRecord[]): string | undefined {
  const byPath = new Map(records.map((r) => [r.path, r]));
  const seen = new Set([record.path]);
  let at = record;
  for (;;) {
    const next = at.supersededBy.map((p) => byPath.get(p)).find((r) => r && !seen.has(r.path));
    if (!next) break;
    seen.add(next.path);
    at = next;
  }
  return at === record ? undefined : at.path;
}

/**
 * Whether a scope glob covers a workspace-relative file: a glob through the workspace's one
 * matcher (the one `--context` globs use); a plain path is that file or everything under it.
 */
export function scopeCovers(glob: string, file: string): boolean {
  if (!isGlob(glob)) {
    const dir = glob.replace(/\/+$/, '');
    return file === dir || file.startsWith(`${dir}/`);
  }
  try {
    return globMatcher(glob).test(file);
  } catch {
    return false;
  }
}

/** The records whose scope covers `file` (workspace-relative), each with the first glob that does. */
export function governingDecisions(
  records: readonly DecisionRecord[],
  file: string,
): { record: DecisionRecord; glob: string }[] {
  const out: { record: DecisionRecord; glob: string }[] = [];
  for (const record of records) {
    const glob = record.scope.find((g) => scopeCovers(g, file));
    if (glob !== undefined) out.push({ record, glob });
  }
  return out;
}
