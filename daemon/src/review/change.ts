/**
 * The change a review reads: which commits (the merge base of HEAD with `--base`, or with the
 * default branch), or the work tree against HEAD; then the diff file by file through the workspace
 * gate (no secret, no ignored file, as `--diff` reads it), each file with the new-side line ranges
 * its hunks cover.
 */
import type { LineRange, ReviewRequest } from '@roundtable/protocol';
import type { Passed, Refusal, WorkspaceGate } from '../gate';
import { git } from '../gate/git';

/** One changed file as it may be shown: its diff (secrets redacted) and the new-side ranges of its hunks. */
export interface ChangedFile {
  file: string;
  diff: Passed;
  ranges: LineRange[];
}

export interface Change {
  /** What was diffed, for people: "the work tree against HEAD", "changes since main (merge base 1a2b3c4)". */
  label: string;
  /** The `git diff` arguments (the merge base's full hash, or HEAD). */
  against: string;
  /** The base as named (`--base`, the default branch), when the change is not the work tree's. */
  base?: string;
  /** The commit HEAD was at when the change was read (for the work tree, the commit it is diffed against). */
  head: string;
  files: ChangedFile[];
  /** Files of the change the gate kept back, each with its reason. */
  refused: Refusal[];
}

/** A review that cannot start: one line saying why (the daemon answers `bad_request`). */
export class ChangeError extends Error {
  override name = 'ChangeError';
}

/** `@@ -a,b +c,d @@`: the new side starts at c and spans d lines (1 when d is left out). */
const HUNK = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/;

/**
 * The new-side ranges of a file's hunks. A hunk that only deletes (d = 0) names the line after
 * which it deleted: a finding about the deletion may cite that line.
 */
export function hunkRanges(diff: string): LineRange[] {
  const out: LineRange[] = [];
  for (const line of diff.split('\n')) {
    const m = HUNK.exec(line);
    if (!m) continue;
    const start = Number(m[1]);
    const count = m[2] === undefined ? 1 : Number(m[2]);
    const from = Math.max(1, start);
    out.push({ start: from, end: Math.max(from, start + count - 1) });
  }
  return out;
}

export async function commitOf(root: string, ref: string): Promise<string | undefined> {
  const r = await git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  return r.code === 0 ? r.stdout.trim() : undefined;
}

/** The default branch: what origin/HEAD points at, else main, else master. */
async function defaultBranch(root: string): Promise<string | undefined> {
  const origin = await git(root, ['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD']);
  if (origin.code === 0 && origin.stdout.trim()) return origin.stdout.trim();
  for (const name of ['main', 'master']) if (await commitOf(root, name)) return name;
  return undefined;
}

/**
 * What to diff against: HEAD for the work tree, else the merge base of HEAD with the base. The CLI
 * asks it too, before any server: a base that is not there is bad usage, said first.
 */
export async function against(
  root: string,
  req: ReviewRequest,
): Promise<{ label: string; against: string; base?: string; head: string }> {
  const head = await commitOf(root, 'HEAD');
  if (!head) throw new ChangeError('review: the workspace is not a git repository with a commit');
  if (req.worktree) return { label: 'the work tree against HEAD', against: 'HEAD', head };
  const base = req.base ?? (await defaultBranch(root));
  if (!base)
    throw new ChangeError(
      'review: no default branch (no origin/HEAD, main or master): give the base to review against (--base REF)',
    );
  if (!(await commitOf(root, base)))
    throw new ChangeError(`review: the base "${base}" is not a commit in this repository`);
  const mb = await git(root, ['merge-base', base, 'HEAD']);
  const hash = mb.stdout.trim();
  if (mb.code !== 0 || !hash) throw new ChangeError(`review: "${base}" and HEAD share no history: nothing to compare`);
  return {
    label: `the changes since ${base} (merge base ${hash.slice(0, 7)}) and the work tree`,
    against: hash,
    base,
    head,
  };
}

/** Reads the change through the gate. Throws a `ChangeError` (one line) when there is nothing it can diff. */
export async function collectChange(gate: WorkspaceGate, req: ReviewRequest): Promise<Change> {
  const root = await gate.realRoot();
  const what = await against(root, req);
  const d = await gate.diff([what.against]);
  if ('error' in d) throw new ChangeError(`review: git diff ${what.against} ${d.error}`);
  // A deleted file has no new side: no line of it can be cited.
  const files = d.files.map((diff) => ({
    file: diff.rel,
    diff,
    ranges: /^\+\+\+ \/dev\/null$/m.test(diff.text) ? [] : hunkRanges(diff.text),
  }));
  return { ...what, files, refused: d.refused };
}
