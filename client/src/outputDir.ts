/**
 * Where the workspace's documents (minutes, the MANIFEST, decision records) may be written. One
 * check for the CLI, `deliberate` and the extension: a folder named inside the workspace must stay
 * inside it on its real path, so a symbolic link on the way (`docs` or `docs/roundtable` pointing
 * elsewhere) cannot carry a meeting's minutes out of it; and a file the writer reads back and
 * rewrites (the MANIFEST) must not be a symbolic link. A folder the person named outside the
 * workspace (`--out /tmp/x`) is theirs to choose. And the one way folders are made (`ensureDir`),
 * and whether a place can be written at all, asked before a command starts its work.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** True when a relative path leaves the folder it is relative to (`..`, `../x`, or another root). */
export function leavesFolder(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
}

/**
 * The first component of `rel` under `root` that is a symbolic link leading outside `realRoot`
 * (or nowhere), with where it leads; undefined when every link on the way stays inside.
 */
async function linkOut(root: string, realRoot: string, rel: string): Promise<string | undefined> {
  let cur = root;
  for (const part of rel.split(path.sep).filter(Boolean)) {
    cur = path.join(cur, part);
    const st = await fs.lstat(cur).catch(() => undefined);
    if (!st) return undefined;
    if (!st.isSymbolicLink()) continue;
    const real = await fs.realpath(cur).catch(() => undefined);
    const where = path.relative(root, cur);
    if (!real) return `${where} is a symbolic link that leads nowhere`;
    if (leavesFolder(path.relative(realRoot, real)))
      return `${where} is a symbolic link to ${real}, outside the workspace`;
  }
  return undefined;
}

/**
 * Why documents may not be written into `dir` of the workspace `workspace` (one line), or
 * undefined when they may. `files` are names in `dir` the writer reads and rewrites.
 */
export async function outputRefusal(
  workspace: string,
  dir: string,
  files: readonly string[] = [],
): Promise<string | undefined> {
  const root = path.resolve(workspace);
  const target = path.resolve(root, dir);
  const asked = path.relative(root, target);
  if (leavesFolder(asked)) return undefined;
  const realRoot = await fs.realpath(root).catch(() => root);
  const out = await linkOut(root, realRoot, asked);
  if (out) return `${out}: nothing is written through it`;
  for (const f of files) {
    const st = await fs.lstat(path.join(target, f)).catch(() => undefined);
    if (st?.isSymbolicLink()) return `${path.join(asked, f)} is a symbolic link: nothing is read or written through it`;
  }
  return undefined;
}

function errno(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

/**
 * Creates a folder and its missing parents one level at a time. Node's `mkdir({recursive: true})`
 * never returns on some virtual file systems: under /proc, mkdir answers ENOENT although the
 * parent exists, and Node's walk goes back to the parent (EEXIST) and forward again for ever,
 * the promise never settling (`--sarif /proc/self/nope/x.sarif` finished its review and never
 * exited; `mkdirSync` spins the CPU instead). Here every level is made once, and its error is
 * final. The lint refuses `recursive` in a mkdir call: this is the one way folders are made.
 * Returns the folders it made, outermost first.
 */
export async function ensureDir(dir: string, mode?: number): Promise<string[]> {
  const missing: string[] = [];
  let cur = path.resolve(dir);
  for (;;) {
    try {
      const st = await fs.stat(cur);
      if (!st.isDirectory()) throw errno('ENOTDIR', `${cur} is a file, not a folder`);
      break;
    } catch (e) {
      const parent = path.dirname(cur);
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || parent === cur) throw e;
      missing.unshift(cur);
      cur = parent;
    }
  }
  const made: string[] = [];
  for (const d of missing) {
    try {
      await fs.mkdir(d, mode);
      made.push(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return made;
}

const WHY: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EACCES: 'the folder is not writable',
  EPERM: 'the folder is not writable',
  EROFS: 'the folder is not writable',
  ENOTDIR: 'a part of that path is a file, not a folder',
  EEXIST: 'a part of that path is a file, not a folder',
  ENOENT: 'a folder cannot be created there',
  EISDIR: 'it is a folder, not a file',
};

/** Why a write failed, in words a person acts on, with the system's code: `the disk is full (ENOSPC)`. */
export function writeProblem(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  const why = (code && WHY[code]) ?? (e as Error).message.split('\n')[0] ?? 'unknown error';
  return `${why}${code ? ` (${code})` : ''}`;
}

/**
 * Why nothing can be written at `target` (`file`: a file to write or replace; `folder`: a folder
 * to write files into), or undefined when it can: asked before a command starts its work, so a
 * place that cannot be written is bad usage, said at once, not found out at the end. Only a write
 * tells, whoever runs it (root passes every permission check, and /proc refuses what `access`
 * allows): the missing folders are made, a probe file is written there, and both are removed
 * again, so a command refused afterwards has written nothing.
 */
export async function unwritablePlace(target: string, kind: 'file' | 'folder'): Promise<string | undefined> {
  const full = path.resolve(target);
  const dir = kind === 'folder' ? full : path.dirname(full);
  let made: string[] = [];
  try {
    made = await ensureDir(dir);
    if (kind === 'file') {
      const st = await fs.stat(full).catch(() => undefined);
      if (st?.isDirectory()) return 'it is a folder, not a file';
      // An existing file is opened for writing without changing it.
      if (st) {
        await (await fs.open(full, 'r+')).close();
        return undefined;
      }
    }
    const probe = path.join(dir, `.roundtable-probe-${randomBytes(6).toString('hex')}`);
    await (await fs.open(probe, 'wx', 0o600)).close();
    await fs.rm(probe, { force: true });
    return undefined;
  } catch (e) {
    return writeProblem(e);
  } finally {
    for (const d of made.reverse()) await fs.rmdir(d).catch(() => undefined);
  }
}
