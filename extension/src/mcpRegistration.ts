import * as path from 'node:path';
import * as vscode from 'vscode';
import { dataDir } from './daemonLink';

/**
 * Lets VS Code's agent mode find the roundtable MCP server without hand-written config, where the
 * VS Code version has the API (1.101+); older versions keep working without it.
 */
export function registerMcpServer(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  interface McpApi {
    registerMcpServerDefinitionProvider?(
      id: string,
      provider: { provideMcpServerDefinitions(): unknown[] },
    ): vscode.Disposable;
  }
  const lm = vscode.lm as unknown as McpApi;
  const Definition = (
    vscode as unknown as {
      McpStdioServerDefinition?: new (
        label: string,
        command: string,
        args: string[],
        env: Record<string, string>,
      ) => unknown;
    }
  ).McpStdioServerDefinition;
  if (!lm.registerMcpServerDefinitionProvider || !Definition) {
    log.info('this VS Code has no MCP server API; configure "roundtable mcp" by hand (see docs/agents.md)');
    return;
  }
  const script = path.join(context.extensionPath, 'dist', 'daemon', 'cli.js');
  try {
    context.subscriptions.push(
      lm.registerMcpServerDefinitionProvider('roundtable.mcp', {
        // deliberate reads context from, and writes minutes into, the open folder: not wherever
        // VS Code happens to start the server.
        provideMcpServerDefinitions: () => {
          const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
          const args = [script, 'mcp', '--data-dir', dataDir(), ...(folder ? ['--workspace', folder] : [])];
          return [new Definition('Roundtable', process.execPath, args, { ELECTRON_RUN_AS_NODE: '1' })];
        },
      }),
    );
  } catch (e) {
    // Versions where the API is still a proposal refuse the call: the server is then configured by hand.
    log.info(
      `MCP server registration is not available here (${(e as Error).message}); configure "roundtable mcp" by hand (see docs/agents.md)`,
    );
  }
}
