/**
 * Following a meeting to its end through the one meeting handle, in the daemon or in a core
 * private to this process (`--no-daemon`, a local run's `resolve`): the room printed from the
 * handle's fold as it goes, the human asked on a TTY when it escalates, then the minutes and the
 * summary (`run`, `review`, `resolve`).
 */
import type { MeetingEvent, MeetingState, StartMeetingParams } from '@roundtable/protocol';
import { RpcError, settles } from '@roundtable/protocol';
import {
  apiKeysIn,
  connectDaemon,
  type DaemonConnection,
  type FoundDaemon,
  type MeetingHandle,
} from '@roundtable/client';
import { providerFactory } from '../../daemon/src/daemon/daemon';
import { startRunDirCore } from '../../daemon/src/daemon/localCore';
import type { Script } from '../../daemon/src/providers/scripted';
import { EXIT_AWAITING_HUMAN, askHuman, escalationMessage } from './escalation';
import { EXIT_MINUTES_FAILED, writeMinutesOrExplain } from '@roundtable/client/minutesOutput';
import { UsageError } from '@roundtable/client/usage';
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

/** What a run needs of the parsed `roundtable run` arguments. */
export interface DaemonRunOptions {
  params: StartMeetingParams;
  baseURL: string;
  apiKey: string | undefined;
  outDir: string;
  json: boolean;
}

/** What a command does once its meeting ended (write the minutes, print, choose the exit code). */
export type FinishMeeting = (state: MeetingState, events: readonly MeetingEvent[]) => Promise<number>;

/** Where a command's meeting runs: the data dir's daemon, or a core private to this process. */
export interface MeetingCore {
  conn: DaemonConnection;
  /** The daemon's port, said on the terminal; none for the core of this process. */
  daemonPort?: number;
  close(): Promise<void>;
}

/** The data dir's daemon. */
export async function daemonCore(found: FoundDaemon): Promise<MeetingCore> {
  const conn = await connectDaemon(found.info.port, found.token);
  return { conn, daemonPort: found.info.port, close: () => conn.close() };
}

/**
 * A core of this process whose meeting is logged in `<dataDir>/runs/<meetingId>`, where
 * `roundtable resolve` and `roundtable minutes` find it: a new run's, or (`kept`) one a run left
 * there (`readOnly`: only read, nothing written back). Read through the connection, never the store.
 */
export async function runDirCore(
  dataDir: string,
  meetingId: string,
  io: Pick<RunIO, 'env' | 'stderr'>,
  opts: { kept?: boolean; readOnly?: boolean } = {},
): Promise<MeetingCore> {
  try {
    return await startRunDirCore(dataDir, meetingId, {
      ...opts,
      providers: providerFactory(io.env, undefined, (line) => io.stderr.write(`roundtable: ${line}\n`)),
      secrets: apiKeysIn(io.env),
    });
  } catch (e) {
    if (e instanceof RpcError && e.code === 'not_found') throw new UsageError(e.message);
    throw e;
  }
}

/** Ctrl-C cuts the meeting; in this process a second one quits without minutes. Returns the remover. */
function cutOnCtrlC(watch: MeetingHandle, roomOut: NodeJS.WritableStream, local: boolean): () => void {
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts++;
    if (!local) {
      roomOut.write('\nCutting the meeting…\n');
      void watch.cut().catch(() => undefined);
    } else if (interrupts === 1) {
      roomOut.write('\nCutting the meeting (Ctrl-C again to quit without minutes)…\n');
      void watch.cut('interrupted from the terminal').catch(() => undefined);
    } else process.exit(130);
  };
  process.on('SIGINT', onSigint);
  return () => process.off('SIGINT', onSigint);
}

/**
 * Follows the meeting until it settles after `afterSeq`, asking the human on a TTY at each
 * escalation. Returns EXIT_AWAITING_HUMAN when nobody answered (the report written), else nothing.
 */
