/**
 * Finding the daemon of a data dir: `daemon.json` says where it listens, `token` (0600) lets a
 * client in. The daemon writes both at start (daemon/src/daemon/daemon.ts); every client reads
 * them here.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface DaemonInfo {
  pid: number;
  port: number;
  protocolVersion: number;
  daemonVersion: string;
  startedAt: number;
}

export interface FoundDaemon {
  info: DaemonInfo;
  token: string;
}

/** `$ROUNDTABLE_HOME`, else `~/.roundtable`: shared by the CLI, the MCP server and VS Code. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.ROUNDTABLE_HOME || path.join(os.homedir(), '.roundtable');
}

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function readDaemonInfo(dir: string): Promise<DaemonInfo | undefined> {
  try {
    const v = JSON.parse(await fs.readFile(path.join(dir, 'daemon.json'), 'utf8')) as DaemonInfo;
    return typeof v.port === 'number' && typeof v.pid === 'number' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The running daemon of a data dir with its token, or undefined when none is alive. */
export async function findDaemon(dir: string): Promise<FoundDaemon | undefined> {
  const info = await readDaemonInfo(dir);
  if (!info || !isAlive(info.pid)) return undefined;
  try {
    const token = (await fs.readFile(path.join(dir, 'token'), 'utf8')).trim();
    return { info, token };
  } catch {
    return undefined;
  }
}
