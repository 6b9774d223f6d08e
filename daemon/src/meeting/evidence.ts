import type { Evidence } from '@roundtable/protocol';
import { workspaceGate } from '../gate';

/**
 * Checks a cited file against a workspace folder through the workspace gate, so a ballot cannot
 * make the daemon vouch for (or probe) anything the gate would not let a model read: a path out
 * of the folder (lexically or through a symlink) is `outside_workspace`, `.git` internals, a
 * git-ignored or secret file `refused`, and only a regular file is evidence (`.` or any other
 * folder is `missing`: nothing was cited that can be read).
 */
export function evidenceChecker(workspace: string): (file: string) => Promise<Evidence['status']> {
  const gate = workspaceGate(workspace);
  return (file) => gate.evidence(file);
}
