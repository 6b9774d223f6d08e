/**
 * Finding the daemon of a data dir: `daemon.json` says where it listens and which process it is,
 * `token` (0600) is the secret a client proves it holds (client/src/proof.ts; never sent). The
 * daemon writes both at start (daemon/src/daemon/daemon.ts); every client reads them here.
 *
 * Nothing in them is believed on its word. Each file is read only when it is a regular file of
 * this user, not a symlink, FIFO or device, and small; `daemon.json` must fit its schema; and its
 * pid counts only while the process behind it started at the recorded moment
 * (processIdentity.ts). Anything else is a stale entry: ignored, never signalled, left for the next
 * daemon to overwrite. Whether whoever listens on the port is the daemon is settled by the
 * handshake (connection.ts) before the token's proof or any key is sent.
 */
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { processIdentity, type ProcessIdentity } from './processIdentity';

export interface DaemonInfo {
  pid: number;
  port: number;
  protocolVersion: number;
  daemonVersion: string;
  /** When the daemon wrote the file, ms since the epoch. */
  startedAt: number;
  /** The daemon process's start as processIdentity() reads it (protocol 4 on). */
  processStart?: string;
}

export interface FoundDaemon {
  info: DaemonInfo;
  token: string;
}

/** The first protocol whose daemons record their process start; older records are judged by legacyProof. */
export const PROCESS_START_SINCE_PROTOCOL = 4;
/** The largest daemon.json / token / daemon.lock read; the daemon writes a few hundred bytes. */
const MAX_FILE_BYTES = 64 * 1024;

const DaemonInfoSchema = z.object({
  pid: z
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1),
  port: z.number().int().min(1).max(65535),
  protocolVersion: z.number().int().min(0).max(1_000_000),
  daemonVersion: z.string().max(200),
  startedAt: z.number().min(0).max(8.64e15),
  processStart: z.string().min(1).max(300).optional(),
});

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export type SmallFile = { ok: true; text: string; mode: number } | { ok: false; missing: boolean; why: string };

/**
 * A small file of the data dir, or why it was not read: opened without following a symlink and
 * without blocking on a FIFO, then read only if it is a regular file of this user under the cap.
 */
export async function readSmallFile(file: string, maxBytes = MAX_FILE_BYTES): Promise<SmallFile> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, missing: true, why: 'it does not exist' };
    return { ok: false, missing: false, why: code === 'ELOOP' ? 'it is a symlink' : `it cannot be opened (${code})` };
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return { ok: false, missing: false, why: 'it is not a regular file' };
    if (st.size > maxBytes) return { ok: false, missing: false, why: `it is ${st.size} bytes, more than ${maxBytes}` };
    if (process.getuid && st.uid !== process.getuid())
      return { ok: false, missing: false, why: `it belongs to another user (uid ${st.uid})` };
    const buf = Buffer.alloc(maxBytes + 1);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    if (bytesRead > maxBytes) return { ok: false, missing: false, why: `it is more than ${maxBytes} bytes` };
    return { ok: true, text: buf.subarray(0, bytesRead).toString('utf8'), mode: st.mode & 0o777 };
  } finally {
    await fh.close();
  }
}

/** daemon.json as written, if it is a safe file that fits the schema. */
export async function readDaemonInfo(dir: string): Promise<DaemonInfo | undefined> {
  const r = await parseDaemonInfo(dir);
  return r.ok ? r.info : undefined;
}

async function parseDaemonInfo(dir: string): Promise<{ ok: true; info: DaemonInfo } | { ok: false; why?: string }> {
  const file = await readSmallFile(path.join(dir, 'daemon.json'));
  if (!file.ok) return file.missing ? { ok: false } : { ok: false, why: file.why };
  let json: unknown;
  try {
    json = JSON.parse(file.text);
  } catch {
    return { ok: false, why: 'it is not JSON' };
  }
  const parsed = DaemonInfoSchema.safeParse(json);
  if (!parsed.success) return { ok: false, why: `its ${parsed.error.issues[0]?.path.join('.') || 'shape'} is invalid` };
  const { processStart, ...rest } = parsed.data;
  return { ok: true, info: processStart === undefined ? rest : { ...rest, processStart } };
}

/**
 * A record of protocol 3 or before (no process start): the process is taken for that daemon only
 * when its command line is `… daemon` for this data dir and it started before it wrote the record,
 * at most ten minutes before (opening a large store takes a while).
 */
