import * as vscode from 'vscode';

/** Activation: the Output channel every later part logs to (never a secret in it). */
export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Roundtable', { log: true });
  context.subscriptions.push(log);
  log.info('Roundtable activated');
}

export function deactivate(): void {
  // Nothing to release yet: subscriptions are disposed by VS Code.
}
