/**
 * What a meeting leaves in the workspace: its minutes (rendered by the daemon from the log), and
 * on Accept a decision record in MADR style. Both are staged in git through the built-in Git
 * extension when the workspace is a repository. Nothing is written in an untrusted workspace
 * without asking.
 */
import * as vscode from 'vscode';
import type { MeetingState } from '../../protocol/src';
import { slugify } from '../../protocol/src';
import { jsonLine, withoutMeeting } from '../../protocol/src/markdown';
import { decisionRecord } from './decisionRecord';
import { linkSupersededRecords } from './supersede';

export { decisionRecord };

export function workspaceRoot(): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}

function folderSetting(key: 'minutesFolder' | 'decisionsFolder', fallback: string): string {
  const v = vscode.workspace.getConfiguration('roundtable').get<string>(key)?.trim();
  return v && !v.includes('..') ? v : fallback;
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

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/** A name in `dir` that does not exist yet: base.md, base-2.md, ... */
async function freshName(dir: vscode.Uri, base: string): Promise<vscode.Uri> {
  for (let n = 1; ; n++) {
    const uri = vscode.Uri.joinPath(dir, `${base}${n === 1 ? '' : `-${n}`}.md`);
    if (!(await exists(uri))) return uri;
  }
}

const encoder = new TextEncoder();

/** Writes (or rewrites, for this meeting) the minutes; returns where. */
export async function writeMinutesFile(
  rendered: { minutes: string; fileBase: string; manifestLine?: string },
  previous: vscode.Uri | undefined,
): Promise<vscode.Uri | undefined> {
  const root = workspaceRoot();
  if (!root) {
    void vscode.window.showWarningMessage('Open a folder to save Roundtable minutes into it.');
    return undefined;
  }
  if (!(await mayWrite('meeting minutes'))) return undefined;
  const dir = vscode.Uri.joinPath(root, folderSetting('minutesFolder', 'docs/roundtable'));
  await vscode.workspace.fs.createDirectory(dir);
  const target = previous ?? (await freshName(dir, rendered.fileBase));
  await vscode.workspace.fs.writeFile(target, encoder.encode(rendered.minutes));
  if (rendered.manifestLine) {
    // One line per meeting: the line written when it escalated (blocked) is replaced when it is resolved.
    const manifest = vscode.Uri.joinPath(dir, 'MANIFEST.jsonl');
    const before = (await exists(manifest))
      ? new TextDecoder().decode(await vscode.workspace.fs.readFile(manifest))
      : '';
    const entry = JSON.parse(rendered.manifestLine) as { id?: unknown; file?: unknown };
    const line = jsonLine({ ...entry, file: target.path.split('/').pop() ?? entry.file });
    await vscode.workspace.fs.writeFile(
      manifest,
      encoder.encode(`${withoutMeeting(before, String(entry.id))}${line}\n`),
    );
  }
  return target;
}

/** Writes `docs/decisions/NNNN-<slug>.md` with the next free number. */
export async function writeDecisionRecord(
  s: MeetingState,
  digestText: string,
  minutes: vscode.Uri,
): Promise<vscode.Uri | undefined> {
  const root = workspaceRoot();
  if (!root) return undefined;
  if (!(await mayWrite('decision record'))) return undefined;
  const dir = vscode.Uri.joinPath(root, folderSetting('decisionsFolder', 'docs/decisions'));
  await vscode.workspace.fs.createDirectory(dir);
  let highest = 0;
  for (const [name] of await vscode.workspace.fs.readDirectory(dir)) {
    const n = Number(/^(\d{4})-/.exec(name)?.[1] ?? 0);
    if (n > highest) highest = n;
  }
  const number = highest + 1;
  const target = vscode.Uri.joinPath(dir, `${String(number).padStart(4, '0')}-${slugify(s.topic, 'decision')}.md`);
  const rel = relativeLink(target, minutes);
  await vscode.workspace.fs.writeFile(target, encoder.encode(decisionRecord(s, number, digestText, rel)));
  await linkSupersededRecords(s, root, target); // issue 16: supersedes / superseded by, both ways
  return target;
}

function relativeLink(from: vscode.Uri, to: vscode.Uri): string {
  const a = from.path.split('/').slice(0, -1);
  const b = to.path.split('/');
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => '..'), ...b.slice(i)].join('/');
}

interface GitRepository {
  rootUri: vscode.Uri;
  add(paths: string[]): Promise<void>;
}
interface GitApi {
  getRepository(uri: vscode.Uri): GitRepository | null;
}

/** Stages files through the built-in Git extension; silently nothing when there is no repository. */
export async function stageInGit(files: vscode.Uri[], log: vscode.LogOutputChannel): Promise<boolean> {
  try {
    const ext = vscode.extensions.getExtension<{ getAPI(v: 1): GitApi }>('vscode.git');
    if (!ext) return false;
    const api = (ext.isActive ? ext.exports : await ext.activate()).getAPI(1);
    const repo = files[0] ? api.getRepository(files[0]) : null;
    if (!repo) return false;
    await repo.add(files.map((f) => f.fsPath));
    log.info(`staged ${files.map((f) => vscode.workspace.asRelativePath(f)).join(', ')} in git`);
    return true;
  } catch (e) {
    log.warn(`could not stage in git: ${(e as Error).message}`);
    return false;
  }
}
