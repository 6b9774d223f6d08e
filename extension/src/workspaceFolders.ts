/**
 * Where a meeting's files go in the workspace, and whether they may: the workspace root, the
 * minutes and decisions folders (settings, workspace-relative), the question asked before writing
 * into an untrusted workspace, and the refusal of a folder a symbolic link carries out of it.
 */
import * as vscode from 'vscode';
import { DEFAULT_UNSTATUSED, UnstatusedSchema, type Unstatused } from '@roundtable/protocol';
import { outputRefusal } from '@roundtable/client/outputDir';

export function workspaceRoot(): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}

function folderSetting(key: 'minutesFolder' | 'decisionsFolder', fallback: string): string {
  const v = vscode.workspace.getConfiguration('roundtable').get<string>(key)?.trim();
  return v && !v.includes('..') ? v : fallback;
}

export function minutesDir(): vscode.Uri | undefined {
  const root = workspaceRoot();
  return root ? vscode.Uri.joinPath(root, folderSetting('minutesFolder', 'docs/roundtable')) : undefined;
}

/** The decisions folder in the workspace (`roundtable.decisionsFolder`, workspace-relative). */
export function decisionsFolder(): string {
  return folderSetting('decisionsFolder', 'docs/decisions');
}

/** How records with no status are read (`roundtable.decisions.unstatused`): rules (`accepted`) or not (`ignore`). */
export function decisionsUnstatused(): Unstatused {
  const v = UnstatusedSchema.safeParse(vscode.workspace.getConfiguration('roundtable').get('decisions.unstatused'));
  return v.success ? v.data : DEFAULT_UNSTATUSED;
}

/** Asks before writing into an untrusted workspace. */
export async function mayWrite(what: string): Promise<boolean> {
  if (vscode.workspace.isTrusted) return true;
  const answer = await vscode.window.showWarningMessage(
    `This workspace is not trusted. Write the ${what} into it anyway?`,
    { modal: true },
    'Write',
  );
  return answer === 'Write';
}

/**
 * False (and the person told why, in one line) when `dir` is not a folder on disk (the files are
 * written where the daemon reads the workspace), when it leads out of the workspace through a
 * symbolic link, or when a file it rewrites is one: nothing is written through it.
 */
export async function mayWriteInto(dir: vscode.Uri, files: string[] = []): Promise<boolean> {
  const root = workspaceRoot();
  if (dir.scheme !== 'file') {
    void vscode.window.showErrorMessage(`Roundtable: ${dir.toString()} is not a folder on disk; nothing is written.`);
    return false;
  }
  const refused = root?.scheme === 'file' ? await outputRefusal(root.fsPath, dir.fsPath, files) : undefined;
  if (refused) void vscode.window.showErrorMessage(`Roundtable: ${refused}.`);
  return !refused;
}
