/**
 * The long-lived local daemon: one per data directory. It owns the store, resumes unfinished
 * meetings at start-up, serves the WebSocket API on 127.0.0.1 and shuts down without losing
 * anything on SIGTERM/SIGINT.
 *
 * Files in the data dir (default ~/.roundtable, mode 0700):
 *   daemon.lock   "<pid> <process start>" of the daemon holding the directory (created exclusively)
 *   daemon.json   { pid, port, protocolVersion, daemonVersion, startedAt, processStart } for
 *                 clients to find it (client/src/discovery.ts says what they believe of it)
 *   token         256-bit random token, hex, mode 0600, new at every start; never sent, only
 *                 proven (client/src/proof.ts)
 *   store/        the event store (journal + sql.js snapshot)
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Participant, ProviderConfig } from '@roundtable/protocol';
import { PROTOCOL_VERSION, collapseWhitespace } from '@roundtable/protocol';
import { demoEvidenceWorkspace } from '../providers/demo';
import { systemClock, type Clock } from '../meeting/clock';
import { parseScript } from '../providers/scripted';
import { meetingProviders } from '../providers/registry';
import { listModels, serverSlots } from '../modelLists';
import type { ChatProvider } from '../providers/types';
import { VscodeLmBridge } from '../providers/vscodeLm';
import { countTokens } from '../providers/tokens';
import { SqliteStore } from '../store/sqliteStore';
import { IdleWatch } from './idle';
import { KeyedLimiter } from './limiter';
import { MeetingManager } from './manager';
import { startServer, type RunningServer } from './server';
import { DAEMON_VERSION } from './handlers';
import { newMeetingId } from './ids';
import { LOCK_FILE, lockHolder, readDaemonInfo, type DaemonInfo } from '@roundtable/client/discovery';
import { apiKeyOf, apiKeysIn, baseUrlOf, defaultDataDir } from '@roundtable/client/config';
import { processIdentity } from '@roundtable/client/processIdentity';
import { ensureDir } from '@roundtable/client/outputDir';

export class DaemonAlreadyRunning extends Error {}

/** A line of the daemon's log (its stderr, which a spawned daemon appends to daemon.log), timestamped. */
export function daemonLog(line: string): void {
  process.stderr.write(`[roundtable ${new Date().toISOString()}] ${line}\n`);
}

/**
 * Takes the data dir for this process, or explains who holds it. A lock left by a dead daemon is
 * replaced; one this very process holds already is kept.
 */
async function acquireLock(dir: string, processStart: string): Promise<void> {
  const lock = path.join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fh = await fs.open(lock, 'wx', 0o600);
      await fh.writeFile(`${process.pid} ${processStart}\n`);
      await fh.close();
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const pid = await lockHolder(dir);
    if (pid === process.pid) return;
    if (pid !== undefined) {
      const info = await readDaemonInfo(dir);
      throw new DaemonAlreadyRunning(
        `a Roundtable daemon is already running for ${dir} (pid ${pid}${info ? `, port ${info.port}` : ''}); use it, stop it, or pass another --data-dir`,
      );
    }
    await fs.rm(lock, { force: true });
  }
  throw new Error(`could not take the lock ${lock}`);
}

async function writeFileAtomic(file: string, text: string, mode: number): Promise<void> {
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  const fh = await fs.open(tmp, 'w', mode);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.chmod(tmp, mode); // explicit: the process umask must not decide who can read the token
  await fs.rename(tmp, file);
}

/** Provider lookup per meeting, from the registry. OpenAI clients are shared per endpoint and key, in memory only. */
export function providerFactory(env: NodeJS.ProcessEnv, lmBridge?: VscodeLmBridge, log?: (line: string) => void) {
  const shared = new Map<string, ChatProvider>();
  return (config: ProviderConfig | undefined, apiKey: string | undefined): ((p: Participant) => ChatProvider) => {
    const apiKeyToUse = apiKeyOf(env, apiKey);
    return meetingProviders({
      baseURL: baseUrlOf(env, config?.baseURL),
      ...(apiKeyToUse ? { apiKey: apiKeyToUse } : {}),
      // Parsed at the start: a bad script is refused before the meeting runs.
      ...(config?.script !== undefined ? { script: parseScript(config.script) } : {}),
      ...(lmBridge ? { lmBridge } : {}),
      ...(log ? { log } : {}),
      listModels,
      serverSlots,
      shared,
    });
  };
}

