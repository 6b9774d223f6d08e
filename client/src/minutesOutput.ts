/** Writing what a run produces (the minutes) from the CLI and MCP: one clear line and exit 4 when it cannot. */
import type { MeetingState } from '@roundtable/protocol';
import type { MinutesOptions } from '@roundtable/protocol/minutes';
import { terminalLine } from '@roundtable/protocol/terminal';
import { MANIFEST_FILE, writeMinutes } from './minutesFile';
import { outputRefusal, unwritablePlace, writeProblem } from './outputDir';
import { UsageError } from './usage';

/** Exit code when the meeting ran but its minutes could not be written (the log is kept). */
export const EXIT_MINUTES_FAILED = 4;

/**
 * The minutes folder, checked before the meeting starts: a folder that cannot take them is bad
 * usage then (`flag: cannot write DIR: why`, exit 2), not exit 4 once the meeting has run.
 */
export async function checkMinutesDir(dir: string, flag = '--out', workspace = process.cwd()): Promise<void> {
  const why = (await outputRefusal(workspace, dir, [MANIFEST_FILE])) ?? (await unwritablePlace(dir, 'folder'));
  if (why) throw new UsageError(`${flag}: cannot write ${dir}: ${why}`);
}

/**
 * A file a command will write (a report, an eval's results), checked before it starts: one that
 * cannot be written is bad usage (`flag: cannot write FILE: why`, exit 2).
 */
export async function checkOutputFile(file: string, flag: string): Promise<void> {
  const why = await unwritablePlace(file, 'file');
  if (why) throw new UsageError(`${flag}: cannot write ${file}: ${why}`);
}

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
    // writeMinutes makes the folder (writeNewFile), or replaces a file it found in it.
    return await writeMinutes(dir, s, render);
  } catch (e) {
    err.write(
      `${terminalLine(
        `roundtable: could not write the minutes to ${dir}: ${writeProblem(e)}. Nothing is lost: the meeting is kept; write them elsewhere with: roundtable minutes ${s.meetingId} --out <folder>`,
      )}\n`,
    );
    return undefined;
  }
}
