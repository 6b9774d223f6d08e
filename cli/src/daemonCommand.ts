/** `roundtable daemon`: runs the long-lived local daemon in the foreground until SIGTERM/SIGINT. */

import { defaultDataDir } from '@roundtable/client';
import {
  DaemonAlreadyRunning,
  MAX_ENDPOINT_CONCURRENCY,
  daemonLog,
  endpointCeiling,
  startDaemon,
} from '../../daemon/src/daemon/daemon';
import { installFaultHandlers } from '../../daemon/src/daemon/faults';
import { UsageError, parseCli, checkDataDir } from '@roundtable/client/usage';

export const DAEMON_USAGE = `Usage: roundtable daemon [--data-dir DIR] [--port N] [--idle-exit-ms MS] [--endpoint-concurrency N]

  --data-dir DIR   where meetings, the token and daemon.json live (default $ROUNDTABLE_HOME or ~/.roundtable)
  --port N         port on 127.0.0.1 (default 0: any free port, written to <data-dir>/daemon.json)
  --idle-exit-ms MS  stop after MS milliseconds with no client connected and no meeting running
                   (default 0: keep running until SIGTERM/SIGINT)
  --endpoint-concurrency N
                   most model calls one OpenAI-compatible endpoint takes at once, 1 to ${MAX_ENDPOINT_CONCURRENCY}
                   (default $ROUNDTABLE_ENDPOINT_CONCURRENCY, else no ceiling). By default an endpoint
                   takes as many calls at once as the largest round of the meetings on it (every
                   worker of a round in parallel), fewer only when its server reports fewer slots
                   (llama.cpp's /props total_slots). Meetings on one endpoint share its slots fairly:
                   a meeting below its share never waits for another's calls, so a hanging model
                   slows only its own meeting.`;

export async function daemonCommand(argv: string[]): Promise<number> {
  const { values } = parseCli({
    args: argv,
    allowPositionals: false,
    options: {
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      'idle-exit-ms': { type: 'string' },
      'endpoint-concurrency': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${DAEMON_USAGE}\n`);
    return 0;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535 || !/^\d+$/.test(values.port ?? '0')) {
    throw new UsageError(`--port must be an integer from 0 to 65535, got "${values.port}"`);
  }
  const idle = values['idle-exit-ms'] ?? '0';
  if (!/^\d{1,10}$/.test(idle)) {
    throw new UsageError(`--idle-exit-ms must be a whole number of milliseconds (0 = never), got "${idle}"`);
  }
  const idleExitMs = Number(idle);
  // The flag, else the environment's setting: a bad one is a usage error before anything starts.
  let concurrency: number;
  try {
    concurrency = endpointCeiling(process.env, values['endpoint-concurrency']);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  // The handlers go in before start-up: a SIGTERM that arrives while the daemon resumes meetings
  // (it already says "listening") must still stop it cleanly, not kill it with its lock held.
  let signalled: string | undefined;
  let onSignal: (signal: string) => void = (signal) => (signalled ??= signal);
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
  // A fault nobody awaited fails its meeting or request and is logged with the daemon's lines; the
  // daemon keeps serving (faults.ts).
  installFaultHandlers(daemonLog);
  let daemon;
  try {
    daemon = await startDaemon({
      dataDir: checkDataDir(values['data-dir'] ?? defaultDataDir()),
      port,
      ...(idleExitMs > 0 ? { idleExitMs } : {}),
      ...(Number.isFinite(concurrency) ? { endpointConcurrency: concurrency } : {}),
    });
  } catch (e) {
    if (e instanceof DaemonAlreadyRunning) throw new UsageError(e.message);
    throw e;
  }
  const started = daemon;
  process.stdout.write(`roundtable daemon listening on 127.0.0.1:${started.port} (data dir ${started.dataDir})\n`);
  return new Promise<number>((resolve) => {
    const stop = (signal: string): void => {
      process.stderr.write(`received ${signal}\n`);
      started
        .stop()
        .then(() => resolve(0))
        .catch((e: unknown) => {
          process.stderr.write(`roundtable: shutdown failed: ${(e as Error).message}\n`);
          resolve(1);
        });
    };
    void started.idleExit.then(() => resolve(0));
    onSignal = stop;
    if (signalled !== undefined) stop(signalled);
  });
}