export interface DaemonHandle {
  port: number;
  token: string;
  dataDir: string;
  manager: MeetingManager;
  /** The calls each model endpoint has under way and waiting (tests read it). */
  limiter: KeyedLimiter;
  server: RunningServer;
  /** Graceful stop: in-flight work is flushed to disk first. */
  stop(): Promise<void>;
  /** Resolves when the daemon stopped itself after `idleExitMs` with no client and no running meeting. */
  idleExit: Promise<void>;
}

export interface DaemonOptions {
  dataDir?: string;
  port?: number;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** Wraps every provider the daemon builds (benchmarks time the model calls with it). */
  wrapProvider?: (p: ChatProvider) => ChatProvider;
  /** Stop after this long with no client connected and no meeting running (default: never). */
  idleExitMs?: number;
  /** The clock of the idle exit (tests pass a fake one). */
  idleClock?: Clock;
  /** How long a new connection has to complete the handshake (default: the server's, 10 s). */
  handshakeMs?: number;
  /**
   * Most calls one endpoint takes at once (`roundtable daemon --endpoint-concurrency`; default
   * ROUNDTABLE_ENDPOINT_CONCURRENCY, else none: each endpoint takes its largest round at once).
   */
  endpointConcurrency?: number;
}

/** Most calls at once the setting may ask of one endpoint. */
export const MAX_ENDPOINT_CONCURRENCY = 1_000;

/**
 * The daemon's ceiling on calls at once per endpoint: the option, else
 * ROUNDTABLE_ENDPOINT_CONCURRENCY, else none (Infinity). A value that is no whole number from 1 to
 * `MAX_ENDPOINT_CONCURRENCY` is refused in one line before anything starts.
 */
export function endpointCeiling(env: NodeJS.ProcessEnv, option?: number | string): number {
  const raw = option !== undefined ? String(option).trim() : env.ROUNDTABLE_ENDPOINT_CONCURRENCY?.trim();
  if (raw === undefined || raw === '') return Infinity;
  const n = Number(raw);
  if (!/^\d{1,4}$/.test(raw) || n < 1 || n > MAX_ENDPOINT_CONCURRENCY) {
    const from = option !== undefined ? '--endpoint-concurrency' : 'ROUNDTABLE_ENDPOINT_CONCURRENCY';
    throw new Error(
      `${from} must be a whole number from 1 to ${MAX_ENDPOINT_CONCURRENCY} (got ${JSON.stringify(raw.slice(0, 40))}); leave it unset to let each endpoint take a whole round at once`,
    );
  }
  return n;
}

/** The provider lookup of the manager; with `wrap`, every provider built is wrapped once. */
function managerProviders(
  env: NodeJS.ProcessEnv,
  lmBridge: VscodeLmBridge,
  wrap: ((p: ChatProvider) => ChatProvider) | undefined,
  log: (line: string) => void,
): ReturnType<typeof providerFactory> {
  if (!wrap) return providerFactory(env, lmBridge, log);
  return (config, apiKey) => {
    const lookup = providerFactory(env, lmBridge, log)(config, apiKey);
    const wrapped = new Map<ChatProvider, ChatProvider>();
    return (p) => {
      const inner = lookup(p);
      let w = wrapped.get(inner);
      if (!w) wrapped.set(inner, (w = wrap(inner)));
      return w;
    };
  };
}

function newManager(
  store: SqliteStore,
  env: NodeJS.ProcessEnv,
  lmBridge: VscodeLmBridge,
  opts: DaemonOptions,
  log: (line: string) => void,
  token: string,
  limiter: KeyedLimiter,
): MeetingManager {
  return new MeetingManager({
    store,
    clock: systemClock,
    providers: managerProviders(env, lmBridge, opts.wrapProvider, log),
    limiter,
    log,
    newId: () => newMeetingId(),
    evidenceWorkspace: demoEvidenceWorkspace,
    secrets: [token, ...apiKeysIn(env)],
  });
}

/** Writes daemon.json, by which clients find this daemon and tell it from a stranger with its pid. */
async function writeDaemonInfo(dataDir: string, port: number, processStart: string): Promise<void> {
  const info: DaemonInfo = {
    pid: process.pid,
    port,
    protocolVersion: PROTOCOL_VERSION,
    daemonVersion: DAEMON_VERSION,
    startedAt: Date.now(),
    processStart,
  };
  await writeFileAtomic(path.join(dataDir, 'daemon.json'), `${JSON.stringify(info, null, 2)}\n`, 0o600);
}

async function resumeMeetings(manager: MeetingManager, dataDir: string): Promise<void> {
  try {
    await manager.resumeAll();
  } catch (e) {
    throw new Error(
      `could not resume the unfinished meetings in ${path.join(dataDir, 'store')} (${collapseWhitespace((e as Error).message)}); nothing was changed: fix or move that folder aside, then start again`,
      { cause: e },
    );
  }
}

