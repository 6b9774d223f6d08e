/**
 * On Accept, the decision record in MADR style: `docs/decisions/NNNN-<slug>.md` with the next free
 * number, written atomically (the one atomic write of client/src/atomicFile.ts), linked with the
 * records it supersedes.
 */
import * as vscode from 'vscode';
import type { MeetingState } from '@roundtable/protocol';
import { nameNumber, slugify } from '@roundtable/protocol';
import { replaceFile } from '@roundtable/client/atomicFile';
import { decisionRecord } from './decisionRecord';
import { humanName } from './gitUser';
import { linkSupersededRecords } from './supersede';
import { decisionsFolder, mayWrite, mayWriteInto, workspaceRoot } from './workspaceFolders';

/** Fires after Accept wrote a decision record (the Decisions view reads the folder again). */
const recordWritten = new vscode.EventEmitter<vscode.Uri>();
export const onDecisionRecordWritten = recordWritten.event;

/** A temp file beside `target`, renamed over it: readers never see half a record. */
const writeAtomic = (target: vscode.Uri, text: string): Promise<void> => replaceFile(target.fsPath, text);

/** Writes `docs/decisions/NNNN-<slug>.md` (MADR 4.0) with the next free number, its `scope:` as the person left it. */
export async function writeDecisionRecord(
  s: MeetingState,
  digestText: string,
  minutes: vscode.Uri | undefined,
  scope: string[] = [],
): Promise<vscode.Uri | undefined> {
  const root = workspaceRoot();
  if (!root) return undefined;
  if (!(await mayWrite('decision record'))) return undefined;
  const dir = vscode.Uri.joinPath(root, decisionsFolder());
  if (!(await mayWriteInto(dir))) return undefined;
  await vscode.workspace.fs.createDirectory(dir);
  let highest = 0;
  for (const [name] of await vscode.workspace.fs.readDirectory(dir)) {
    // As the Decisions view reads a name's number: a date-named record (2024-05-16-x.md) has none.
    const n = Number(nameNumber(name) ?? 0);
    if (n > highest) highest = n;
  }
  const number = highest + 1;
  const target = vscode.Uri.joinPath(dir, `${String(number).padStart(4, '0')}-${slugify(s.topic, 'decision')}.md`);
  const rel = minutes ? relativeLink(target, minutes) : '';
  await writeAtomic(
    target,
    decisionRecord({ state: s, digestText, minutesLink: rel, decidedBy: await humanName(root.fsPath), scope }),
  );
  // issue 16: supersedes / superseded by, in both records
  await linkSupersededRecords({ state: s, root, written: target, write: writeAtomic });
  recordWritten.fire(target);
  return target;
}

function relativeLink(from: vscode.Uri, to: vscode.Uri): string {
  const a = from.path.split('/').slice(0, -1);
  const b = to.path.split('/');
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => '..'), ...b.slice(i)].join('/');
}
