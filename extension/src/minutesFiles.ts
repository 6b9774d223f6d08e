/**
 * The minutes in the workspace, per `roundtable.minutes`: rendered from the state this window's
 * mirror holds and written by the one minutes writer (client/src/minutesFile.ts), the same as the
 * CLI's and MCP's, with no round trip to the daemon. One file per meeting, rewritten at each decision.
 */
import * as vscode from 'vscode';
import type { MeetingState } from '@roundtable/protocol';
import type { MeetingHandle } from '@roundtable/client';
import { MANIFEST_FILE, ownMinutesFile } from '@roundtable/client/minutesFile';
import { mayWrite, mayWriteInto, minutesDir } from './workspaceFolders';

/** When minutes go into the workspace: `roundtable.minutes`. */
export type MinutesPolicy = 'always' | 'onAccept' | 'never';

export function minutesPolicy(): MinutesPolicy {
  const v = vscode.workspace.getConfiguration('roundtable').get<string>('minutes');
  return v === 'always' || v === 'never' ? v : 'onAccept';
}

/** The minutes file this meeting already has in the minutes folder, found on disk. */
export async function existingMinutes(s: MeetingState): Promise<vscode.Uri | undefined> {
  const dir = minutesDir();
  const file = dir?.scheme === 'file' ? await ownMinutesFile(dir.fsPath, s) : undefined;
  return file ? vscode.Uri.file(file) : undefined;
}

/** Writes (or rewrites, for this meeting) the minutes of the meeting as held, atomically; returns where. */
export async function writeMinutesFile(meeting: Pick<MeetingHandle, 'writeMinutes'>): Promise<vscode.Uri | undefined> {
  const dir = minutesDir();
  if (!dir) {
    void vscode.window.showWarningMessage('Open a folder to save Roundtable minutes into it.');
    return undefined;
  }
  if (!(await mayWrite('meeting minutes'))) return undefined;
  if (!(await mayWriteInto(dir, [MANIFEST_FILE]))) return undefined;
  return vscode.Uri.file(await meeting.writeMinutes(dir.fsPath, { rewrite: true }));
}

/** The MANIFEST beside the minutes, if there is one (staged with the minutes on Accept). */
export async function manifestFile(): Promise<vscode.Uri | undefined> {
  const dir = minutesDir();
  const manifest = dir && vscode.Uri.joinPath(dir, MANIFEST_FILE);
  try {
    return manifest && (await vscode.workspace.fs.stat(manifest)) ? manifest : undefined;
  } catch {
    return undefined;
  }
}
