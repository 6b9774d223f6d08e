/**
 * `roundtable resolve <meetingId>`: the human's answer to a consensus meeting that stopped to wait
 * for one (exit code 3 of `run`). Works on a meeting in the running daemon, or on one the CLI ran
 * in its own process (kept under <data-dir>/runs/<meetingId>).
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { defaultDataDir, findDaemon } from '@roundtable/client';
import { UsageError, parseCli, checkDataDir } from '@roundtable/client/usage';
import { checkMinutesDir } from '@roundtable/client/minutesOutput';
import { RoomPrinter } from './printer';
import { daemonCore, resolveMeeting, runDirCore, type Answer, type RunIO } from './follow';

export const RESOLVE_USAGE = `Usage: roundtable resolve <meetingId> (--pick OPTION | --another-round "INSTRUCTION" | --defer) [options]

  --pick OPTION            decide for an option (its id, e.g. O2, or its label)
  --another-round TEXT     run one more challenge round that starts with this instruction
  --defer                  close the meeting without a decision
  --out DIR                minutes folder (default docs/roundtable); the report written there at the
                           escalation is updated in place
  --data-dir DIR           the daemon's data dir (default $ROUNDTABLE_HOME or ~/.roundtable)
  --json                   print one JSON object at the end`;

export async function resolveCommand(argv: string[], io: RunIO): Promise<number> {
  const parsed = parseCli({
    args: argv,
    allowPositionals: true,
    options: {
      pick: { type: 'string' },
      'another-round': { type: 'string' },
      defer: { type: 'boolean' },
      out: { type: 'string' },
      'data-dir': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(`${RESOLVE_USAGE}\n`);
    return 0;
  }
  const meetingId = positionals[0];
  if (!meetingId || positionals.length > 1 || !/^[A-Za-z0-9_-]{1,64}$/.test(meetingId)) {
    throw new UsageError('give exactly one meeting id (printed by `roundtable run` when it stopped)');
  }
  const chosen = [values.pick !== undefined, values['another-round'] !== undefined, values.defer === true].filter(
    Boolean,
  ).length;
  if (chosen !== 1) throw new UsageError('give exactly one of --pick OPTION, --another-round "INSTRUCTION" or --defer');
  if (values['another-round'] !== undefined && !values['another-round'].trim())
    throw new UsageError('--another-round needs an instruction');
  const answer: Answer = values.defer
    ? { action: 'defer' as const }
    : values.pick !== undefined
      ? { action: 'pick' as const, option: values.pick }
      : { action: 'another_round' as const, instruction: values['another-round'] as string };
  const dataDir = checkDataDir(values['data-dir'] ?? defaultDataDir(io.env));
  const outDir = path.resolve(values.out ?? path.join('docs', 'roundtable'));
  await checkMinutesDir(outDir);
  const roomOut = values.json ? io.stderr : io.stdout;
  const printer = new RoomPrinter(roomOut, io.isTTY && !values.json);
  const job = { meetingId, answer, outDir, json: values.json ?? false };
  const refused = (e: Error): Error => new UsageError(e.message);

  // A meeting the CLI ran in its own process is kept in its run dir, and resumed here from it.
  const runDir = path.join(dataDir, 'runs', meetingId);
  if (existsSync(runDir)) {
    const core = await runDirCore(dataDir, meetingId, io, { kept: true });
    return resolveMeeting(core, job, printer, io, roomOut, refused);
  }
  const found = await findDaemon(dataDir);
  if (!found)
    throw new UsageError(`no meeting ${meetingId}: no daemon is running for ${dataDir} and no local run is kept there`);
  return resolveMeeting(await daemonCore(found), job, printer, io, roomOut, refused);
}
