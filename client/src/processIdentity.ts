/**
 * Which process a pid names now. A pid alone proves nothing: the kernel hands a dead daemon's pid
 * to the next program, and a stale `daemon.json` or `daemon.lock` would then name a stranger. The
 * start time tells them apart: the daemon records its own, and a client believes (or signals) a
 * pid only while the process behind it started at that same moment.
 *
 * Linux: field 22 of /proc/<pid>/stat (clock ticks since boot) with the boot id, so it is exact
 * and survives clock changes. Elsewhere (macOS, the BSDs): `ps -o lstart=` in the C locale, to the
 * second. Undefined when the process is gone (or a zombie) or the OS cannot tell; Windows, see
 * unproven().
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';

export interface ProcessIdentity {
  /** Opaque, compared for equality only: `linux:<boot id>:<ticks>` or `ps:<lstart>`. */
  start: string;
  /** About when it started, ms since the epoch (for records that kept no `start`). */
  startedMs: number;
  /** Its command line's arguments, as far as the OS tells (`ps` splits on spaces). */
  args: string[];
}

/** Linux's USER_HZ: the unit of /proc/<pid>/stat's start time on every architecture Node runs on. */
const CLOCK_TICKS_PER_S = 100;
/** Field 22 (starttime) counted from field 3, the first one after the `(comm)` that may hold spaces. */
const STARTTIME_AFTER_COMM = 22 - 3;

async function fromProc(pid: number): Promise<ProcessIdentity | undefined> {
  let stat: string;
  try {
    stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = stat
    .slice(stat.lastIndexOf(')') + 1)
    .trim()
    .split(/\s+/);
  const ticks = fields[STARTTIME_AFTER_COMM];
  if (fields[0] === 'Z' || fields[0] === 'X' || !ticks || !/^\d+$/.test(ticks)) return undefined;
  const [bootId, procStat, cmdline] = await Promise.all([
    fs.readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => ''),
    fs.readFile('/proc/stat', 'utf8').catch(() => ''),
    fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => ''),
  ]);
  const btime = Number(/^btime (\d+)$/m.exec(procStat)?.[1] ?? NaN);
  return {
    start: `linux:${bootId.trim()}:${ticks}`,
    startedMs: (btime + Number(ticks) / CLOCK_TICKS_PER_S) * 1000,
    args: cmdline.split('\0').filter((a) => a !== ''),
  };
}

function fromPs(pid: number): Promise<ProcessIdentity | undefined> {
  return new Promise((resolve) => {
    execFile(
      'ps',
      ['-o', 'stat=', '-o', 'lstart=', '-o', 'args=', '-p', String(pid)],
      { env: { ...process.env, LC_ALL: 'C' }, timeout: 5_000, maxBuffer: 1024 * 1024 },
      (err, stdout) => {
        // `stat` first (Z: a zombie), then lstart's fixed 24 characters (`Fri Nov 27 10:54:43 2026`).
        const m = /^\s*(\S+)\s+(\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4})\s*(.*)$/.exec(stdout.split('\n')[0] ?? '');
        if (err || !m || m[1]?.startsWith('Z')) return resolve(undefined);
        const lstart = m[2] ?? '';
        resolve({ start: `ps:${lstart}`, startedMs: Date.parse(lstart), args: (m[3] ?? '').split(/\s+/) });
      },
    );
  });
}

/**
 * Windows has neither /proc nor ps: a live pid there is all that can be told (`win32:unproven`,
 * no arguments). A record is then believed as before start times were kept, the handshake still
 * proves the daemon before anything is sent, and no process is signalled (spawn.ts refuses to).
 */
export const UNPROVEN_START = 'win32:unproven';

function unproven(pid: number): ProcessIdentity | undefined {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return { start: UNPROVEN_START, startedMs: NaN, args: [] };
}

/** The identity of the process a pid names now; `via` picks the source (tests compare the two). */
export async function processIdentity(
  pid: number,
  via: 'auto' | 'proc' | 'ps' = 'auto',
): Promise<ProcessIdentity | undefined> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (via === 'ps') return fromPs(pid);
  if (via === 'proc' || process.platform === 'linux') return fromProc(pid);
  return process.platform === 'win32' ? unproven(pid) : fromPs(pid);
}

/** True only while `pid` names the very process whose start was recorded as `start`. */
export async function isSameProcess(pid: number, start: string | undefined): Promise<boolean> {
  if (!start) return false;
  return (await processIdentity(pid))?.start === start;
}
