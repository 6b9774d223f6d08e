/**
 * The workspace gate at a commit: files as a commit holds them (a review's rulebook is read from
 * its base, never from the change), judged by the same rules as the work tree's (index.ts) and
 * never read from the disk:
 *
 *  - names: version control internals and secret-looking names (names.ts);
 *  - git-ignored by the commit's own `.gitignore` files (and the machine's `info/exclude` and
 *    `core.excludesFile`), judged as git judges a file it does not track: a change that edits
 *    `.gitignore` in the work tree cannot hide a record the commit holds;
 *  - a symbolic link is not followed, a submodule is not a file, a blob past `MAX_FILE_BYTES` or
 *    with a NUL in its first 8 KiB is refused;
 *  - content screened for secrets (a private key refuses the file, a token is redacted).
 *
 * Paths are data: they reach git only inside `<commit>:<path>` arguments (never a pathspec, a
 * pattern or a shell) and come back NUL-separated (`-z`); blobs are read by object id through one
 * `git cat-file --batch`, which applies no filter or textconv.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ensureDir, leavesFolder } from '@roundtable/client/outputDir';
import { MAX_FILE_BYTES, looksBinary, type GateRead, type Refusal, type WorkspaceGate } from './index';
import type { GlobMatcher } from './glob';
import { IGNORED, UNANSWERED, git, gitBytes } from './git';
import { refusedByName } from './names';

/** A file of the commit's tree: workspace-relative path, blob id and size in bytes. */
export interface CommitFile {
  path: string;
  oid: string;
  bytes: number;
}

/** Most bytes of tree listing read (a folder of 100,000 files lists in about 10 MB). */
const MAX_LISTING_BYTES = 64_000_000;

/** `<mode> <type> <oid> <size>\t<path>` as `git ls-tree -l -z` writes one entry. */
const ENTRY = /^(\d{6}) (\w+) ([0-9a-f]{40,64}) +(\d+|-)\t([\s\S]+)$/;

const posix = (p: string): string =>
  path.posix
    .normalize(p.split(path.sep).join('/'))
    .replace(/^\.\/?$/, '')
    .replace(/\/+$/, '');

export class CommitGate {
  private prefixP: Promise<string> | undefined;

  /** `commit`: a full object id the caller resolved (`git rev-parse --verify`). */
  constructor(
    private readonly gate: WorkspaceGate,
    readonly commit: string,
  ) {}

  /** The workspace's path from the top of the repository (`sub/` when the workspace is a subfolder). */
  private prefix(): Promise<string> {
    return (this.prefixP ??= this.gate
      .realRoot()
      .then((root) => git(root, ['rev-parse', '--show-prefix']))
      .then((r) => (r.code === 0 ? r.stdout.trim() : '')));
  }

  /** `<commit>:<path>` for a workspace-relative path (the commit's root tree for the workspace's top). */
  private async spec(rel: string): Promise<string> {
    const full = posix(`${await this.prefix()}${rel}`);
    return full === '' ? `${this.commit}^{tree}` : `${this.commit}:${full}`;
  }

  /** What `rel` is at the commit: `tree`, `blob`, or undefined when the commit has nothing there. */
  private async typeOf(rel: string): Promise<string | undefined> {
    const r = await git(await this.gate.realRoot(), ['cat-file', '-t', await this.spec(rel)]);
    return r.code === 0 ? r.stdout.trim() : undefined;
  }

  /** A folder of the commit (workspace-relative), or why it cannot be listed. */
  async folder(folder: string): Promise<{ rel: string } | (Refusal & { missing: boolean })> {
    const rel = posix(folder);
    if (folder.includes('\0') || leavesFolder(rel) || rel.startsWith('../'))
      return { path: folder, reason: 'is outside the workspace', missing: false };
    const byName = rel ? refusedByName(rel) : undefined;
    if (byName) return { path: folder, reason: byName, missing: false };
    const type = await this.typeOf(rel);
    if (type === undefined) return { path: folder, reason: `does not exist in ${this.short()}`, missing: true };
    if (type !== 'tree') return { path: folder, reason: `is not a folder in ${this.short()}`, missing: false };
    return { rel };
  }

  short(): string {
    return `commit ${this.commit.slice(0, 7)}`;
  }

  /**
   * The files under `folder` at the commit matching `match`, sorted, at most `limit`, screened by
   * name, size, kind and the commit's ignore rules. `more` when the folder held more.
   */
  async files(
    folder: string,
    opts: { match: GlobMatcher; limit: number },
  ): Promise<{ passed: CommitFile[]; refused: Refusal[]; more: boolean } | { error: string }> {
    const root = await this.gate.realRoot();
    const listing = await gitBytes(root, ['ls-tree', '-r', '-l', '-z', '--full-tree', await this.spec(folder)], {
      maxBuffer: MAX_LISTING_BYTES,
    });
    if (listing.code !== 0)
      return { error: `git could not list ${folder || 'the workspace'} in ${this.short()} (exit ${listing.code})` };
    const under = folder ? `${folder}/` : '';
    const found: (CommitFile & { mode: string })[] = [];
    const refused: Refusal[] = [];
    let more = false;
    for (const raw of listing.stdout.toString('utf8').split('\0')) {
      const m = ENTRY.exec(raw);
      if (!m) continue;
      const [, mode = '', type, oid = '', size = '-', name = ''] = m;
      const rel = `${under}${name}`;
      if (type !== 'blob' || !opts.match.test(rel)) continue;
      if (found.length >= opts.limit) {
        more = true;
        break;
      }
      found.push({ path: rel, oid, bytes: size === '-' ? 0 : Number(size), mode });
    }
    found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const named: CommitFile[] = [];
    for (const f of found) {
      const why =
        refusedByName(f.path) ??
        (f.mode === '120000' ? `is a symbolic link in ${this.short()}: not followed` : undefined) ??
        (f.bytes > MAX_FILE_BYTES ? `is larger than ${MAX_FILE_BYTES} bytes` : undefined);
      if (why) refused.push({ path: f.path, reason: why });
      else named.push({ path: f.path, oid: f.oid, bytes: f.bytes });
    }
    const ignored = await this.ignored(named.map((f) => f.path));
    const passed = named.filter((f) => {
      const why = ignored.get(f.path);
      if (why) refused.push({ path: f.path, reason: why === IGNORED ? `${IGNORED} in ${this.short()}` : why });
      return !why;
    });
    return { passed, refused, more };
  }

