/** Starts a detached daemon for a data dir and waits until it answers. */
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { findDaemon, type DaemonInfo } from '../daemon/daemon';

export async function spawnDaemon(dataDir: string, timeoutMs = 15_000): Promise<{ info: DaemonInfo; token: string }> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const logFile = path.join(dataDir, 'daemon.log');
  const out = openSync(logFile, 'a', 0o600);
  const child = spawn(process.execPath, [process.argv[1] ?? '', 'daemon', '--data-dir', dataDir], {
    detached: true,
    stdio: ['ignore', out, out],
    env: process.env,
  });
  child.unref();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = await findDaemon(dataDir);
    if (found) return found;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the daemon did not start; see ${logFile}`);
}
