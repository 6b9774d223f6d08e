/**
 * What a meeting leaves in the workspace: its minutes (rendered by the daemon from the log, when
 * `roundtable.minutes` says so), and on Accept a decision record in MADR style. Only an Accept
 * stages files in git (through the built-in Git extension, when the workspace is a repository).
 * Every file is written atomically; nothing is written in an untrusted workspace without asking.
 */
import { execFile } from 'node:child_process';
import { userInfo } from 'node:os';
import * as vscode from 'vscode';
import type { MeetingState } from '@roundtable/protocol';
import { slugify } from '@roundtable/protocol';
import { outputRefusal } from '@roundtable/client/outputDir';
import { jsonLine, withoutMeeting } from '@roundtable/protocol/markdown';
import { decisionRecord } from './decisionRecord';
import { linkSupersededRecords } from './supersede';

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

/** When minutes go into the workspace: `roundtable.minutes`. */
export type MinutesPolicy = 'always' | 'onAccept' | 'never';

export function minutesPolicy(): MinutesPolicy {
  const v = vscode.workspace.getConfiguration('roundtable').get<string>('minutes');
  return v === 'always' || v === 'never' ? v : 'onAccept';
}

export function minutesDir(): vscode.Uri | undefined {
  const root = workspaceRoot();
  return root ? vscode.Uri.joinPath(root, folderSetting('minutesFolder', 'docs/roundtable')) : undefined;
}

/**
 * The minutes file this meeting already has, found on disk (not remembered): a file named after
 * the meeting that names its id. So a meeting decided after a reload, or in another window,
 * rewrites its own file instead of adding a second one.
 */
export async function existingMinutes(meetingId: string, fileBase: string): Promise<vscode.Uri | undefined> {
  const dir = minutesDir();
  if (!dir) return undefined;
  let entries: [string, vscode.FileType][];
  try {
    entries = await vscode.workspace.fs.readDirectory(dir);
  } catch {
    return undefined;
  }
  const mark = `\`${meetingId}\``;
  for (const [name] of entries.sort(([a], [b]) => a.localeCompare(b))) {
    if (!name.startsWith(fileBase) || !name.endsWith('.md')) continue;
    const uri = vscode.Uri.joinPath(dir, name);
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    if (text.includes(mark)) return uri;
  }
  return undefined;
}

/** Writes `text` to a temporary file beside `target`, then renames it over: readers never see half a file. */
export async function writeAtomic(target: vscode.Uri, text: string): Promise<void> {
  const tmp = target.with({ path: `${target.path}.${Math.random().toString(36).slice(2, 8)}.tmp` });
  await vscode.workspace.fs.writeFile(tmp, encoder.encode(text));
  try {
    await vscode.workspace.fs.rename(tmp, target, { overwrite: true });
  } catch (e) {
    await vscode.workspace.fs.delete(tmp).then(undefined, () => undefined);
    throw e;
  }
}

/**
 * False (and the person told why, in one line) when `dir` leads out of the workspace through a
 * symbolic link, or a file it rewrites is one: nothing is written through it.
 */
async function mayWriteInto(dir: vscode.Uri, files: string[] = []): Promise<boolean> {
  const root = workspaceRoot();
  if (!root || root.scheme !== 'file' || dir.scheme !== 'file') return true;
  const refused = await outputRefusal(root.fsPath, dir.fsPath, files);
  if (refused) void vscode.window.showErrorMessage(`Roundtable: ${refused}.`);
  return !refused;
}

/** Every write of minutes and of the shared MANIFEST goes through this chain: one writer, in order. */
let writing: Promise<unknown> = Promise.resolve();
function serially<T>(job: () => Promise<T>): Promise<T> {
  const run = writing.then(job, job);
  writing = run.catch(() => undefined);
  return run;
}

/** Writes (or rewrites, for this meeting) the minutes, atomically; returns where. */
export function writeMinutesFile(
  meetingId: string,
  rendered: { minutes: string; fileBase: string; manifestLine?: string },
): Promise<vscode.Uri | undefined> {
  return serially(async () => {
    const dir = minutesDir();
    if (!dir) {
      void vscode.window.showWarningMessage('Open a folder to save Roundtable minutes into it.');
      return undefined;
    }
    if (!(await mayWrite('meeting minutes'))) return undefined;
    if (!(await mayWriteInto(dir, ['MANIFEST.jsonl']))) return undefined;
    await vscode.workspace.fs.createDirectory(dir);
    const target = (await existingMinutes(meetingId, rendered.fileBase)) ?? (await freshName(dir, rendered.fileBase));
    await writeAtomic(target, rendered.minutes);
    if (rendered.manifestLine) {
      // One line per meeting: the line written when it escalated (blocked) is replaced when it is resolved.
      const manifest = vscode.Uri.joinPath(dir, 'MANIFEST.jsonl');
      const before = (await exists(manifest))
        ? new TextDecoder().decode(await vscode.workspace.fs.readFile(manifest))
        : '';
      const entry = JSON.parse(rendered.manifestLine) as { id?: unknown; file?: unknown };
      const line = jsonLine({ ...entry, file: target.path.split('/').pop() ?? entry.file });
      await writeAtomic(manifest, `${withoutMeeting(before, String(entry.id))}${line}\n`);
    }
    return target;
  });
}

/** The MANIFEST beside the minutes, if there is one (staged with the minutes on Accept). */
export async function manifestFile(): Promise<vscode.Uri | undefined> {
  const dir = minutesDir();
  const manifest = dir && vscode.Uri.joinPath(dir, 'MANIFEST.jsonl');
  return manifest && (await exists(manifest)) ? manifest : undefined;
}

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

/** Fires after Accept wrote a decision record (the Decisions view reads the folder again). */
const recordWritten = new vscode.EventEmitter<vscode.Uri>();
export const onDecisionRecordWritten = recordWritten.event;

/** The decisions folder in the workspace (`roundtable.decisionsFolder`, workspace-relative). */
export function decisionsFolder(): string {
  return folderSetting('decisionsFolder', 'docs/decisions');
}

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
    const n = Number(/^(\d{4})-/.exec(name)?.[1] ?? 0);
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
