import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Evidence } from '../../../protocol/src';

/**
 * Checks a cited file against a workspace folder. Paths that leave the folder (`../`, absolute
 * paths elsewhere) are flagged, never read: a ballot cannot make the daemon probe the disk.
 */
export function evidenceChecker(workspace: string): (file: string) => Promise<Evidence['status']> {
  const root = path.resolve(workspace);
  return async (file) => {
    const clean = file.replace(/#.*$/, '').replace(/:\d+(-\d+)?$/, '');
    const full = path.resolve(root, clean);
    const rel = path.relative(root, full);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return 'outside_workspace';
    try {
      await fs.stat(full);
      return 'exists';
    } catch {
      return 'missing';
    }
  };
}
