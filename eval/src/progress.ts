/**
 * What an eval run says while it runs and when it stops: one progress line on stderr (rewritten in
 * place on a terminal), the resumed count once, and a stopped run in one line saying where the
 * work done is kept and how to go on.
 */
import { terminalSafe } from '@roundtable/protocol/terminal';

export interface ProgressIO {
  stderr: NodeJS.WritableStream;
  /** stderr is a terminal: progress rewrites one line. */
  stderrTTY?: boolean;
}

/** `(done, total, line)` → the progress line; the first call also says what a resume found (`resumed` names it). */
export function progressWriter(
  io: ProgressIO,
  checkpoint: string,
  resumed: string,
): (done: number, total: number, line: string) => void {
  let first = true;
  return (done, total, text) => {
    if (first && done > 0) io.stderr.write(`resuming: ${done} of ${total} ${resumed} in ${checkpoint}\n`);
    first = false;
    const line = terminalSafe(text);
    io.stderr.write(io.stderrTTY ? `\r\x1b[K${line}${done === total ? '\n' : ''}` : `${line}\n`);
  };
}

/** A run stopped by a failed call (server gone, model missing): what it did stays in the checkpoint. */
export function stoppedRun(e: unknown, kept: string, checkpoint: string): Error {
  return new Error(`${(e as Error).message} — ${kept} are kept in ${checkpoint}: fix it and rerun with --resume`, {
    cause: e,
  });
}
