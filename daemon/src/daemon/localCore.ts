/**
 * A daemon core private to one process, for the meetings a front door runs "in this process"
 * (`roundtable run --no-daemon`, `review --no-daemon`, `resolve` of a local run, `eval`): the
 * same manager and server as the daemon's, on 127.0.0.1 with a random token that is never written,
 * reached through the same connection and meeting handle. It takes no lock and writes no
 * daemon.json: no other client finds it, and a daemon running for the same data dir is untouched.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Participant, ProviderConfig } from '@roundtable/protocol';
import { RpcError } from '@roundtable/protocol';
import { connectDaemon, type DaemonConnection } from '@roundtable/client/connection';
import { systemClock } from '../meeting/clock';
import { countTokens } from '../providers/tokens';
import type { ChatProvider } from '../providers/types';
import type { EventStore } from '../store/types';
import { MemoryStore } from '../store/memoryStore';
import { SqliteStore } from '../store/sqliteStore';
import { newMeetingId } from './ids';
import { MeetingManager } from './manager';
import { startServer } from './server';

export interface LocalCoreOptions {
  /** Where its meetings are logged (a run dir's store, or memory); the caller closes it. */
  store: EventStore;
  /** The provider lookup of each meeting, as the daemon's manager takes it. */
  providers: (config: ProviderConfig | undefined, apiKey: string | undefined) => (p: Participant) => ChatProvider;
  /** The id of the next meeting started (a run names its run dir before it starts). */
  newId?: () => string;
  /** Secrets every meeting keeps out of its log (the keys in the environment). */
  secrets?: readonly string[];
}

export interface LocalCore {
  /** A connection of this process's own: `conn.meetings.open/attach` give the meeting handle. */
  conn: DaemonConnection;
  /** Lets go: the connection, the server, then the meetings (suspended, resumable as in a daemon). */
  close(): Promise<void>;
}

/** Starts the private core and connects to it. */
export async function startLocalCore(opts: LocalCoreOptions): Promise<LocalCore> {
  // As the daemon does at start: the tokenizer's second of CPU is spent now, not inside the first
  // meeting's fan-out, where it would stall the calls in flight (and the sockets they wait on).
  countTokens('warm up');
  const token = randomBytes(32).toString('hex');
  let conn: DaemonConnection | undefined;
  const manager = new MeetingManager({
    store: opts.store,
    clock: systemClock,
    providers: opts.providers,
    // The daemon's journal lines (a meeting closed, resumed) are not the terminal's.
    log: () => undefined,
    newId: opts.newId ?? newMeetingId,
    secrets: [token, ...(opts.secrets ?? [])],
    // A loop that stopped on an error ends the waits in one line, as it ended the command before.
    onStopped: (meetingId, e) => conn?.meetings.end(`meeting ${meetingId} stopped on an error: ${e.message}`),
  });
  const server = await startServer({ manager, token, port: 0, log: () => undefined });
  try {
    conn = await connectDaemon(server.port, token, { client: 'roundtable-local' });
  } catch (e) {
    await server.close();
    await manager.shutdown();
    throw e;
  }
  const connected = conn;
  let closing: Promise<void> | undefined;
  return {
    conn: connected,
    close: () =>
      (closing ??= (async () => {
        await connected.close();
        await server.close();
        await manager.shutdown();
      })()),
  };
}

export interface RunDirOptions {
  /** The provider lookup of each meeting (the daemon's `providerFactory`). */
  providers: LocalCoreOptions['providers'];
  /** Secrets every meeting keeps out of its log. */
  secrets?: readonly string[];
  /** A meeting a run left there, to resume or answer: refused in one line (`not_found`) when there is none. */
  kept?: boolean;
  /** Opened to read: nothing is written back (no snapshot, nothing rotated), as a quarantined run's files stay. */
  readOnly?: boolean;
}

/**
 * A core of this process whose meeting is logged in `<dataDir>/runs/<meetingId>`, where
 * `roundtable resolve` and `roundtable minutes` find it: a new run's (named before it starts; the
 * folder is removed again if no meeting started) or one a run left there. The front doors read
 * it through the connection and the meeting handle, never the store.
 */
export async function startRunDirCore(dataDir: string, meetingId: string, opts: RunDirOptions): Promise<LocalCore> {
  const runDir = path.join(dataDir, 'runs', meetingId);
  const store = await SqliteStore.open(runDir);
  const started = async (): Promise<boolean> => (await store.meetings()).includes(meetingId);
  const closeStore = async (): Promise<void> => {
    if (opts.readOnly) return store.abandon();
    const keep = opts.kept || (await started());
    await store.close();
    if (!keep) await fs.rm(runDir, { recursive: true, force: true });
  };
  try {
    if (opts.kept && !opts.readOnly && !(await started()))
      throw new RpcError('not_found', `no meeting ${meetingId} in ${runDir}`);
    const core = await startLocalCore({
      store,
      providers: opts.providers,
      newId: () => meetingId,
      ...(opts.secrets ? { secrets: opts.secrets } : {}),
    });
    return {
      conn: core.conn,
      close: async () => {
        await core.close();
        await closeStore();
      },
    };
  } catch (e) {
    await closeStore();
    throw e;
  }
}

/**
 * A core that keeps nothing and calls no model, for what is asked without a meeting (an estimate):
 * nothing is written, and a meeting started in it fails its first call in one line.
 */
export function startMemoryCore(): Promise<LocalCore> {
  const none = (p: Participant): ChatProvider => ({
    id: 'none',
    chat: () => Promise.reject(new Error(`${p.name}: this core answers estimates only; no model is called`)),
  });
  return startLocalCore({ store: new MemoryStore(), providers: () => none });
}
