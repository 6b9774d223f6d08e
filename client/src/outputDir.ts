/**
 * Where the workspace's documents (minutes, the MANIFEST, decision records) may be written. One
 * check for the CLI, `deliberate` and the extension: a folder named inside the workspace must stay
 * inside it on its real path, so a symbolic link on the way (`docs` or `docs/roundtable` pointing
 * elsewhere) cannot carry a meeting's minutes out of it; and a file the writer reads back and
 * rewrites (the MANIFEST) must not be a symbolic link. A folder the person named outside the
 * workspace (`--out /tmp/x`) is theirs to choose.
 */
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
