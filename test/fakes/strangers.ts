/**
 * Real processes that are not the daemon, for a stale `daemon.json` or `daemon.lock` to name: a
 * `sleep`, or a look-alike whose command line reads `… daemon --data-dir DIR` as a protocol 3
 * daemon's did. Each is killed when the test file ends (`killStrangers` in an `after`).
 */
import { spawn, type ChildProcess } from 'node:child_process';

const started: ChildProcess[] = [];

/** A long-lived child process with these arguments, once it runs. */
export async function stranger(command: string, args: string[]): Promise<ChildProcess> {
  const c = spawn(command, args, { stdio: 'ignore' });
  started.push(c);
  // libuv reports 'spawn' once the exec is done: the command line is already this one.
  await new Promise((r) => c.once('spawn', r));
  return c;
}

/** A process whose command line is `node -e … daemon --data-dir <dataDir>`, started now. */
export function daemonLookalike(dataDir: string): Promise<ChildProcess> {
  return stranger(process.execPath, ['-e', 'setInterval(() => {}, 1e9)', 'daemon', '--data-dir', dataDir]);
}

export function killStrangers(): void {
  for (const c of started) c.kill('SIGKILL');
}