async function settle(
  watch: MeetingHandle,
  afterSeq: number,
  core: MeetingCore,
  outDir: string,
  io: { stderr: NodeJS.WritableStream; stdinTTY: boolean },
  roomOut: NodeJS.WritableStream,
): Promise<number | undefined> {
  const stopCutting = cutOnCtrlC(watch, roomOut, core.daemonPort === undefined);
  try {
    await watch.untilEvent(settles, afterSeq);
    while (watch.state.status === 'awaiting_human') {
      const s = watch.state;
      // The report (Status: blocked) is written before the human is asked, so they decide with it.
      const report = await writeMinutesOrExplain(outDir, s, io.stderr);
      const answer = io.stdinTTY ? await askHuman(s, roomOut, report) : undefined;
      if (!answer) {
        io.stderr.write(escalationMessage(s, { report, outDir }));
        return EXIT_AWAITING_HUMAN;
      }
      const answeredAfter = watch.events.length;
      await watch.resolve(answer);
      await watch.untilEvent(settles, answeredAfter);
    }
    return undefined;
  } finally {
    stopCutting();
  }
}

/** Starts the meeting in `core` and follows it live (in the daemon, VS Code windows see it too). */
export async function runMeeting(
  opts: DaemonRunOptions,
  core: MeetingCore,
  script: Script | undefined,
  printer: RoomPrinter,
  io: RunIO,
  roomOut: NodeJS.WritableStream,
  finish: FinishMeeting = (state, events) => finishRun(state, events, opts, printer, io),
): Promise<number> {
  let watch: MeetingHandle;
  let stopped: number | undefined;
  try {
    // Subscribed in the same request: the room prints from the first event, with no second read.
    watch = await core.conn.meetings.open(
      {
        ...opts.params,
        providers: { baseURL: opts.baseURL, ...(script ? { script } : {}) },
        ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
      },
      { deliver: (e, s) => printer.event(e, s) },
    );
    if (core.daemonPort !== undefined)
      roomOut.write(`(running in the daemon on port ${core.daemonPort}, meeting ${watch.meetingId})\n`);
    stopped = await settle(watch, 0, core, opts.outDir, io, roomOut);
  } finally {
    await core.close();
  }
  return stopped ?? finish(watch.state, watch.events);
}

/** The human's answer, as `meeting/resolve` takes it. */
export type Answer =
  | { action: 'defer'; option?: undefined; instruction?: undefined }
  | { action: 'pick'; option: string; instruction?: undefined }
  | { action: 'another_round'; instruction: string; option?: undefined };

/**
 * Answers a meeting waiting for the human and follows it until it settles again; the log so far
 * is printed first, from the same fold. A refused answer is the caller's to fix (`refused`).
 */
export async function resolveMeeting(
  core: MeetingCore,
  job: { meetingId: string; answer: Answer; outDir: string; json: boolean },
  printer: RoomPrinter,
  io: RunIO,
  roomOut: NodeJS.WritableStream,
  refused: (e: Error) => Error,
): Promise<number> {
  let watch: MeetingHandle;
  let stopped: number | undefined;
  try {
    // Only what happens after our answer ends the wait: the log already holds the escalation we answer.
    let answeredAfter: number;
    try {
      const got = await core.conn.rpc.request('meeting/get', { meetingId: job.meetingId, limit: 1 });
      answeredAfter = got.summary.lastSeq;
    } catch (e) {
      throw refused(e as Error);
    }
    watch = await core.conn.meetings.attach(job.meetingId, { deliver: (e, s) => printer.event(e, s) });
    try {
      await watch.resolve(job.answer);
    } catch (e) {
      throw refused(e as Error);
    }
    // A person at the terminal of this process is asked again at a new escalation, as `run` asks.
    const stdinTTY = core.daemonPort === undefined && io.stdinTTY;
    stopped = await settle(watch, answeredAfter, core, job.outDir, { stderr: io.stderr, stdinTTY }, roomOut);
  } finally {
    await core.close();
  }
  return stopped ?? finishRun(watch.state, watch.events, job, printer, io);
}

/** The end of a run: the minutes written, the summary printed (or its JSON), and the exit code. */
async function finishRun(
  state: MeetingState,
  _events: readonly MeetingEvent[],
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
