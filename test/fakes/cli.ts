import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
const NO_DAEMON_HOME = path.join(tmpdir(), `rt-no-daemon-${process.pid}`);
export const BIN = path.join(ROOT, 'bin', 'roundtable.js');

/** Builds the bundles once if a test runs without `npm test` having built them. */
export function ensureBuilt(): void {
  if (existsSync(path.join(ROOT, 'dist', 'daemon', 'cli.js'))) return;
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed');
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `roundtable` command as a user would, in its own process. */
export function cli(
  args: string[],
  /** bin: an installed `roundtable` command to run instead of this checkout's. */
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; bin?: string } = {},
): Promise<CliResult> {
  return runScript(BIN, args, opts);
}

/** Runs a Node script (`roundtable`, or a real client such as the MCP Inspector) in the same isolated env. */
export function runScript(
  script: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; bin?: string } = {},
): Promise<CliResult> {
  const name = script === BIN ? 'roundtable' : path.basename(script);
  return new Promise((resolve, reject) => {
    const [command, argv] = opts.bin ? [opts.bin, args] : [process.execPath, [script, ...args]];
    const child = spawn(command, argv, {
      cwd: opts.cwd ?? ROOT,
      // A home with no daemon in it, unless the test gives one: runs stay in-process and isolated.
      // No local servers probed (unless the test names some): what runs on this machine's ports
      // must not decide which panel a test gets.
      env: {
        ...process.env,
        ROUNDTABLE_API_KEY: '',
        OPENAI_API_KEY: '',
        ROUNDTABLE_HOME: NO_DAEMON_HOME,
        ROUNDTABLE_PROBE_SERVERS: '',
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} ${args.join(' ')} did not finish; stderr: ${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