  /**
   * The paths the commit's own ignore rules ignore, with the reason. The commit's `.gitignore`
   * files on the way to each path are written to a scratch work tree and git is asked there
   * (`check-ignore --no-index`, with the repository's git dir for `info/exclude`); when git
   * cannot answer, every path is refused (fail closed, as the work tree's gate does).
   */
  private async ignored(rels: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (rels.length === 0) return out;
    const root = await this.gate.realRoot();
    const prefix = await this.prefix();
    const gitDir = await git(root, ['rev-parse', '--absolute-git-dir']);
    const scratch = await mkdtemp(path.join(tmpdir(), 'rt-commit-gate-'));
    try {
      const dirs = new Set<string>(['']);
      for (const rel of rels) {
        const parts = `${prefix}${rel}`.split('/').slice(0, -1);
        for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
      }
      const written = await this.writeIgnoreFiles(root, [...dirs], scratch);
      const asked = rels.map((r) => `${prefix}${r}`);
      const r =
        gitDir.code === 0 && written
          ? await git(
              scratch,
              [
                `--git-dir=${gitDir.stdout.trim()}`,
                `--work-tree=${scratch}`,
                'check-ignore',
                '--no-index',
                '--stdin',
                '-z',
              ],
              `${asked.join('\0')}\0`,
            )
          : { code: 128, stdout: '' };
      if (r.code !== 0 && r.code !== 1) {
        for (const rel of rels) out.set(rel, UNANSWERED);
        return out;
      }
      const hit = new Set(r.stdout.split('\0').filter(Boolean));
      for (const rel of rels) if (hit.has(`${prefix}${rel}`)) out.set(rel, IGNORED);
      return out;
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  /** Each folder's `.gitignore` at the commit (a regular file only) into `scratch`; false when git failed. */
  private async writeIgnoreFiles(root: string, dirs: string[], scratch: string): Promise<boolean> {
    for (const dir of dirs) {
      await ensureDir(path.join(scratch, ...dir.split('/').filter(Boolean)));
      const tree = dir === '' ? `${this.commit}^{tree}` : `${this.commit}:${dir}`;
      const list = await gitBytes(root, ['ls-tree', '--full-tree', '-z', tree], { maxBuffer: MAX_LISTING_BYTES });
      if (list.code !== 0) continue; // a folder the commit does not have: nothing to ignore there
      const entry = list.stdout
        .toString('utf8')
        .split('\0')
        .map((e) => /^100(?:644|755) blob ([0-9a-f]{40,64})\t\.gitignore$/.exec(e))
        .find(Boolean);
      if (!entry) continue;
      const blob = await gitBytes(root, ['cat-file', 'blob', entry[1] as string], { maxBuffer: MAX_FILE_BYTES });
      if (blob.code !== 0) return false;
      await writeFile(path.join(scratch, ...dir.split('/').filter(Boolean), '.gitignore'), blob.stdout);
    }
    return true;
  }

  /** Reads the files' blobs (one `git cat-file --batch`) and applies the content rules to each, in order. */
  async read(files: readonly CommitFile[]): Promise<GateRead[]> {
    if (files.length === 0) return [];
    const root = await this.gate.realRoot();
    const total = files.reduce((n, f) => n + f.bytes + 200, 0);
    const r = await gitBytes(root, ['cat-file', '--batch'], {
      input: `${files.map((f) => f.oid).join('\n')}\n`,
      maxBuffer: total + 1_000_000,
    });
    const blobs = r.code === 0 ? splitBatch(r.stdout) : new Map<string, Buffer>();
    const out: GateRead[] = [];
    for (const f of files) {
      const bytes = blobs.get(f.oid);
      if (!bytes) out.push({ ok: false, path: f.path, reason: `could not be read from ${this.short()}` });
      else if (looksBinary(bytes)) out.push({ ok: false, path: f.path, reason: 'is a binary file' });
      else out.push(await this.gate.pass(f.path, bytes.toString('utf8')));
    }
    return out;
  }
}

/** `git cat-file --batch` output: `<oid> <type> <size>\n<bytes>\n` per object (`<oid> missing\n` when absent). */
function splitBatch(out: Buffer): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  let at = 0;
  while (at < out.length) {
    const nl = out.indexOf(0x0a, at);
    if (nl < 0) break;
    const head = /^([0-9a-f]{40,64}) (\w+) (\d+)$/.exec(out.subarray(at, nl).toString('latin1'));
    if (!head) {
      at = nl + 1;
      continue;
    }
    const size = Number(head[3]);
    const body = out.subarray(nl + 1, nl + 1 + size);
    if (body.length < size) break;
    if (head[2] === 'blob') blobs.set(head[1] as string, body);
    at = nl + 1 + size + 1;
  }
  return blobs;
}

/** The gate of `gate`'s workspace at `commit` (a full object id). */
export function commitGate(gate: WorkspaceGate, commit: string): CommitGate {
  return new CommitGate(gate, commit);
}
