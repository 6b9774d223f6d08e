/**
 * The branches "Review Changes" offers, asked of git itself: the default branch (the remote's
 * HEAD, else a local main/master/trunk, else `init.defaultBranch`), named in the pick and the
 * topic, and the branches a person may pick instead. The daemon works out the merge base.
 */
import { execFile } from 'node:child_process';
import { GIT_REF_PATTERN } from '@roundtable/protocol';

/** git's output, or undefined when it fails (not a repository, no such ref). Never throws. */
function git(cwd: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) =>
    execFile('git', args, { cwd, timeout: 10_000, maxBuffer: 4 * 1024 * 1024 }, (err, stdout) =>
      resolve(err ? undefined : stdout.trim()),
    ),
  );
}

const refExists = async (cwd: string, ref: string): Promise<boolean> =>
  (await git(cwd, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])) !== undefined;

/** The repository's default branch as a ref git resolves (`origin/main`, `main`), or undefined. */
export async function defaultBranch(cwd: string): Promise<string | undefined> {
  const remoteHead = await git(cwd, ['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD']);
  if (remoteHead && (await refExists(cwd, remoteHead))) return remoteHead;
  const configured = await git(cwd, ['config', '--get', 'init.defaultBranch']);
  for (const name of ['main', 'master', 'trunk', ...(configured ? [configured] : [])])
    if (await refExists(cwd, `refs/heads/${name}`)) return name;
  return undefined;
}

/** The branch checked out, or undefined (detached HEAD, not a repository). */
export function currentBranch(cwd: string): Promise<string | undefined> {
  return git(cwd, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
}

/** Local and remote-tracking branches other than the one checked out, local ones first. */
export async function otherBranches(cwd: string): Promise<string[]> {
  const out = await git(cwd, ['for-each-ref', '--format=%(refname:short)', 'refs/heads', 'refs/remotes']);
  const current = await currentBranch(cwd);
  return (out ?? '').split('\n').filter((b) => b && b !== current && !b.endsWith('/HEAD') && GIT_REF_PATTERN.test(b));
}
