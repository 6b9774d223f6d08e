/**
 * The rulebook: every decision record in the decisions folder, read through the workspace gate
 * (no secret, no ignored file, nothing outside the workspace, symlinks included) from the work
 * tree or from a commit (a review's base: source.ts), parsed, and linked both ways (what
 * superseded what). Bounded by the names listed and the bytes read, never by a count of records
 * (source.ts): what a bound left out is `unread`, and said in the notes.
 *
 * Supersession, both ways: a record that says "superseded by B" is superseded and B supersedes it;
 * a record B that says "supersedes A" replaces A only once B is accepted (a proposal that would
 * replace A leaves A in force), and then A is superseded by B even if A's own file still says
 * accepted (people forget to edit the old record).
 */
import * as path from 'node:path';
import { isGlob, type SkippedFile, type Unstatused } from '@roundtable/protocol';
import type { Refusal, WorkspaceGate } from '../gate';
import { globMatcher } from '../gate/glob';
import type { DecisionRecord, RecordLink } from './record';
import { readRecord, skippedByName } from './recordRule';
import { MAX_LISTED, MAX_TOTAL_BYTES, commitSource, worktreeSource, type RecordSource } from './source';

/** Whether a Markdown file of a decisions folder is read as a record by its name (./recordRule.ts: not a readme, index or template). */
export const isRecordFile = (rel: string, folder?: string): boolean => skippedByName(rel, folder) === undefined;

export interface Rulebook {
  ok: true;
  /** The folder as asked (workspace-relative). */
  folder: string;
  /** Where it was read: `the work tree`, or `commit 1a2b3c4`. */
  from: string;
  records: DecisionRecord[];
  /** Files the gate would not let through, each with its reason. */
  refused: Refusal[];
  /** Files that are not records (./recordRule.ts), each with why. */
  skipped: SkippedFile[];
  /** Records a bound left unread (names past MAX_LISTED, bytes past MAX_TOTAL_BYTES), or a listing git could not give. */
  unread: Refusal[];
  /** What was left out or could not be read as written, one line each. */
  notes: string[];
}

export type RulebookRead = Rulebook | { ok: false; folder: string; missing: boolean; reason: string };

/** A rulebook with no records: a folder that is not there, or one whose listing could not be read (`unread`, said). */
export function emptyRulebook(folder: string, from: string, unread?: Refusal): Rulebook {
  return {
    ok: true,
    folder,
    from,
    records: [],
    refused: [],
    skipped: [],
    unread: unread ? [unread] : [],
    notes: unread ? [unread.reason] : [],
  };
}

/**
 * Reads and parses every record in `folder` (workspace-relative) through the gate: from the work
 * tree, or from the commit `at` (a full object id) when given; `unstatused` as ./record.ts reads it.
 */
export async function loadDecisions(opts: {
  gate: WorkspaceGate;
  folder: string;
  at?: string;
  /** The bound on bytes read (default MAX_TOTAL_BYTES; smaller in tests). */
  maxBytes?: number;
  unstatused?: Unstatused;
}): Promise<RulebookRead> {
  const { gate, folder } = opts;
  const source: RecordSource = opts.at ? commitSource(gate, opts.at) : worktreeSource(gate);
  const where = await source.folder(folder);
  if ('reason' in where) return { ok: false, folder, missing: where.missing, reason: where.reason };
  const base = { ok: true as const, folder, from: source.where };
  const listed = await source.list(where.rel);
  if ('error' in listed) return emptyRulebook(folder, source.where, { path: folder, reason: listed.error });
  const unread: Refusal[] = [];
  if (listed.more)
    unread.push({ path: folder, reason: `holds more than ${MAX_LISTED} Markdown files: the rest were not listed` });
  const refused = [...listed.refused];
  const records: DecisionRecord[] = [];
  const notes: string[] = [];
  const skipped: SkippedFile[] = [];
  const maxBytes = opts.maxBytes ?? MAX_TOTAL_BYTES;
  const named = listed.files.filter((f) => {
    const byName = skippedByName(f.path, where.rel);
    if (byName) skipped.push({ path: f.path, reason: byName });
    return byName === undefined;
  });
  const read = await source.read(named, maxBytes);
  for (const r of read.read) {
    if (!r.ok) {
      refused.push({ path: r.path, reason: r.reason });
      continue;
    }
    const parsed = readRecord(r.rel, r.text, {
      folder: where.rel,
      ...(opts.unstatused ? { unstatused: opts.unstatused } : {}),
    });
    if (!parsed.ok) {
      skipped.push({ path: r.rel, reason: parsed.reason });
      continue;
    }
    const rec = parsed.record;
    notes.push(...rec.notes.map((n) => `${rec.path}: ${n}`));
    records.push({ ...rec, sha256: r.sha256, redacted: r.redacted });
  }
  const past = `past the ${maxBytes.toLocaleString('en-US')} bytes of records read in all`;
  unread.push(...read.unread.map((f) => ({ path: f.path, reason: `was not read: ${past}` })));
  if (listed.more) notes.push(`more than ${MAX_LISTED} files in ${folder}: the rest were not listed`);
  if (read.unread.length)
    notes.push(`${read.unread.length} record(s) ${past} were not read (from ${read.unread[0]?.path} on)`);
  const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  records.sort(byPath);
  // Skipped by name when listed, or by content when read: one list in path order either way.
  skipped.sort(byPath);
  notes.push(...linkSupersession(records, folder));
  return { ...base, records, refused, skipped, unread, notes };
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
