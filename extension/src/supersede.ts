/**
 * On Accept: when the meeting said its decision replaces earlier records (`SUPERSEDES:` lines
 * naming records it was briefed with), both records get a link to the other. The rules are the
 * pure `linkSupersession` in the protocol; this only reads and writes the files.
 */
import * as vscode from 'vscode';
import type { MeetingState } from '@roundtable/protocol';
import { linkSupersession, supersededRecords } from '@roundtable/protocol';

/** Links `written` (the new record) with every record it supersedes; returns the old records changed. */
export async function linkSupersededRecords(o: {
  state: MeetingState;
  root: vscode.Uri;
  written: vscode.Uri;
  /** How a record is written (decisionRecordFile.ts's atomic write: readers never see half a record). */
  write: (target: vscode.Uri, text: string) => Promise<void>;
}): Promise<vscode.Uri[]> {
  const { state: s, root, written, write } = o;
  const changed: vscode.Uri[] = [];
  const newPath = vscode.workspace.asRelativePath(written, false).replace(/\\/g, '/');
  for (const oldPath of supersededRecords(s)) {
    const old = vscode.Uri.joinPath(root, oldPath);
    let oldText: string;
    try {
      // A record that became a symbolic link since the meeting could point anywhere (~/.bashrc):
      // Accept writes only a record that is a file of its own.
      if ((await vscode.workspace.fs.stat(old)).type & vscode.FileType.SymbolicLink) continue;
      oldText = new TextDecoder().decode(await vscode.workspace.fs.readFile(old));
    } catch {
      continue; // the record was moved or deleted since the meeting: nothing to link
    }
    const newText = new TextDecoder().decode(await vscode.workspace.fs.readFile(written));
    const linked = linkSupersession(newText, oldText, { newPath, oldPath });
    await write(written, linked.newText);
    if (linked.oldText !== oldText) {
      await write(old, linked.oldText);
      changed.push(old);
    }
  }
  return changed;
}
