/**
 * Where a rulebook's files come from: the work tree (what `roundtable decisions`, the Decisions
 * view and a meeting's briefing read), or a commit (what a review is held to: its base, never the
 * change under review). Both list and read through the workspace gate's rules; the loader
 * (rulebook.ts) parses what they return the same way.
 *
 * The work is bounded by names listed and bytes read, never by a count of records read: a folder
 * of 600 records is read whole (a cap on records read in name order would drop the ones that sort
 * last, which a change could arrange). What a bound leaves out is returned as `unread`.
 */
import { promises as fs } from 'node:fs';
import type { GateRead, Refusal, WorkspaceGate } from '../gate';
import { commitGate, type CommitFile } from '../gate/commit';
import { IGNORED } from '../gate/git';

/** Most file names listed in a decisions folder (and its subfolders). */
export const MAX_LISTED = 10_000;
/** Most bytes of records read in all (each file is at most the gate's MAX_FILE_BYTES). */
export const MAX_TOTAL_BYTES = 32_000_000;

const MARKDOWN = /\.md$/i;

export interface ListedFile {
  /** Workspace-relative, `/`-separated. */
  path: string;
}

export interface Listing<F extends ListedFile> {
  files: F[];
  /** Files the gate would not let through, each with its reason (git-ignored work-tree files are left out silently). */
  refused: Refusal[];
  /** The folder held more than `MAX_LISTED` Markdown files: the rest were not listed. */
  more: boolean;
}

export interface RecordSource<F extends ListedFile = ListedFile> {
  /** Where the files are read from, for people: `the work tree`, `commit 1a2b3c4`. */
  where: string;
  /** The folder (workspace-relative), or why it cannot be read (`missing`: it is not there). */
  folder(folder: string): Promise<{ rel: string } | { missing: boolean; reason: string }>;
  list(rel: string): Promise<Listing<F> | { error: string }>;
  /** Reads `files` in order until `maxBytes` (default MAX_TOTAL_BYTES) were read; the rest are `unread`. */
  read(files: F[], maxBytes?: number): Promise<{ read: GateRead[]; unread: F[] }>;
}

type TreeFile = ListedFile & { screened: boolean };

/** Symlinked `.md` files directly in the folder: the walk never follows a link, the gate judges where each points. */
async function symlinkedRecords(dirReal: string, folderRel: string): Promise<string[]> {
  const entries = await fs.readdir(dirReal, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isSymbolicLink() && MARKDOWN.test(e.name))
    .slice(0, MAX_LISTED)
    .map((e) => (folderRel ? `${folderRel}/${e.name}` : e.name));
}

/** The work tree, through the workspace gate. */
export function worktreeSource(gate: WorkspaceGate): RecordSource<TreeFile> {
  const real = new Map<string, string>();
  return {
    where: 'the work tree',
    async folder(folder) {
      const where = await gate.locate(folder);
      if ('reason' in where) return { missing: where.reason === 'does not exist', reason: where.reason };
      if (!(await fs.stat(where.real)).isDirectory()) return { missing: false, reason: 'is not a folder' };
      real.set(where.rel, where.real);
      return { rel: where.rel };
    },
    async list(rel) {
      const dir = real.get(rel) ?? (await gate.realRoot());
      const found = await gate.files({ dir, match: MARKDOWN, limit: MAX_LISTED });
      const links = await symlinkedRecords(dir, rel);
      return {
        files: [
          ...found.passed.map((path) => ({ path, screened: true })),
          ...links.map((path) => ({ path, screened: false })),
        ],
        refused: found.refused.filter((r) => r.reason !== IGNORED),
        more: found.more,
      };
    },
    async read(files, maxBytes = MAX_TOTAL_BYTES) {
      const read: GateRead[] = [];
      let bytes = 0;
      for (const [i, f] of files.entries()) {
        const r = await gate.read(f.path, { screened: f.screened });
        // A work-tree file git ignores is someone's draft, not a record: left out without a word.
        if (!r.ok && r.reason === IGNORED) continue;
        bytes += r.ok ? Buffer.byteLength(r.text) : 0;
        if (bytes > maxBytes) return { read, unread: files.slice(i) };
        read.push(r);
      }
      return { read, unread: [] };
    },
  };
}

/** A commit's tree (a review's base), through the gate's rules at that commit. */
export function commitSource(gate: WorkspaceGate, commit: string): RecordSource<CommitFile> {
  const at = commitGate(gate, commit);
  return {
    where: at.short(),
    async folder(folder) {
      const where = await at.folder(folder);
      return 'reason' in where ? { missing: where.missing, reason: where.reason } : where;
    },
    async list(rel) {
      const found = await at.files(rel, { match: MARKDOWN, limit: MAX_LISTED });
      return 'error' in found ? found : { files: found.passed, refused: found.refused, more: found.more };
    },
    async read(files, maxBytes = MAX_TOTAL_BYTES) {
      // The sizes are known before reading: what fits the bound is read in one git call.
      let bytes = 0;
      let fit = files.length;
      for (const [i, f] of files.entries()) {
        bytes += f.bytes;
        if (bytes > maxBytes) {
          fit = i;
          break;
        }
      }
      return { read: await at.read(files.slice(0, fit)), unread: files.slice(fit) };
    },
  };
}
