/** Writing what a run produces (the minutes) from the CLI and MCP: one clear line and exit 4 when it cannot. */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { MeetingState } from '@roundtable/protocol';
import type { MinutesOptions } from '@roundtable/protocol/minutes';
import { terminalSafe } from '@roundtable/protocol/terminal';
import { MANIFEST_FILE, writeMinutes } from './minutesFile';
import { outputRefusal } from './outputDir';

/** Exit code when the meeting ran but its minutes could not be written (the log is kept). */
export const EXIT_MINUTES_FAILED = 4;

function errno(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

/**
 * Creates a folder and its missing parents one level at a time. Node's `mkdir({recursive: true})`
 * never returns on some virtual file systems: under /proc, mkdir answers ENOENT although the
 * parent exists, and the recursive walk retries the parent forever (`--out /proc/self/x` hung).
 * Here every level is made once, and its error is final.
 */
export async function ensureDir(dir: string): Promise<void> {
  const missing: string[] = [];
  let cur = path.resolve(dir);
  for (;;) {
    try {
      const st = await fs.stat(cur);
      if (!st.isDirectory()) throw errno('ENOTDIR', `${cur} is a file, not a folder`);
      break;
    } catch (e) {
      const parent = path.dirname(cur);
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || parent === cur) throw e;
      missing.unshift(cur);
      cur = parent;
    }
  }
  for (const d of missing) {
    try {
      await fs.mkdir(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

const WHY: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EACCES: 'the folder is not writable',
  EPERM: 'the folder is not writable',
  EROFS: 'the folder is not writable',
  ENOTDIR: 'a part of that path is a file, not a folder',
  EEXIST: 'a part of that path is a file, not a folder',
  ENOENT: 'a folder cannot be created there',
  EISDIR: 'a part of that path is not a folder',
};

/**
 * Writes the minutes, or says clearly why not and how to get them later. A folder inside the
 * `workspace` (default: the working folder) that a symbolic link carries outside it is refused.
 */
export async function writeMinutesOrExplain(
  dir: string,
  s: MeetingState,
  err: NodeJS.WritableStream,
  opts: MinutesOptions & { workspace?: string } = {},
): Promise<string | undefined> {
  const { workspace = process.cwd(), ...render } = opts;
  try {
    const refused = await outputRefusal(workspace, dir, [MANIFEST_FILE]);
    if (refused) throw new Error(refused);
    await ensureDir(dir);
    return await writeMinutes(dir, s, render);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = (code && WHY[code]) ?? (e as Error).message.split('\n')[0] ?? 'unknown error';
    err.write(
      terminalSafe(
        `roundtable: could not write the minutes to ${dir}: ${why}${code ? ` (${code})` : ''}. Nothing is lost: the meeting is kept; write them elsewhere with: roundtable minutes ${s.meetingId} --out <folder>\n`,
      ),
    );
    return undefined;
  }
}
