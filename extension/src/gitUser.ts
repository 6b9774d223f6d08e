/** The person deciding, as git (or the system) names them. */
import { execFile } from 'node:child_process';
import { userInfo } from 'node:os';
import { workspaceRoot } from './workspaceFolders';

/**
 * The person deciding, for the record's `decision-makers` and the review's "Decided … by": git's
 * user.name in the workspace, else the OS user, else "you". Never throws.
 */
export async function humanName(cwd = workspaceRoot()?.fsPath): Promise<string> {
  const fromGit = await new Promise<string>((resolve) =>
    execFile('git', ['config', 'user.name'], { cwd, timeout: 3_000 }, (err, stdout) =>
      resolve(err ? '' : stdout.trim()),
    ),
  );
  if (fromGit) return fromGit.slice(0, 200);
  try {
    return userInfo().username || 'you';
  } catch {
    return 'you';
  }
}
