/**
 * git, as the gate runs it: never a hook, fsmonitor or pager of the repository's own config (a
 * hostile repository could name a program there), and git-ignored paths decided per path when
 * the batch cannot be answered (fail closed).
 */
import { execFile, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Settings that stop a repository's config from running a program while the gate reads it
 * (`log.showSignature` would run gpg on every commit `git log` shows).
 */
const SAFE = [
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.pager=cat',
  '-c',
  'log.showSignature=false',
];

const gitEnv = (): NodeJS.ProcessEnv => ({ ...process.env, GIT_OPTIONAL_LOCKS: '0' });

interface RunOptions {
  input?: string;
  maxBuffer?: number;
  extra?: string[];
}

/**
 * git run once, its output kept whole: `git` and `gitBytes` are this with `utf8` and `buffer`.
 * `utf8` is decoded by execFile as it comes, so `maxBuffer` counts the decoded text's UTF-8 bytes
 * (an invalid byte counts three, as the replacement character it became) and output past it is
 * cut by characters: decoding bytes afterwards would not be the same call.
 */
function run(
  root: string,
  args: string[],
  opts: RunOptions,
  encoding: 'utf8',
): Promise<{ code: number; stdout: string }>;
function run(
  root: string,
  args: string[],
  opts: RunOptions,
  encoding: 'buffer',
): Promise<{ code: number; stdout: Buffer }>;
function run(
  root: string,
  args: string[],
  opts: RunOptions,
  encoding: 'utf8' | 'buffer',
): Promise<{ code: number; stdout: string | Buffer }> {
  return new Promise((resolve) => {
    const child = execFile(
      'git',
      [...SAFE, ...(opts.extra ?? []), ...args],
      { cwd: root, encoding, maxBuffer: opts.maxBuffer ?? 8_000_000, timeout: 20_000, env: gitEnv() },
      (err, stdout) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 128) : 0;
        resolve({ code, stdout });
      },
    );
    // Outside a repository git exits before reading its input: the write then fails with EPIPE,
    // which must not crash the process (the exit code already says what happened).
    child.stdin?.on('error', () => undefined);
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

export function git(
  root: string,
  args: string[],
  input?: string,
  extra: string[] = [],
): Promise<{ code: number; stdout: string }> {
  return run(root, args, { input, extra }, 'utf8');
}

/**
 * git with its output read as it comes (`onData` per chunk), for output that grows with the
 * repository: nothing of it is buffered here. `code` 128 when git could not run; `timedOut` when
 * it was killed after `timeoutMs`.
 */
export function gitStream(
  root: string,
  args: string[],
  opts: { extra?: string[]; timeoutMs: number; onData: (chunk: Buffer) => void },
): Promise<{ code: number; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn('git', [...SAFE, ...(opts.extra ?? []), ...args], {
      cwd: root,
      env: gitEnv(),
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.stdout.on('data', opts.onData);
    let settled = false;
    const done = (code: number) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ code, timedOut });
    };
    child.on('error', () => done(128));
    child.on('close', (code) => done(code ?? 128));
  });
}

/**
 * git as `git` runs it, with its output as bytes (blobs are read whole and judged binary or text
 * by the gate, never decoded by the shell or a filter). `maxBuffer`: the most bytes kept (past it
 * git is stopped and the call fails).
 */
export function gitBytes(
  root: string,
  args: string[],
  opts: { input?: string; maxBuffer?: number; extra?: string[] } = {},
): Promise<{ code: number; stdout: Buffer }> {
  return run(root, args, opts, 'buffer');
}

/**
 * Whether `root` is inside a git work tree: `yes`, `no` (no repository, or no git: nothing is
 * ignored), or `unknown` (a `.git` is there but git cannot read it: every path is refused).
 */
export async function repository(root: string): Promise<'yes' | 'no' | 'unknown'> {
  const r = await git(root, ['rev-parse', '--is-inside-work-tree']);
  if (r.code === 0 && r.stdout.trim() === 'true') return 'yes';
  const dotGit = await fs.lstat(path.join(root, '.git')).catch(() => undefined);
  return dotGit ? 'unknown' : 'no';
}

export const IGNORED = 'is ignored by git';
export const UNANSWERED = 'could not be checked against .gitignore (git failed for this path), so it is refused';

/** One path asked alone: git check-ignore exits 0 (ignored), 1 (not ignored) or fails (undefined). */
async function askGit(root: string, rel: string): Promise<string | null | undefined> {
  const r = await git(root, ['check-ignore', '--stdin', '-z'], `${rel}\0`);
  return r.code === 0 ? IGNORED : r.code === 1 ? null : undefined;
}

/**
 * One path the batch could not answer for. A path inside a submodule is the submodule's to
 * answer (the superproject's rules do not reach into it): the nearest folder above it with its
 * own `.git` is asked. When no git can answer, the path is refused.
 */
async function checkOne(root: string, rel: string): Promise<string | undefined> {
  const own = await askGit(root, rel);
  if (own !== undefined) return own ?? undefined;
  const parts = rel.split('/');
  for (let i = parts.length - 1; i > 0; i--) {
    const dir = parts.slice(0, i).join('/');
    if (!(await fs.lstat(path.join(root, dir, '.git')).catch(() => undefined))) continue;
    const inner = await askGit(path.join(root, dir), parts.slice(i).join('/'));
    return inner === undefined ? UNANSWERED : (inner ?? undefined);
  }
  return UNANSWERED;
}

/**
 * The paths of `rels` that may not leave because git ignores them, or because git could not say
 * (`reason` per path). One batch call; when the batch fails (exit 128, e.g. a path inside a
 * registered submodule), each path is asked alone and a path git cannot answer for is refused.
 */
export async function ignoredPaths(
  root: string,
  rels: string[],
  repo: 'yes' | 'no' | 'unknown',
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (rels.length === 0 || repo === 'no') return out;
  if (repo === 'unknown') {
    for (const rel of rels) out.set(rel, UNANSWERED);
    return out;
  }
  const batch = await git(root, ['check-ignore', '--stdin', '-z'], rels.join('\0') + '\0');
  if (batch.code === 0 || batch.code === 1) {
    for (const rel of batch.stdout.split('\0').filter(Boolean)) out.set(rel, IGNORED);
    return out;
  }
  const queue = [...rels];
  const worker = async (): Promise<void> => {
    for (let rel = queue.shift(); rel !== undefined; rel = queue.shift()) {
      const why = await checkOne(root, rel);
      if (why) out.set(rel, why);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return out;
}

/**
 * `-c` settings that switch off every clean/smudge filter the repository's config defines: `git
 * diff` runs a work tree file through its filter, and a hostile `.gitattributes` with a
 * `filter.<name>.clean` in `.git/config` would run a program. Reading the config runs nothing.
 */
export async function filterOverrides(root: string): Promise<string[]> {
  const r = await git(root, ['config', '--null', '--get-regexp', '^filter\\.']);
  const names = new Set<string>();
  for (const entry of r.stdout.split('\0')) {
    const key = entry.split('\n')[0] ?? '';
    const m = /^filter\.(.+)\.(clean|smudge|process|required)$/i.exec(key);
    if (m) names.add(m[1] as string);
  }
  return [...names].flatMap((n) => [
    '-c',
    `filter.${n}.clean=`,
    '-c',
    `filter.${n}.smudge=`,
    '-c',
    `filter.${n}.process=`,
  ]);
}
