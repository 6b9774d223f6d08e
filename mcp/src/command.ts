/** `roundtable mcp`: the roundtable tools as an MCP server over stdio, backed by the local daemon. */
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { DaemonSession, defaultDataDir } from '@roundtable/client';
import { serveStdio } from './mcpServer';
import { UsageError, checkDataDir, parseCli } from '@roundtable/client/usage';

export const MCP_USAGE = `Usage: roundtable mcp [--data-dir DIR] [--workspace DIR] [--out DIR]

  Serves the roundtable tools (deliberate, review; open, join, speak, listen, cut, leave, close)
  over stdio for MCP clients, through the local daemon (started if none is running). stdout carries
  MCP only; logs go to stderr.

  deliberate runs a whole meeting on the panel 'roundtable run' would choose: $ROUNDTABLE_BASE_URL,
  an API key ($ROUNDTABLE_API_KEY or $OPENAI_API_KEY), or a local server (Ollama, LM Studio, vLLM).
  Context paths are read from --workspace (default: the current folder), through the workspace
  gate; minutes go to --out (default: docs/roundtable in the workspace). review reviews the change
  in --workspace (a git repository) against its accepted decision records on the same panel.`;

export async function mcpCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseCli({
    args: argv,
    allowPositionals: false,
    options: {
      'data-dir': { type: 'string' },
      workspace: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stderr.write(`${MCP_USAGE}\n`);
    return 0;
  }
  const dataDir = checkDataDir(values['data-dir'] ?? defaultDataDir(env));
  // MCP clients start servers in different folders (the project, the home): say which one is meant.
  const workspace = path.resolve(values.workspace ?? process.cwd());
  if (!statSync(workspace, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(
      `--workspace ${workspace} is not a folder: give the project folder deliberate reads context from`,
    );
  const say = (line: string): void => {
    process.stderr.write(`roundtable mcp: ${line}\n`);
  };
  // One link for the session: a daemon that restarts is reached again by the next tool call.
  const daemon = new DaemonSession({
    dataDir: () => dataDir,
    spawn: {},
    client: 'roundtable-mcp',
    agent: true,
    reconnect: 'on-demand',
    log: { info: say, warn: say, error: say },
  });
  await daemon.connection();
  await serveStdio(daemon, {
    env,
    workspace,
    minutesDir: path.resolve(workspace, values.out ?? path.join('docs', 'roundtable')),
  });
  return 0;
}
