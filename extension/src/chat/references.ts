/**
 * The chat's attached files, selections and `#file` references as the meeting's context: only
 * workspace-relative paths and line ranges go to the daemon, which reads them through the one
 * workspace gate (outside the workspace, git-ignored, secrets refused there, with a reason), as
 * for "Discuss in Roundtable". Nothing is read here.
 */
import * as vscode from 'vscode';
import type { ContextRequest } from '../../../protocol/src';
import { relative } from '../discuss';

/** The references as a context request (undefined: none), or the one line that refuses one. */
export function referencesContext(refs: readonly vscode.ChatPromptReference[]): ContextRequest | string | undefined {
  const paths: string[] = [];
  const selections: NonNullable<ContextRequest['selections']> = [];
  for (const ref of refs) {
    const v = ref.value;
    const uri = v instanceof vscode.Uri ? v : v instanceof vscode.Location ? v.uri : undefined;
    // Other values (strings, tool references) are not files: the prompt already carries them.
    if (!uri) continue;
    const rel = relative(uri);
    if (!rel) return `${uri.fsPath} is outside the workspace: @roundtable only attaches files of the open folder.`;
    const range = v instanceof vscode.Location ? v.range : undefined;
    if (range && !range.isEmpty)
      selections.push({ path: rel, startLine: range.start.line + 1, endLine: range.end.line + 1 });
    else if (!paths.includes(rel)) paths.push(rel);
  }
  if (!paths.length && !selections.length) return undefined;
  return { ...(paths.length ? { paths } : {}), ...(selections.length ? { selections } : {}) };
}
