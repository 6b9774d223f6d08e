/**
 * Reading the workspace safely, for attached context and the read-only tools alike: the edge of
 * the workspace (real paths), secret-looking names, binary content, git-ignored files, and glob
 * expansion by a bounded walk. Nothing here writes to the disk.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { resolveInWorkspace } from '../meeting/evidence';

/** Largest file read whole, in bytes: past this a file is refused rather than half-hashed. */
export const MAX_FILE_BYTES = 2_000_000;
/** Most files a glob or folder expands to: a wider pattern is cut with a message. */
export const MAX_GLOB_FILES = 200;

/** Folders never walked: version control internals and dependency trees. */
const SKIP_DIRS = new Set(['.git', 'node_modules', '.hg', '.svn']);

/**
 * Names that commonly hold credentials. They are refused even when git tracks them: a meeting
 * sends its context to model vendors.
 */
const SECRET_NAME =
  /^(\.env(\..*)?|.*\.(pem|key|p12|pfx|keystore|jks|asc|gpg)|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|\.netrc|\.npmrc|\.pypirc|credentials(\..*)?|secrets?(\..*)?|.*\.tfvars)$/i;

export function looksSecret(rel: string): boolean {
  return rel.split('/').some((part, i, all) => (i === all.length - 1 ? SECRET_NAME.test(part) : part === '.ssh'));
}

/** True when the bytes look binary: a NUL in the first 8 KiB (git's own heuristic). */
export function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8_192).includes(0);
}

/** Pathspec excludes for `git diff`, so a diff never carries a secret-looking file either. */
export const SECRET_PATHSPEC_EXCLUDES = [
  ':(exclude,glob)**/.env*',
  ':(exclude,glob)**/*.pem',
  ':(exclude,glob)**/*.key',
  ':(exclude,glob)**/id_rsa*',
  ':(exclude,glob)**/credentials*',
];

export function git(root: string, args: string[], input?: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      'git',
      args,
      { cwd: root, maxBuffer: 8_000_000, timeout: 20_000, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } },
      (err, stdout) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 128) : 0;
        resolve({ code, stdout: String(stdout) });
      },
    );
    // Outside a repository git exits before reading its input: the write then fails with EPIPE,
    // which must not crash the process (the exit code already says what happened).
    child.stdin?.on('error', () => undefined);
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** The subset of workspace-relative paths git ignores (none outside a repository or without git). */
export async function gitIgnored(root: string, rels: string[]): Promise<Set<string>> {
  if (rels.length === 0) return new Set();
  const r = await git(root, ['check-ignore', '--stdin', '-z'], rels.join('\0') + '\0');
  if (r.code !== 0) return new Set();
  return new Set(r.stdout.split('\0').filter(Boolean));
}

/** Turns a glob (`*`, `**`, `?`) into a regex over `/`-separated relative paths. */
export function globRegex(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      out += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

export const isGlob = (p: string): boolean => /[*?]/.test(p);

/**
 * Workspace-relative files under `dir` (real path inside `realRoot`), sorted, at most `limit`.
 * Symlinks are not followed: a link out of the workspace is never walked into.
 */
export async function walkFiles(realRoot: string, dir: string, limit: number, match?: RegExp): Promise<string[]> {
  const out: string[] = [];
  const queue = [dir];
  while (queue.length > 0 && out.length < limit) {
    const current = queue.shift() as string;
    let entries;
    try {
      entries = await fs.readdir(current, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const full = path.join(current, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) queue.push(full);
      } else if (e.isFile()) {
        const rel = path.relative(realRoot, full).split(path.sep).join('/');
        if (!match || match.test(rel)) out.push(rel);
        if (out.length >= limit) break;
      }
    }
  }
  return out.sort();
}

export type ReadResult = { ok: true; rel: string; text: string } | { ok: false; path: string; reason: string };

/**
 * Reads one workspace file as text, or says in one line why not. `checkIgnored` is off when the
 * caller already filtered git-ignored paths in a batch.
 */
export async function readWorkspaceFile(
  root: string,
  file: string,
  opts: { realRoot?: string; checkIgnored?: boolean } = {},
): Promise<ReadResult> {
  const where = await resolveInWorkspace(root, file, opts.realRoot);
  if (where === 'outside_workspace') return { ok: false, path: file, reason: 'is outside the workspace' };
  if (where === 'missing') return { ok: false, path: file, reason: 'does not exist' };
  const { real, rel } = where;
  if (looksSecret(rel)) return { ok: false, path: rel, reason: 'looks like a secret (keys, .env, credentials)' };
  const st = await fs.stat(real);
  if (!st.isFile()) return { ok: false, path: rel, reason: 'is not a file' };
  if (st.size > MAX_FILE_BYTES) return { ok: false, path: rel, reason: `is larger than ${MAX_FILE_BYTES} bytes` };
  if (opts.checkIgnored !== false && (await gitIgnored(opts.realRoot ?? root, [rel])).has(rel))
    return { ok: false, path: rel, reason: 'is ignored by git' };
  const bytes = await fs.readFile(real);
  if (looksBinary(bytes)) return { ok: false, path: rel, reason: 'is a binary file' };
  return { ok: true, rel, text: bytes.toString('utf8') };
}
