/**
 * `roundtable resolve <meetingId>`: the human's answer to a consensus meeting that stopped to wait
 * for one (exit code 3 of `run`). Works on a meeting in the running daemon, or on one the CLI ran
 * in its own process (kept under <data-dir>/runs/<meetingId>).
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { MeetingMirror, connectDaemon, defaultDataDir, findDaemon, type MeetingHandle } from '@roundtable/client';
import { providerFactory } from '../../daemon/src/daemon/daemon';
import { systemClock } from '../../daemon/src/meeting/clock';
import { Meeting } from '../../daemon/src/meeting/engine';
import { evidenceChecker } from '../../daemon/src/meeting/evidence';
import { settles } from '@roundtable/protocol';
import { SqliteStore } from '../../daemon/src/store/sqliteStore';
import { UsageError, parseCli, checkDataDir } from '@roundtable/client/usage';
import { RoomPrinter } from './printer';
import { EXIT_MINUTES_FAILED, writeMinutesOrExplain } from '@roundtable/client/minutesOutput';
import { EXIT_AWAITING_HUMAN, escalationMessage } from './escalation';
import { followInProcess, type RunIO } from './follow';
import { summarize } from './summary';

export const RESOLVE_USAGE = `Usage: roundtable resolve <meetingId> (--pick OPTION | --another-round "INSTRUCTION" | --defer) [options]

  --pick OPTION            decide for an option (its id, e.g. O2, or its label)
  --another-round TEXT     run one more challenge round that starts with this instruction
  --defer                  close the meeting without a decision
  --out DIR                minutes folder (default docs/roundtable); the report written there at the
                           escalation is updated in place
  --data-dir DIR           the daemon's data dir (default $ROUNDTABLE_HOME or ~/.roundtable)
  --json                   print one JSON object at the end`;

/** The human's answer, as `meeting/resolve` takes it. */
type Answer =
  | { action: 'defer'; option?: undefined; instruction?: undefined }
  | { action: 'pick'; option: string; instruction?: undefined }
  | { action: 'another_round'; instruction: string; option?: undefined };

/** What both paths of `resolve` work with: the meeting, the answer, and where the room and minutes go. */
interface ResolveJob {
  meetingId: string;
  answer: Answer;
  outDir: string;
  json: boolean;
  printer: RoomPrinter;
  io: RunIO;
  roomOut: NodeJS.WritableStream;
}

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
  const json = values.json ?? false;
  const roomOut = json ? io.stderr : io.stdout;
  const printer = new RoomPrinter(roomOut, io.isTTY && !json);
  const job: ResolveJob = { meetingId, answer, outDir, json, printer, io, roomOut };

  const runDir = path.join(dataDir, 'runs', meetingId);
  if (existsSync(runDir)) return resolveInProcess(job, runDir);
  return resolveInDaemon(job, dataDir);
}

/** A meeting the CLI ran in its own process: resumed from its run dir and followed here. */
async function resolveInProcess(job: ResolveJob, runDir: string): Promise<number> {
  const { meetingId, answer, printer, io } = job;
  const store = await SqliteStore.open(runDir);
  const events = await store.load(meetingId);
  if (events.length === 0) {
    await store.close();
    throw new UsageError(`no meeting ${meetingId} in ${runDir}`);
  }
  // The past is printed from a mirror's states as they were; the engine folds the log again to
  // resume it (a run of this process only: in the daemon the handle's fold is the one).
  const past = new MeetingMirror(meetingId);
  past.onEvent((e, s) => printer.event(e, s));
  for (const e of events) past.apply(e);
  const opened = events[0];
  const config = opened?.type === 'meeting_opened' ? opened.providers : undefined;
  const workspace = opened?.type === 'meeting_opened' ? opened.workspace : undefined;
  const meeting = await Meeting.resume(
    {
      store,
      providerFor: providerFactory(io.env)(config, undefined),
      clock: systemClock,
      onEvent: (e, s) => printer.event(e, s),
      ...(workspace ? { checkEvidence: evidenceChecker(workspace) } : {}),
    },
    meetingId,
  );
  try {
    await meeting.resolve(answer.action, answer);
  } catch (e) {
    await store.close();
    throw new UsageError((e as Error).message);
  }
  return followInProcess(meeting, store, { outDir: job.outDir, json: job.json }, printer, io, job.roomOut);
}

/** A meeting in the running daemon: answered over RPC and watched until it settles again. */
async function resolveInDaemon(job: ResolveJob, dataDir: string): Promise<number> {
  const { meetingId, answer, outDir, json, printer, io } = job;
  const found = await findDaemon(dataDir);
  if (!found)
    throw new UsageError(`no meeting ${meetingId}: no daemon is running for ${dataDir} and no local run is kept there`);
  const conn = await connectDaemon(found.info.port, found.token);
  let watch: MeetingHandle;
  try {
    // Only what happens after our answer ends the wait: the log already holds the escalation we answer.
    let answeredAfter: number;
    try {
      answeredAfter = (await conn.rpc.request('meeting/get', { meetingId, limit: 1 })).summary.lastSeq;
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    watch = await conn.meetings.attach(meetingId, { deliver: (e, s) => printer.event(e, s) });
    try {
      await watch.resolve(answer);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    await watch.untilEvent(settles, answeredAfter);
  } finally {
    await conn.close();
  }
  const { state } = watch;
  if (state.status === 'awaiting_human') {
    const report = await writeMinutesOrExplain(outDir, state, io.stderr);
    io.stderr.write(escalationMessage(state, { report, outDir }));
    return EXIT_AWAITING_HUMAN;
  }
  const minutesPath = await writeMinutesOrExplain(outDir, state, io.stderr);
  if (!minutesPath) return EXIT_MINUTES_FAILED;
  const summary = summarize(state, minutesPath);
  if (json) io.stdout.write(`${JSON.stringify(summary)}\n`);
  else printer.finish(summary);
  return 0;
}
