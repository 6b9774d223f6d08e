/**
 * The workspace gate: every byte read from the workspace for a model passes here (attached files,
 * folders and globs, the selection, the git diff, `read_file`, `search`, `list_files`, decision
 * records, evidence checks). For one path and its content it decides whether it may leave the
 * machine, and when not says why in one line:
 *
 *  - the path must stay inside the workspace on its real path (a symlink out is refused);
 *  - never version control internals (any `.git` segment, `.hg`, `.svn`, ...);
 *  - never a git-ignored file (asked per path when git's batch fails; unanswered is refused);
 *  - never a secret-looking name (names.ts: keys and their backups, credential and token files);
 *  - never a binary or an oversized file;
 *  - content screened for secrets (content.ts): a private key refuses the file, a token is
 *    redacted in place.
 *
 * Readers never open workspace files themselves: they ask the gate for the text that may be sent,
 * and its sha256 (of what is sent, after redaction).
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Evidence } from '@roundtable/protocol';
import { leavesFolder } from '@roundtable/client/outputDir';
import { lineStartsOf, screenContent, type Redaction } from './content';
import { readDiff } from './diff';
import { filterOverrides, ignoredPaths, repository } from './git';
import { gitconfigHoldsCredentials, refusedByName } from './names';
import type { GlobMatcher } from './glob';
import { walkFiles } from './walk';

/** Largest file read whole, in bytes: past this a file is refused rather than half-read. */
export const MAX_FILE_BYTES = 2_000_000;

/** A path the gate keeps in, and why (one line, read after the path: "`.env` has a secret-looking name"). */
export interface Refusal {
  path: string;
  reason: string;
}

/** What may be sent of one file: its text (secrets redacted), the sha256 of that text, the redactions. */
export interface Passed {
  rel: string;
  text: string;
  sha256: string;
  redacted: Redaction[];
}

export type GateRead = ({ ok: true } & Passed) | ({ ok: false } & Refusal);

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** True when `rel` (a path relative to the workspace) climbs out of it: `..` or `../x`, not `..hidden`. */

const slash = (p: string): string => p.split(path.sep).join('/');

/** True when the bytes look binary: a NUL in the first 8 KiB (git's own heuristic). */
export function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8_192).includes(0);
}

export class WorkspaceGate {
  readonly root: string;
  private realRootP: Promise<string> | undefined;
  private repoP: Promise<'yes' | 'no' | 'unknown'> | undefined;

  constructor(workspace: string) {
    this.root = path.resolve(workspace);
  }

  /** The workspace's real path (symlinks resolved), where every rule is applied. */
  realRoot(): Promise<string> {
    return (this.realRootP ??= fs.realpath(this.root).catch(() => this.root));
  }

  private async repo(): Promise<'yes' | 'no' | 'unknown'> {
    return (this.repoP ??= this.realRoot().then(repository));
  }

  /**
   * Where `file` is on its real path inside the workspace, or why it may not be read: outside
   * (lexically, without touching the disk, or through a symlink), missing, or version control
   * internals or a secret-looking name (on the path as asked and on the real path, so a link
   * named `notes.txt` to `id_rsa` is refused too).
   */
  async locate(file: string): Promise<{ real: string; rel: string } | Refusal> {
    if (file.trim() === '' || file.includes('\0')) return { path: file, reason: 'does not exist' };
    const full = path.resolve(this.root, file);
    const asked = path.relative(this.root, full);
    if (leavesFolder(asked)) return { path: file, reason: 'is outside the workspace' };
    let real: string;
    try {
      real = await fs.realpath(full);
    } catch {
      return { path: file, reason: 'does not exist' };
    }
    const rel = path.relative(await this.realRoot(), real);
    if (leavesFolder(rel)) return { path: file, reason: 'is outside the workspace' };
    const byName = refusedByName(slash(asked));
    if (byName) return { path: file, reason: byName };
    const realByName = refusedByName(slash(rel));
    if (realByName) return { path: file, reason: `points at ${slash(rel)}, which ${realByName}` };
    return { real, rel: slash(rel) };
  }

  /**
   * The rules on paths alone, for many at once (names, then git-ignored in one git call): the
   * paths that may be read, and one refusal per path that may not.
   */
  async screenPaths(rels: string[]): Promise<{ passed: string[]; refused: Refusal[] }> {
    const refused: Refusal[] = [];
    const named: string[] = [];
    for (const rel of rels) {
      const why = refusedByName(rel);
      if (why) refused.push({ path: rel, reason: why });
      else named.push(rel);
    }
    const ignored = await ignoredPaths(await this.realRoot(), named, await this.repo());
    const passed: string[] = [];
    for (const rel of named) {
      const why = ignored.get(rel);
      if (why) refused.push({ path: rel, reason: why });
      else passed.push(rel);
    }
    return { passed, refused };
  }

