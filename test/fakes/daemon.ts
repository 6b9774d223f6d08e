/** Real daemons for tests: in-process, or as a child process that can be SIGKILLed. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { DaemonEvents, MeetingEvent, MessageDelta } from '@roundtable/protocol';
import { connectDaemon, type DaemonConnection } from '@roundtable/client';
import { after, before } from 'node:test';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { findDaemon } from '@roundtable/client/discovery';
import { BIN } from './cli';

export async function tempDataDir(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'rt-daemon-'));
}

export interface DaemonProcess {
  port: number;
  token: string;
  dataDir: string;
  proc: ChildProcess;
  output: () => string;
  kill9(): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resolves with the exit code once the process has exited (on its own or not). */
  exited: Promise<number | null>;
}

/** Starts `roundtable daemon` as its own process and waits for daemon.json. */
export async function spawnDaemonProcess(
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
  args: string[] = [],
): Promise<DaemonProcess> {
  const proc = spawn(process.execPath, [BIN, 'daemon', '--data-dir', dataDir, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = await findDaemon(dataDir);
    if (found && found.info.pid === proc.pid && /listening/.test(out)) {
      return {
        port: found.info.port,
        token: found.token,
        dataDir,
        proc,
        output: () => out,
        exited,
        kill9: async () => {
          proc.kill('SIGKILL');
          await exited;
        },
        stop: async (signal = 'SIGTERM') => {
          proc.kill(signal);
          return exited;
        },
      };
    }
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`daemon did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function readToken(dataDir: string): Promise<string> {
  return (await readFile(path.join(dataDir, 'token'), 'utf8')).trim();
}

/** A client that records every logged event and delta it receives, per meeting. */
export class Follower {
  readonly events: MeetingEvent[] = [];
  readonly deltas: MessageDelta[] = [];
  private waiters: (() => void)[] = [];
  conn!: DaemonConnection;

  static async connect(port: number, token: string): Promise<Follower> {
    const f = new Follower();
    f.conn = await connectDaemon(port, token, {
      client: 'test',
      // A daemon just restarted on a loaded machine replays its journal before it answers: the
      // tests that follow one are about what it serves, not how fast it starts.
      handshakeTimeoutMs: 120_000,
      onEvent: <K extends keyof DaemonEvents>(method: K, params: DaemonEvents[K]) => {
        if (method === 'room/event') f.events.push((params as DaemonEvents['room/event']).event);
        if (method === 'room/delta') f.deltas.push((params as DaemonEvents['room/delta']).delta);
        for (const w of f.waiters.splice(0)) w();
      },
    });
    return f;
  }

  /** Resolves once an event matching `pred` has arrived. */
  async until(pred: (events: MeetingEvent[]) => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred(this.events)) {
      if (Date.now() > deadline)
        throw new Error(`timed out; got ${this.events.map((e) => `${e.seq}:${e.type}`).join(' ')}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }
}

/**
 * For a suite: an in-process daemon with the person's connection following it (`host`), and more
 * connections (`connect`, e.g. as an agent), all closed after the suite.
 */
export function suiteDaemon(): {
  d: () => DaemonHandle;
  host: () => Follower;
  connect: (opts: Parameters<typeof connectDaemon>[2]) => Promise<DaemonConnection>;
} {
  let d: DaemonHandle | undefined;
  let host: Follower | undefined;
  const opened: DaemonConnection[] = [];
  before(async () => {
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: () => undefined });
    host = await Follower.connect(d.port, d.token);
  });
  after(async () => {
    await Promise.all(opened.map((c) => c.close().catch(() => undefined)));
    await host?.conn.close();
    await d?.stop();
  });
  const started = (): DaemonHandle => {
    if (!d) throw new Error('the daemon starts in the suite’s before hook');
    return d;
  };
  return {
    d: started,
    host: () => host as Follower,
    connect: async (opts) => {
      const c = await connectDaemon(started().port, started().token, opts);
      opened.push(c);
      return c;
    },
  };
}
