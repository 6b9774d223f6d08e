/** Expanding folders and globs to workspace files by a bounded walk that never follows a symlink. */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { GlobMatcher } from './glob';
import { isVcsDir } from './names';

/**
 * Workspace-relative files under `dir` (real path inside `realRoot`), sorted, at most `limit`.
 * Symlinks are not followed: a link out of the workspace is never walked into.
 */
export async function walkFiles(realRoot: string, dir: string, limit: number, match?: GlobMatcher): Promise<string[]> {
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
      // Never walked: version control internals (a submodule's `.git` is a file) and dependency trees.
      if (isVcsDir(e.name) || e.name === 'node_modules') continue;
      if (e.isDirectory()) {
        queue.push(full);
      } else if (e.isFile()) {
        const rel = path.relative(realRoot, full).split(path.sep).join('/');
        if (!match || match.test(rel)) out.push(rel);
        if (out.length >= limit) break;
      }
    }
  }
  return out.sort();
}
