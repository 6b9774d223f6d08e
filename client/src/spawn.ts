/** Starts a detached daemon for a data dir and waits until it can be found. */
import { spawn } from 'node:child_process';
import { openSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { findDaemon, type FoundDaemon } from './discovery';

export interface SpawnOptions {
  dataDir: string;
  /** The bundled CLI (dist/daemon/cli.js); default: the script this process runs. */
  script?: string;
  /**
   * Run it with this process's executable as Node. Inside VS Code that executable is Electron:
   * `ELECTRON_RUN_AS_NODE` makes it a plain Node, so no separate Node install is needed.
   */
  electronAsNode?: boolean;
  timeoutMs?: number;
  log?: (line: string) => void;
  /** More arguments for `roundtable daemon`, e.g. `['--idle-exit-ms', '600000']`. */
  args?: () => string[];
}

export async function spawnDaemon(opts: SpawnOptions): Promise<FoundDaemon> {
  const { dataDir } = opts;
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const logFile = path.join(dataDir, 'daemon.log');
  const out = openSync(logFile, 'a', 0o600);
  const script = opts.script ?? process.argv[1] ?? '';
  const args = ['daemon', '--data-dir', dataDir, ...(opts.args?.() ?? [])];
  opts.log?.(`starting the daemon: ${script} ${args.join(' ')}`);
  const child = spawn(process.execPath, [script, ...args], {
    detached: true,
    stdio: ['ignore', out, out],
    env: opts.electronAsNode ? { ...process.env, ELECTRON_RUN_AS_NODE: '1' } : process.env,
  });
  child.unref();
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  while (Date.now() < deadline) {
    const found = await findDaemon(dataDir);
    if (found) return found;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const tail = (await fs.readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-15).join('\n');
  opts.log?.(`the daemon did not start. Last lines of ${logFile}:\n${tail}`);
  throw new Error(`the Roundtable daemon did not start; see its log ${logFile}`);
}

/** The running daemon of the data dir, or a new one started for it. */
export async function findOrSpawnDaemon(opts: SpawnOptions): Promise<FoundDaemon> {
  return (await findDaemon(opts.dataDir)) ?? (await spawnDaemon(opts));
}
