/**
 * A daemon of another protocol version, as its own process: it writes `daemon.json` and `token`
 * the way a daemon of that version does (client/src/discovery.ts reads them: up to protocol 3
 * without the process start, which clients then judge by the command line, `… daemon --data-dir
 * DIR`, as the real one's), answers `initialize` over a real WebSocket on loopback as a daemon of
 * that version would (refusing any other version), and on SIGTERM removes `daemon.json` and exits
 * 0, as the real one does.
 *
 *   node --import tsx test/fakes/otherDaemon.ts daemon --data-dir <dataDir> --protocol <version>
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { WebSocketServer } from 'ws';
import { PROCESS_START_SINCE_PROTOCOL, type DaemonInfo } from '@roundtable/client';
import { processIdentity } from '@roundtable/client/processIdentity';

async function serve(dataDir: string, version: number): Promise<void> {
  const processStart = (await processIdentity(process.pid))?.start;
  const token = randomBytes(32).toString('hex');
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    verifyClient: (info: { req: { headers: Record<string, string | string[] | undefined> } }) =>
      info.req.headers.authorization === `Bearer ${token}`,
  });
  wss.on('connection', (ws) =>
    ws.on('message', (data: Buffer) => {
      const m = JSON.parse(data.toString()) as { id: number; method: string; params: { protocolVersion?: number } };
      const answer =
        m.method === 'initialize' && m.params.protocolVersion === version
          ? { ok: true, result: { protocolVersion: version, daemonVersion: `old-${version}` } }
          : {
              ok: false,
              error: {
                code: 'version_mismatch',
                message: `protocol version ${m.params.protocolVersion} is not supported`,
              },
            };
      ws.send(JSON.stringify({ kind: 'response', id: m.id, ...answer }));
    }),
  );
  wss.on('listening', () => {
    const info: DaemonInfo = {
      pid: process.pid,
      port: (wss.address() as AddressInfo).port,
      protocolVersion: version,
      daemonVersion: `old-${version}`,
      startedAt: Date.now(),
      ...(version >= PROCESS_START_SINCE_PROTOCOL && processStart ? { processStart } : {}),
    };
    writeFileSync(path.join(dataDir, 'token'), `${token}\n`, { mode: 0o600 });
    writeFileSync(path.join(dataDir, 'daemon.json'), JSON.stringify(info), { mode: 0o600 });
    process.stdout.write('listening\n');
  });
  process.once('SIGTERM', () => {
    rmSync(path.join(dataDir, 'daemon.json'), { force: true });
    process.exit(0);
  });
}

export interface OtherDaemon {
  proc: ChildProcess;
  pid: number;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
}

/** Starts one and resolves once its discovery file is written. */
export async function startOtherDaemon(dataDir: string, version: number): Promise<OtherDaemon> {
  const args = ['daemon', '--data-dir', dataDir, '--protocol', String(version)];
  const proc = spawn(process.execPath, ['--import', 'tsx', __filename, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    proc.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('listening')) resolve();
    });
    void exited.then((code) => reject(new Error(`the fake daemon exited with ${code}`)));
  });
  return { proc, pid: proc.pid ?? 0, exited };
}

if (require.main === module) void serve(process.argv[4] ?? '.', Number(process.argv[6]));
