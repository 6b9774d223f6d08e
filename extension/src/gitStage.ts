/** Staging what Accept wrote, through the built-in Git extension. */
import * as vscode from 'vscode';

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
