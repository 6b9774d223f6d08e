import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Evidence } from '../../../protocol/src';

/** True when `rel` (a path relative to the workspace) climbs out of it: `..` or `../x`, not `..hidden`. */
function leaves(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
}

/**
 * Resolves `file` inside the workspace `root` on its real path: `outside_workspace` when it leaves
 * the folder lexically (`../`, an absolute path elsewhere: the disk is not touched) or through a
 * symlink (after `realpath`), `missing` when it does not exist. Shared by cited evidence, attached
 * context and the read-only tools, so all three draw the workspace's edge in the same place.
 */
export async function resolveInWorkspace(
  root: string,
  file: string,
  realRoot?: string,
): Promise<{ real: string; rel: string } | 'outside_workspace' | 'missing'> {
  const base = path.resolve(root);
  if (file.trim() === '' || file.includes('\0')) return 'missing';
  const full = path.resolve(base, file);
  if (leaves(path.relative(base, full))) return 'outside_workspace';
  let real: string;
  try {
    real = await fs.realpath(full);
  } catch {
    return 'missing';
  }
  const rr = realRoot ?? (await fs.realpath(base).catch(() => base));
  const rel = path.relative(rr, real);
  if (leaves(rel)) return 'outside_workspace';
  return { real, rel: rel.split(path.sep).join('/') };
}

/**
 * Checks a cited file against a workspace folder. The check is on the real path: a path that
 * leaves the folder lexically (`../`, an absolute path elsewhere) is flagged without touching the
 * disk, and one that leaves it through a symlink is flagged after `realpath`, so a ballot cannot
 * make the daemon vouch for (or probe) anything outside. Only a regular file is evidence: `.` or
 * any other folder is `missing` (nothing was cited that can be read).
 */
export function evidenceChecker(workspace: string): (file: string) => Promise<Evidence['status']> {
  const root = path.resolve(workspace);
  let realRoot: Promise<string> | undefined;
  return async (file) => {
    const clean = file.replace(/#.*$/, '').replace(/:\d+(-\d+)?$/, '');
    if (clean.trim() === '' || clean.includes('\0')) return 'missing';
    const full = path.resolve(root, clean);
    if (leaves(path.relative(root, full))) return 'outside_workspace';
    realRoot ??= fs.realpath(root).catch(() => root);
    let real: string;
    try {
      real = await fs.realpath(full);
    } catch {
      return 'missing';
    }
    if (leaves(path.relative(await realRoot, real))) return 'outside_workspace';
    try {
      return (await fs.stat(real)).isFile() ? 'exists' : 'missing';
    } catch {
      return 'missing';
    }
  };
}
