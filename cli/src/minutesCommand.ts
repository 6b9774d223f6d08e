/** `roundtable minutes <meetingId>`: renders a meeting's minutes again from its log. */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { RpcError, fold, type MeetingEvent } from '@roundtable/protocol';
import { defaultDataDir, findDaemon } from '@roundtable/client';
import { UsageError, parseCli, checkDataDir } from '@roundtable/client/usage';
import { daemonCore, runDirCore, type RunIO } from './follow';
import { EXIT_MINUTES_FAILED, writeMinutesOrExplain } from '@roundtable/client/minutesOutput';

export const MINUTES_USAGE = `Usage: roundtable minutes <meetingId> [--out DIR] [--data-dir DIR] [--thinking]

  Renders the minutes of a meeting again from its log (in the running daemon, or kept by a
  run in the CLI's own process) and writes them to --out (default docs/roundtable).
  --thinking   include each model's thinking as a quoted block (by default the minutes only
               say how many tokens a model thought for).`;

export async function minutesCommand(argv: string[], io: RunIO): Promise<number> {
  const parsed = parseCli({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      'data-dir': { type: 'string' },
      thinking: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (parsed.values.help) {
    io.stdout.write(`${MINUTES_USAGE}\n`);
    return 0;
  }
  const meetingId = parsed.positionals[0];
  if (!meetingId || parsed.positionals.length > 1 || !/^[A-Za-z0-9_-]{1,64}$/.test(meetingId))
    throw new UsageError('give exactly one meeting id');
  const dataDir = checkDataDir(parsed.values['data-dir'] ?? defaultDataDir(io.env));
  const outDir = path.resolve(parsed.values.out ?? path.join('docs', 'roundtable'));
  let events: MeetingEvent[] = [];
  const runDir = path.join(dataDir, 'runs', meetingId);
  const local = existsSync(runDir);
  const found = local ? undefined : await findDaemon(dataDir);
  // A local run read only: no snapshot, nothing rotated (a quarantined run's files stay as they are).
  const core = local
    ? await runDirCore(dataDir, meetingId, io, { kept: true, readOnly: true })
    : found && (await daemonCore(found));
  if (core) {
    try {
      events = (await core.conn.meetings.read(meetingId)).events;
    } catch (e) {
      if (!(e instanceof RpcError && e.code === 'not_found')) throw local ? e : new UsageError((e as Error).message);
    } finally {
      await core.close();
    }
  }
  if (events.length === 0)
    throw new UsageError(`no meeting ${meetingId} in ${dataDir} (neither a local run nor in a running daemon)`);
  const file = await writeMinutesOrExplain(outDir, fold(events), io.stderr, {
    thinking: parsed.values.thinking === true,
  });
  if (!file) return EXIT_MINUTES_FAILED;
  io.stdout.write(`Minutes: ${file}\n`);
  return 0;
}
