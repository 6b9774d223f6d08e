/**
 * Finding a decision (issue 33): the Decisions view with its Search and Refresh, read again when a
 * record changes under the decisions folder or Accept writes one, and "Decisions Governing This
 * File" from the Explorer and the editor.
 */
import * as vscode from 'vscode';
import type { DecisionEntry } from '@roundtable/protocol';
import type { DaemonLink } from './daemonLink';
import { DecisionsTree, descriptionOf } from './decisionsTree';
import { onDecisionRecordWritten } from './decisionRecordFile';
import { decisionsFolder, workspaceRoot } from './workspaceFolders';

/** The workspace-relative path of a file, or undefined when it is not in the (first) workspace folder. */
function relativeFile(uri: vscode.Uri | undefined): string | undefined {
  const root = workspaceRoot();
  if (!uri || !root || uri.scheme !== root.scheme) return undefined;
  const prefix = root.path.endsWith('/') ? root.path : `${root.path}/`;
  return uri.path.startsWith(prefix) ? uri.path.slice(prefix.length) : undefined;
}

async function searchDecisions(tree: DecisionsTree, view: vscode.TreeView<unknown>): Promise<void> {
  const words = await vscode.window.showInputBox({
    title: 'Search Decisions',
    prompt:
      'Words the records share, any form of them (as `roundtable decisions WORDS`); title matches first; empty shows them all',
    value: tree.searchText(),
    placeHolder: 'postgres database',
  });
  if (words === undefined) return;
  await tree.search(words);
  view.message = tree.message();
}

/** Record text in a quick pick: `$(name)` would draw an icon there, so it is escaped as VS Code's own `escapeIcons` does. */
const asText = (s: string): string => s.replace(/\$\(/g, '\\$(');

const openRecord = (e: DecisionEntry): void => {
  const root = workspaceRoot();
  if (root) void vscode.commands.executeCommand('vscode.open', vscode.Uri.joinPath(root, e.path));
};

/** The records whose scope covers the file: a quick pick that opens one, or one line when there are none. */
async function governingThisFile(tree: DecisionsTree, arg?: vscode.Uri): Promise<void> {
  const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  const file = relativeFile(uri);
  if (!file) {
    void vscode.window.showInformationMessage(
      'Roundtable: pick a file of the workspace to see the decisions governing it.',
    );
    return;
  }
  const records = await tree.list({ file });
  if (records.length === 0) {
    void vscode.window.showInformationMessage(`No decision record's scope covers ${file}.`);
    return;
  }
  const picked = await vscode.window.showQuickPick(
    records.map((e) => ({
      label: asText(e.title),
      description: asText(
        `${descriptionOf(e)} · ${e.status === 'accepted' ? 'governs it' : `${e.status}, not in force`}`,
      ),
      detail: asText(`scope ${e.matchedScope ?? e.scope.join(', ')} · ${e.path}`),
      entry: e,
    })),
    { title: `Decisions governing ${file}`, matchOnDescription: true, matchOnDetail: true },
  );
  if (picked) openRecord(picked.entry);
}

/** The view, its watcher and its commands; `run` reports a command's failure to the person. */
export function registerDecisions(
  link: DaemonLink,
  log: vscode.LogOutputChannel,
  run: <A extends unknown[]>(f: (...a: A) => Promise<unknown>) => (...a: A) => Promise<void>,
): { tree: DecisionsTree; disposables: vscode.Disposable[] } {
  const tree = new DecisionsTree(link, log);
  const view = vscode.window.createTreeView(DecisionsTree.viewId, { treeDataProvider: tree, showCollapseAll: true });
  const disposables: vscode.Disposable[] = [tree, view, onDecisionRecordWritten(() => void tree.refresh())];
  let watcher: vscode.FileSystemWatcher | undefined;
  const watch = (): void => {
    watcher?.dispose();
    const root = workspaceRoot();
    watcher = root
      ? vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(root, `${decisionsFolder()}/**/*.md`))
      : undefined;
    for (const on of watcher ? [watcher.onDidCreate, watcher.onDidChange, watcher.onDidDelete] : [])
      disposables.push(on(() => tree.refreshSoon()));
  };
  watch();
  disposables.push(
    { dispose: () => void watcher?.dispose() },
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('roundtable.decisions.unstatused')) tree.refreshSoon();
      if (!e.affectsConfiguration('roundtable.decisionsFolder')) return;
      watch();
      tree.refreshSoon();
    }),
    tree.onDidLoad(() => (view.message = tree.message())),
    link.onConnected(() => void tree.refresh()),
    vscode.commands.registerCommand(
      'roundtable.searchDecisions',
      run(() => searchDecisions(tree, view)),
    ),
    vscode.commands.registerCommand(
      'roundtable.refreshDecisions',
      run(() => tree.refresh()),
    ),
    vscode.commands.registerCommand(
      'roundtable.decisionsForFile',
      run((arg?: vscode.Uri) => governingThisFile(tree, arg)),
    ),
  );
  return { tree, disposables };
}