  /**
   * Everything the gate decides for one file: where it is, its name, git-ignored (skipped when
   * `screened`: the caller already asked `screenPaths` in a batch), size, binary, and its content.
   * The text returned is what may be sent: secrets redacted in place.
   */
  async read(file: string, opts: { screened?: boolean } = {}): Promise<GateRead> {
    const where = await this.locate(file);
    if ('reason' in where) return { ok: false, ...where };
    const { real, rel } = where;
    const st = await fs.stat(real);
    if (!st.isFile()) return { ok: false, path: rel, reason: 'is not a file' };
    if (st.size > MAX_FILE_BYTES) return { ok: false, path: rel, reason: `is larger than ${MAX_FILE_BYTES} bytes` };
    if (!opts.screened) {
      const s = await this.screenPaths([rel]);
      if (s.refused[0]) return { ok: false, ...s.refused[0] };
    }
    const bytes = await fs.readFile(real);
    if (looksBinary(bytes)) return { ok: false, path: rel, reason: 'is a binary file' };
    return this.pass(rel, bytes.toString('utf8'));
  }

  /** The content rules on text read from `rel` (a file, its diff, or its blob at a commit). */
  async pass(rel: string, text: string): Promise<GateRead> {
    if (gitconfigHoldsCredentials(rel, text))
      return { ok: false, path: rel, reason: 'is a git config that holds credentials' };
    const s = await screenContent(text);
    if (!s.ok) return { ok: false, path: rel, reason: s.reason };
    return { ok: true, rel, text: s.text, sha256: sha256(s.text), redacted: s.redacted };
  }

  /**
   * The files under `dir` (a real path inside the workspace; default the workspace) that match
   * `match`, screened by path: what may be listed or read. `more` when the walk hit `limit`.
   */
  async files(opts: {
    dir?: string;
    match?: GlobMatcher;
    limit: number;
  }): Promise<{ passed: string[]; refused: Refusal[]; more: boolean }> {
    const realRoot = await this.realRoot();
    const found = await walkFiles(realRoot, opts.dir ?? realRoot, opts.limit + 1, opts.match);
    const more = found.length > opts.limit;
    const s = await this.screenPaths(found.slice(0, opts.limit));
    return { ...s, more };
  }

  /**
   * The git diff (`what`: `--staged`, a ref, or nothing for the unstaged changes) in one git
   * process, then file by file through the gate: a file the gate refuses (its name, git-ignored,
   * binary, too large, a private key) is left out with its reason, the others are screened for
   * secrets and joined. `error` when git could not diff at all.
   */
  async diff(
    what: string[],
  ): Promise<
    { error: string } | { text: string; sha256: string; redacted: Redaction[]; refused: Refusal[]; files: Passed[] }
  > {
    const realRoot = await this.realRoot();
    // Nothing of the repository's own config may run a program: no external diff, textconv or filter.
    const d = await readDiff(realRoot, what, { extra: await filterOverrides(realRoot), maxBytes: MAX_FILE_BYTES });
    if ('error' in d) return d;
    const left = (reason: string) => `${reason}; left out of the git diff`;
    const refused: Refusal[] = [];
    const diffs = new Map<string, string>();
    for (const f of d.files) {
      if ('reason' in f) refused.push({ path: f.path, reason: left(f.reason) });
      else diffs.set(f.path, f.text);
    }
    const screened = await this.screenPaths([...diffs.keys()]);
    refused.push(...screened.refused.map((r) => ({ path: r.path, reason: left(r.reason) })));
    let text = '';
    let lines = 0;
    const redacted: Redaction[] = [];
    // Each file's diff as it passed, for readers that take a change file by file (a review).
    const passed: Passed[] = [];
    for (const rel of screened.passed) {
      const r = await this.pass(rel, diffs.get(rel) as string);
      if (!r.ok) {
        refused.push({ path: rel, reason: left(r.reason) });
        continue;
      }
      redacted.push(...r.redacted.map((x) => ({ ...x, line: x.line + lines })));
      text += r.text;
      // Its newlines: the lines this diff adds before the next one starts.
      lines += lineStartsOf(r.text).length - 1;
      passed.push(r);
    }
    return { text, sha256: sha256(text), redacted, refused, files: passed };
  }

  /**
   * The status of a file a ballot cites: `outside_workspace`, `missing` (or a folder: nothing that
   * can be read), `refused` when the gate would not let it be read, else `exists`.
   */
  async evidence(file: string): Promise<Evidence['status']> {
    const clean = file.replace(/#.*$/, '').replace(/:\d+(-\d+)?$/, '');
    const where = await this.locate(clean);
    if ('reason' in where)
      return where.reason === 'is outside the workspace'
        ? 'outside_workspace'
        : where.reason === 'does not exist'
          ? 'missing'
          : 'refused';
    const st = await fs.stat(where.real).catch(() => undefined);
    if (!st?.isFile()) return 'missing';
    return (await this.read(clean)).ok ? 'exists' : 'refused';
  }
}

/** The gate of one workspace folder. */
export function workspaceGate(workspace: string): WorkspaceGate {
  return new WorkspaceGate(workspace);
}
