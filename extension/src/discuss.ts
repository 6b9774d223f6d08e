/**
 * "Discuss in Roundtable": starts the usual start flow with context already attached — the files
 * or folders picked in the explorer, the editor's selection (or its whole file), or the git diff
 * from the SCM view. Only paths go to the daemon: it reads them inside the workspace itself,
 * refusing what must not leave it (outside the workspace, binary, git-ignored, secrets).
 */
import * as vscode from 'vscode';
import type { ContextRequest } from '@roundtable/protocol';
import { decisionsFolder } from './workspaceFolders';

export const DISCUSS_COMMAND = 'roundtable.discuss';

/** Workspace-relative path with `/` separators, or undefined for a file outside every folder. */
export function workspaceRelative(uri: vscode.Uri): string | undefined {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder) return undefined;
  return vscode.workspace.asRelativePath(uri, false).replace(/\\/g, '/');
}

/** What the command was invoked on, as a context request. Exported for tests. */
export function contextFor(target: unknown, selected: unknown): ContextRequest | string {
  // SCM view: a SourceControl (has rootUri) — discuss the diff of the work tree against HEAD.
  if (target && typeof target === 'object' && 'rootUri' in target) return { diff: { ref: 'HEAD' } };
  const uris = (Array.isArray(selected) && selected.length > 0 ? selected : [target]).filter(
    (u): u is vscode.Uri => u instanceof vscode.Uri,
  );
  const editor = vscode.window.activeTextEditor;
  if (uris.length === 0 && editor) uris.push(editor.document.uri);
  if (uris.length === 0) return 'Pick a file or folder in the explorer, or open a file, to discuss it in Roundtable.';
  const paths: string[] = [];
  const selections: NonNullable<ContextRequest['selections']> = [];
  for (const uri of uris) {
    const rel = workspaceRelative(uri);
    if (!rel) return `${uri.fsPath} is outside the workspace: Roundtable only discusses files of the open folder.`;
    const sel = editor && editor.document.uri.toString() === uri.toString() ? editor.selection : undefined;
    if (sel && !sel.isEmpty) selections.push({ path: rel, startLine: sel.start.line + 1, endLine: sel.end.line + 1 });
    else paths.push(rel);
  }
  return { ...(paths.length ? { paths } : {}), ...(selections.length ? { selections } : {}) };
}

/** Registers the command; `start` runs the start flow with the context attached. */
export function registerDiscuss(start: (context: ContextRequest) => Promise<void>): vscode.Disposable {
  return vscode.commands.registerCommand(DISCUSS_COMMAND, async (target: unknown, selected: unknown) => {
    const context = contextFor(target, selected);
    if (typeof context === 'string') return void vscode.window.showWarningMessage(context);
    await start(context);
  });
}

/** A short label of what is attached, for the start flow's title. */
export function attachedLabel(c: ContextRequest): string {
  const names = [...(c.paths ?? []), ...(c.selections ?? []).map((x) => `${x.path}:${x.startLine}-${x.endLine}`)];
  if (c.diff) names.push('the git diff');
  return names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
}

/** The attached context plus the decisions folder, so the briefing can cite earlier decisions. */
export function withDecisions(attach: ContextRequest | undefined): ContextRequest {
  return { decisionsFolder: decisionsFolder(), ...attach };
}

type ContextChoice = vscode.QuickPickItem & { add: 'editor' | 'diff' | 'files' | 'note' };

/**
 * The start flow's context step, when it was not opened with "Discuss in Roundtable": what the
 * panel should read, all optional — the active editor's file or selection, the git diff, files or
 * folders picked in a dialog, a note. Enter with nothing ticked starts without context.
 * `undefined` = the person cancelled the start.
 */
export async function pickContext(): Promise<ContextRequest | undefined> {
  const editor = vscode.window.activeTextEditor;
  const inEditor = editor ? contextFor(editor.document.uri, undefined) : undefined;
  const items: ContextChoice[] = [
    ...(inEditor && typeof inEditor !== 'string'
      ? [{ label: `$(file) ${attachedLabel(inEditor)}`, description: 'the active editor', add: 'editor' as const }]
      : []),
    { label: '$(diff) The git diff', description: 'the work tree against HEAD', add: 'diff' },
    { label: '$(files) Files or folders…', description: 'picked in a dialog', add: 'files' },
    { label: '$(note) A note…', description: 'plain text every participant reads', add: 'note' },
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Start Roundtable: context for the panel (optional)',
    placeHolder: 'Tick what the panel should read, or press Enter to start without',
    canPickMany: true,
    ignoreFocusOut: true,
  });
  if (!picked) return undefined;
  const out: ContextRequest = {};
  const merge = (c: ContextRequest): void => {
    if (c.paths) out.paths = [...(out.paths ?? []), ...c.paths];
    if (c.selections) out.selections = [...(out.selections ?? []), ...c.selections];
  };
  for (const p of picked) {
    if (p.add === 'editor' && inEditor && typeof inEditor !== 'string') merge(inEditor);
    if (p.add === 'diff') out.diff = { ref: 'HEAD' };
    if (p.add === 'files') {
      const uris = await vscode.window.showOpenDialog({
        canSelectFiles: true,
        canSelectFolders: true,
        canSelectMany: true,
        openLabel: 'Attach',
        title: 'Files or folders for the panel to read',
        ...(vscode.workspace.workspaceFolders?.[0] ? { defaultUri: vscode.workspace.workspaceFolders[0].uri } : {}),
      });
      if (!uris) return undefined;
      const c = contextFor(uris[0], uris);
      if (typeof c === 'string') throw new Error(c);
      merge(c);
    }
    if (p.add === 'note') {
      const note = await vscode.window.showInputBox({
        title: 'Start Roundtable: a note for the panel',
        prompt: 'Plain text every participant reads as evidence (not as an instruction)',
        ignoreFocusOut: true,
      });
      if (note === undefined) return undefined;
      if (note.trim()) out.note = note.trim();
    }
  }
  return out;
}
