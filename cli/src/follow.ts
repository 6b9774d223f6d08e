/**
 * Following a meeting to its end, in this process or in the daemon: the room printed as it goes,
 * the human asked on a TTY when it escalates, then the minutes and the summary (`run`, `resolve`).
 */
import type { MeetingEvent, MeetingState, StartMeetingParams } from '@roundtable/protocol';
import { settles } from '@roundtable/protocol';
import { connectDaemon, type FoundDaemon, type MeetingHandle } from '@roundtable/client';
import type { Meeting } from '../../daemon/src/meeting/engine';
import type { Script } from '../../daemon/src/providers/scripted';
import type { SqliteStore } from '../../daemon/src/store/sqliteStore';
import type { EventStore } from '../../daemon/src/store/types';
import { EXIT_AWAITING_HUMAN, askHuman, escalationMessage } from './escalation';
import { EXIT_MINUTES_FAILED, writeMinutesOrExplain } from '@roundtable/client/minutesOutput';
import type { RoomPrinter } from './printer';
import { summarize } from './summary';

export interface RunIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** stdout is a terminal: colour the room. */
  isTTY: boolean;
  /** stdin is a terminal: a person can answer an escalation. */
  stdinTTY: boolean;
}

/** What a run in the daemon needs of the parsed `roundtable run` arguments. */
export interface DaemonRunOptions {
  params: StartMeetingParams;
  baseURL: string;
  apiKey: string | undefined;
  outDir: string;
  json: boolean;
}

/** What a command does once its meeting ended (write the minutes, print, choose the exit code). */
export type FinishMeeting = (state: MeetingState, events: readonly MeetingEvent[]) => Promise<number>;

/** Runs an in-process meeting to its end, asking the human on a TTY when it escalates. */
export async function followInProcess(
  meeting: Meeting,
  store: EventStore,
  opts: { outDir: string; json: boolean },
  printer: RoomPrinter,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; stdinTTY?: boolean },
  roomOut: NodeJS.WritableStream,
  finish: FinishMeeting = (state, events) => finishRun(state, events, opts, printer, io),
): Promise<number> {
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts++;
    if (interrupts === 1) {
      roomOut.write('\nCutting the meeting (Ctrl-C again to quit without minutes)…\n');
      meeting.cut('cut', 'interrupted from the terminal').catch(() => undefined);
    } else process.exit(130);
  };
  process.on('SIGINT', onSigint);
  try {
    let state = await meeting.run();
    while (state.status === 'awaiting_human') {
      // The report (Status: blocked) is written before the human is asked, so they decide with it.
      const report = await writeMinutesOrExplain(opts.outDir, state, io.stderr);
      const answer = io.stdinTTY ? await askHuman(state, roomOut, report) : undefined;
      if (!answer) {
        io.stderr.write(escalationMessage(state, { report, outDir: opts.outDir }));
        await (store as Partial<SqliteStore>).close?.();
        return EXIT_AWAITING_HUMAN;
      }
      await meeting.resolve(answer.action, answer);
      state = await meeting.run();
    }
    const events = await store.load(meeting.id);
    await (store as Partial<SqliteStore>).close?.();
    return await finish(state, events);
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** Runs the meeting in the daemon and follows it live, so VS Code windows see it too. */
export async function runInDaemon(
  opts: DaemonRunOptions,
  found: FoundDaemon,
  script: Script | undefined,
  printer: RoomPrinter,
  io: RunIO,
  roomOut: NodeJS.WritableStream,
  finish: FinishMeeting = (state, events) => finishRun(state, events, opts, printer, io),
): Promise<number> {
  const conn = await connectDaemon(found.info.port, found.token);
  let handle: MeetingHandle | undefined;
  const onSigint = (): void => {
    roomOut.write('\nCutting the meeting…\n');
    void handle?.cut().catch(() => undefined);
  };
  let watch: MeetingHandle;
  try {
    // Subscribed in the same request: the room prints from the first event, with no second read.
    watch = handle = await conn.meetings.open(
      {
        ...opts.params,
        providers: { baseURL: opts.baseURL, ...(script ? { script } : {}) },
        ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
      },
      { deliver: (e, s) => printer.event(e, s) },
    );
    roomOut.write(`(running in the daemon on port ${found.info.port}, meeting ${watch.meetingId})\n`);
    process.on('SIGINT', onSigint);
    const { events } = watch;
    await watch.untilEvent(settles, 0);
    while (watch.state.status === 'awaiting_human') {
      const s = watch.state;
      const report = await writeMinutesOrExplain(opts.outDir, s, io.stderr);
      const answer = io.stdinTTY ? await askHuman(s, roomOut, report) : undefined;
      if (!answer) {
        io.stderr.write(escalationMessage(s, { report, outDir: opts.outDir }));
        return EXIT_AWAITING_HUMAN;
      }
      const answeredAfter = events.length;
      await watch.resolve(answer);
      await watch.untilEvent(settles, answeredAfter);
    }
  } finally {
    process.off('SIGINT', onSigint);
    await conn.close();
  }
  return finish(watch.state, watch.events);
}

/** The end of a run: the minutes written, the summary printed (or its JSON), and the exit code. */
async function finishRun(
  state: MeetingState,
  events: readonly MeetingEvent[],
  opts: { outDir: string; json: boolean },
  printer: RoomPrinter,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  const minutesPath = await writeMinutesOrExplain(opts.outDir, state, io.stderr);
  if (!minutesPath) return EXIT_MINUTES_FAILED;
  const summary = summarize(state, minutesPath);
  if (opts.json) io.stdout.write(`${JSON.stringify(summary)}\n`);
  else printer.finish(summary);
  return state.closed?.reason === 'error' ? 1 : 0;
}
