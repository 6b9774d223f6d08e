/**
 * The chat's attached files and `#file` references as the meeting's context. Only their paths go
 * on: the convene path refuses one outside the workspace with one line, and the daemon reads the
 * rest through the one workspace gate (git-ignored, secrets refused there, with a reason), as for
 * "Discuss in Roundtable". Nothing is read here.
 */
import * as vscode from 'vscode';

/** The file paths the references name, each once; references that are not files are left to the prompt. */
export function referencePaths(refs: readonly vscode.ChatPromptReference[]): string[] {
  const paths: string[] = [];
  for (const ref of refs) {
    const v = ref.value;
    // A Location (a selection) attaches its whole file: the convene input carries paths, not ranges.
    const uri = v instanceof vscode.Uri ? v : v instanceof vscode.Location ? v.uri : undefined;
    if (uri && !paths.includes(uri.fsPath)) paths.push(uri.fsPath);
  }
  return paths;
}
