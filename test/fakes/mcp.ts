/** An MCP client (the official SDK's) on `roundtable mcp` over real stdio, as an agent would run it. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { after, before } from 'node:test';
import { BIN, ensureBuilt } from './cli';
import { spawnDaemonProcess, tempDataDir, type DaemonProcess } from './daemon';

export interface McpClientOptions {
  /** The MCP server's working folder: the workspace `deliberate` reads context from. */
  cwd?: string;
  /** Extra arguments of `roundtable mcp` (e.g. `--out DIR`). */
  args?: string[];
  /** The MCP server's environment on top of the SDK's default one (which passes no keys). */
  env?: Record<string, string>;
}

export async function mcpClient(dataDir: string, name: string, o: McpClientOptions = {}): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--data-dir', dataDir, ...(o.args ?? [])],
      ...(o.cwd ? { cwd: o.cwd } : {}),
      // No local servers probed unless the test names some: this machine's ports must not choose the panel.
      env: { ...getDefaultEnvironment(), ROUNDTABLE_PROBE_SERVERS: '', ...o.env },
      stderr: 'ignore',
    }),
  );
  return client;
}

type Content = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: unknown };

/** Calls a tool; its text joined, and whether it is an error. */
export async function callText(
  c: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ text: string; isError: boolean; structured: unknown }> {
  const r = (await c.callTool({ name, arguments: args })) as Content;
  return {
    text: r.content.map((x) => x.text).join('\n'),
    isError: r.isError === true,
    structured: r.structuredContent,
  };
}

/**
 * For a suite: a spawned daemon (the built CLI) and the MCP sessions the tests open on it with
 * `agent`, all closed after the suite.
 */
export function mcpSessions(): { daemon: () => DaemonProcess; agent: (name: string) => Promise<Client> } {
  let dataDir = '';
  let daemon: DaemonProcess | undefined;
  const clients: Client[] = [];
  before(async () => {
    ensureBuilt();
    dataDir = await tempDataDir();
    daemon = await spawnDaemonProcess(dataDir);
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await daemon?.stop();
  });
  return {
    daemon: () => {
      if (!daemon) throw new Error('the daemon starts in the suite’s before hook');
      return daemon;
    },
    agent: async (name) => {
      const c = await mcpClient(dataDir, name);
      clients.push(c);
      return c;
    },
  };
}
