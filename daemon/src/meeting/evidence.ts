import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Evidence } from '../../../protocol/src';

/** True when `rel` (a path relative to the workspace) climbs out of it: `..` or `../x`, not `..hidden`. */
function leaves(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
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