export function legacyProof(info: DaemonInfo, dir: string, proc: ProcessIdentity): boolean {
  const at = proc.args.indexOf('--data-dir');
  const ownDir = at < 0 ? true : path.resolve(proc.args[at + 1] ?? '') === path.resolve(dir);
  const started = proc.startedMs;
  return (
    proc.args.includes('daemon') && ownDir && started <= info.startedAt + 5_000 && started >= info.startedAt - 600_000
  );
}

export type DaemonStatus =
  | { kind: 'none' }
  /** A record no live daemon matches, and why: ignored, never signalled. */
  | { kind: 'stale'; why: string }
  /** The process that wrote the record is running (proven by its start time, or legacyProof). */
  | { kind: 'live'; info: DaemonInfo };

/** Whether daemon.json names a running daemon, proven by the process's start time. */
export async function daemonStatus(dir: string): Promise<DaemonStatus> {
  const r = await parseDaemonInfo(dir);
  if (!r.ok) return r.why ? { kind: 'stale', why: `daemon.json is ignored: ${r.why}` } : { kind: 'none' };
  const { info } = r;
  const proc = await processIdentity(info.pid);
  if (!proc) return { kind: 'stale', why: `pid ${info.pid} is not running` };
  if (info.processStart !== undefined) {
    return proc.start === info.processStart
      ? { kind: 'live', info }
      : { kind: 'stale', why: `pid ${info.pid} is another process now (it started at another time)` };
  }
  if (info.protocolVersion >= PROCESS_START_SINCE_PROTOCOL)
    return { kind: 'stale', why: 'daemon.json records no process start' };
  return legacyProof(info, dir, proc)
    ? { kind: 'live', info }
    : { kind: 'stale', why: `pid ${info.pid} is not that daemon (its command line or start time differ)` };
}

/** The lock a daemon takes on its data dir while it runs: `<pid> <process start>`, created exclusively. */
export const LOCK_FILE = 'daemon.lock';

/**
 * The pid of the live process holding a data dir's lock (this one's own included), or undefined:
 * `<pid> <process start>` from this version (held while that process runs), or a bare pid from an
 * older one (held while that pid's command line is a Roundtable daemon). A lock naming a stranger
 * (a reused pid) is stale. A daemon that lost the race to start reads the winner's pid here, and
 * so does the client that started it: the winner is starting, and its daemon.json is to come.
 */
export async function lockHolder(dir: string): Promise<number | undefined> {
  const file = await readSmallFile(path.join(dir, LOCK_FILE));
  if (!file.ok) return undefined;
  const m = /^(\d{1,10})(?: (\S{1,300}))?\s*$/.exec(file.text);
  const pid = Number(m?.[1] ?? NaN);
  if (!m) return undefined;
  const proc = await processIdentity(pid);
  if (!proc) return undefined;
  // A bare pid whose command line the OS does not tell (Windows) is held: two daemons on one
  // data dir would be worse than one asked to stop by hand.
  const held = m[2] !== undefined ? proc.start === m[2] : proc.args.length === 0 || proc.args.includes('daemon');
  return held ? pid : undefined;
}

/** The daemon's token, or a one-line refusal (missing, malformed, or readable by other users). */
async function readToken(dir: string, info: DaemonInfo): Promise<string> {
  const file = path.join(dir, 'token');
  const restart = `stop the daemon (pid ${info.pid}) so its next start writes a new one`;
  const r = await readSmallFile(file, 1024);
  if (!r.ok) throw new Error(`the Roundtable daemon's token ${file} cannot be used: ${r.why}; ${restart}`);
  if (process.platform !== 'win32' && (r.mode & 0o077) !== 0)
    throw new Error(
      `the Roundtable daemon's token ${file} is readable by other users (mode 0${r.mode.toString(8)}); ${restart}`,
    );
  const token = r.text.trim();
  if (!/^[0-9a-f]{64}$/.test(token))
    throw new Error(`the Roundtable daemon's token ${file} is not 64 hex digits; ${restart}`);
  return token;
}

/**
 * The running daemon of a data dir with its token, or undefined when none is proven alive. A
 * live daemon whose token cannot be used is refused in one line.
 */
export async function findDaemon(dir: string, onStale?: (why: string) => void): Promise<FoundDaemon | undefined> {
  const status = await daemonStatus(dir);
  if (status.kind === 'stale') onStale?.(status.why);
  if (status.kind !== 'live') return undefined;
  return { info: status.info, token: await readToken(dir, status.info) };
}