/** The parts of a daemon that are running, and whether an idle watch guards them. */
interface Running {
  dataDir: string;
  store: SqliteStore;
  server: RunningServer;
  manager: MeetingManager;
  log: (line: string) => void;
  idle: { watch?: IdleWatch };
}

/** The graceful stop: once only, in-flight work flushed to disk before the files are removed. */
function stopper(r: Running): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return (): Promise<void> =>
    (stopping ??= (async () => {
      r.idle.watch?.dispose();
      r.log('shutting down: flushing meetings to disk');
      await r.server.close();
      await r.manager.shutdown();
      await r.store.close();
      await fs.rm(path.join(r.dataDir, 'daemon.json'), { force: true });
      await fs.rm(path.join(r.dataDir, LOCK_FILE), { force: true });
      r.log('stopped');
    })());
}

/** Stops the daemon after `ms` with no client and no running meeting; `idleExited` is told then. */
function watchIdle(r: Running, ms: number, clock: Clock, stop: () => Promise<void>, idleExited: () => void): void {
  const idle = new IdleWatch({
    ms,
    clock,
    busy: () => r.server.connections() > 0 || r.manager.running() > 0,
    onIdle: () => {
      r.log(`idle for ${Math.round(ms / 1000)} s with no client and no running meeting: stopping`);
      void stop().then(idleExited, idleExited);
    },
  });
  r.idle.watch = idle;
  r.manager.onRunningChange = () => r.idle.watch?.check();
  idle.check();
}

export async function startDaemon(opts: DaemonOptions): Promise<DaemonHandle> {
  const env = opts.env ?? process.env;
  // A bad setting is refused before the data dir is touched.
  const ceiling = endpointCeiling(env, opts.endpointConcurrency);
  const dataDir = path.resolve(opts.dataDir ?? defaultDataDir(env));
  const log = opts.log ?? daemonLog;
  await ensureDir(dataDir, 0o700);
  // Clients believe daemon.json's pid only while its process started at this moment.
  const processStart = (await processIdentity(process.pid))?.start;
  if (!processStart)
    throw new Error(
      'cannot read this process start time (from /proc or ps), which clients need to tell this daemon from a reused pid',
    );
  await acquireLock(dataDir, processStart);
  let store: SqliteStore | undefined;
  let server: RunningServer | undefined;
  let manager: MeetingManager | undefined;
  try {
    store = await SqliteStore.open(path.join(dataDir, 'store'), { log });
    const lmBridge = new VscodeLmBridge(log);
    const token = randomBytes(32).toString('hex');
    // VS Code's models are scheduled by the window; OpenAI-compatible endpoints by the limiter.
    const limiter = new KeyedLimiter((key) => (key.startsWith('openai@') ? ceiling : 0));
    manager = newManager(store, env, lmBridge, opts, log, token, limiter);
    await writeFileAtomic(path.join(dataDir, 'token'), `${token}\n`, 0o600);
    const idle: Running['idle'] = {};
    let idleExited: () => void = () => undefined;
    const idleExit = new Promise<void>((resolve) => (idleExited = resolve));
    server = await startServer({
      manager,
      token,
      port: opts.port ?? 0,
      log,
      lmBridge,
      onConnectionsChange: () => idle.watch?.check(),
      ...(opts.handshakeMs !== undefined ? { handshakeMs: opts.handshakeMs } : {}),
    });
    await writeDaemonInfo(dataDir, server.port, processStart);
    log(`listening on 127.0.0.1:${server.port} (data dir ${dataDir})`);
    // Building the tokenizer takes about a second of CPU: do it now, not in the first meeting's fan-out.
    setImmediate(() => countTokens('warm up'));
    await resumeMeetings(manager, dataDir);
    const running: Running = { dataDir, store, server, manager, log, idle };
    const stop = stopper(running);
    if (opts.idleExitMs !== undefined && opts.idleExitMs > 0) {
      watchIdle(running, opts.idleExitMs, opts.idleClock ?? systemClock, stop, idleExited);
    }
    return { port: server.port, token, dataDir, manager, limiter, server, stop, idleExit };
  } catch (e) {
    // A failed start-up leaves no half-daemon behind (no listener, no daemon.json) and writes no
    // snapshot: a snapshot now could promote the very copy that failed and delete journals.
    await server?.close().catch(() => undefined);
    await manager?.shutdown().catch(() => undefined);
    await store?.abandon().catch(() => undefined);
    await fs.rm(path.join(dataDir, 'daemon.json'), { force: true });
    await fs.rm(path.join(dataDir, LOCK_FILE), { force: true });
    throw e;
  }
}
