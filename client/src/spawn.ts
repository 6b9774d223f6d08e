/**
 * Starts a detached daemon for a data dir and waits until it can be found. The client owns the
 * daemon's lifecycle, so a daemon left by an older install (an older protocol) is stopped and
 * replaced; its meetings are in the log and resume in the new one. A newer daemon belongs to a
 * newer install that this client cannot speak to: it is left alone and refused in one line.
 */
import { spawn } from 'node:child_process';
import { openSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { PROTOCOL_VERSION } from '@roundtable/protocol';
import { findDaemon, lockHolder, type DaemonInfo, type FoundDaemon } from './discovery';
import { ensureDir } from './outputDir';
import { UNPROVEN_START, processIdentity } from './processIdentity';

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
  await ensureDir(dataDir, 0o700);
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
  const timeoutMs = opts.timeoutMs ?? 20_000;
  let deadline = Date.now() + timeoutMs;
  let lost = false;
  while (Date.now() < deadline) {
    const found = await findDaemon(dataDir);
    if (found) return found;
    if (child.exitCode !== null) {
      // Ours exited: when another daemon started at the same time holds the lock (two clients
      // started one each), ours lost the race and the winner's daemon.json is to come; once
      // nobody holds it, no daemon is starting.
      if ((await lockHolder(dataDir)) === undefined) break;
      if (!lost) {
        lost = true;
        deadline = Date.now() + timeoutMs;
        opts.log?.('another daemon is starting for this data dir; waiting for it');
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const tail = (await fs.readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-15).join('\n');
  opts.log?.(`the daemon did not start. Last lines of ${logFile}:\n${tail}`);
  throw new Error(`the Roundtable daemon did not start; see its log ${logFile}`);
}

/** The one-line refusal of a daemon this client cannot speak to, or undefined when it can. */
export function incompatibility(info: DaemonInfo, dataDir: string): string | undefined {
  const v = info.protocolVersion;
  if (v === PROTOCOL_VERSION) return undefined;
  const fix =
    v > PROTOCOL_VERSION
      ? 'it comes from a newer install: update this Roundtable to use it'
      : 'it comes from an older install: stop it so this one can start its own';
  return `the Roundtable daemon for ${dataDir} (pid ${info.pid}) speaks protocol ${v} and this client ${PROTOCOL_VERSION}; ${fix}`;
}

/**
 * Asks an older daemon to stop (SIGTERM: it finishes its writes first) and waits until it has
 * exited. Only a daemon findDaemon proved (its pid's process started when the record says, or, for
 * a record of protocol 3 and before, legacyProof) gets here; the process is checked again right
 * before the signal, and its exit is watched by the same identity, so a pid reused meanwhile is
 * never signalled nor waited for.
 */
async function stopDaemon(info: DaemonInfo, dataDir: string, timeoutMs: number): Promise<void> {
  const proc = await processIdentity(info.pid);
  const found = await findDaemon(dataDir);
  if (!proc || found?.info.pid !== info.pid) return;
  if (info.processStart !== undefined && proc.start !== info.processStart) return;
  if (proc.start === UNPROVEN_START)
    throw new Error(
      `this system cannot tell whether pid ${info.pid} is still the older Roundtable daemon, so it is not signalled; stop that daemon and try again`,
    );
  try {
    process.kill(info.pid, 'SIGTERM');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
  // Another process's exit cannot be awaited; its identity is polled.
  const deadline = Date.now() + timeoutMs;
  while ((await processIdentity(info.pid))?.start === proc.start) {
    if (Date.now() > deadline)
      throw new Error(`the older Roundtable daemon (pid ${info.pid}) did not stop; stop it and try again`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The running daemon of the data dir, or a new one started for it. A daemon of an older protocol
 * is replaced; one of a newer protocol is refused with one line.
 */
export async function findOrSpawnDaemon(opts: SpawnOptions): Promise<FoundDaemon> {
  const found = await findDaemon(opts.dataDir, (why) =>
    opts.log?.(`a stale daemon.json in ${opts.dataDir} is ignored (${why}); nothing is signalled`),
  );
  if (!found) return spawnDaemon(opts);
  const refusal = incompatibility(found.info, opts.dataDir);
  if (!refusal) return found;
  if (found.info.protocolVersion > PROTOCOL_VERSION) throw new Error(refusal);
  opts.log?.(`replacing the daemon of an older install: ${refusal}`);
  await stopDaemon(found.info, opts.dataDir, opts.timeoutMs ?? 20_000);
  return spawnDaemon(opts);
}
