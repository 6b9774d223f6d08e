/**
 * An error nobody awaited or caught (a promise rejected with no handler, an exception thrown in a
 * callback) never takes a Roundtable process down: a library that throws inside a promise it never
 * awaits (secretlint's timing marks did, on a file name with a newline) killed the daemon and every
 * meeting in it, and `roundtable review --no-daemon` exited 1, read as "a finding PROVEN".
 *
 * Work runs under an owner (`FaultOwner`): a meeting's loop, a daemon request, a command of the
 * CLI. Node runs the process's `unhandledRejection` and `uncaughtException` listeners in the async
 * context of the failing work, so the fault is taken by the owner it happened under (the nearest
 * one still open): the one line is logged, that meeting ends on an error or that request is
 * answered with one, and everything else goes on. A fault under no owner is logged, and the
 * process keeps serving.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { collapseWhitespace } from '@roundtable/protocol';
import { terminalLine } from '@roundtable/protocol/terminal';

const current = new AsyncLocalStorage<FaultOwner>();

export class FaultOwner {
  private open = true;
  /** The owner this one was made under: a fault after this one closed goes there. */
  readonly parent: FaultOwner | undefined = current.getStore();

  /**
   * `what` names the work in the log line (`meeting m-…`, `request meeting/start`, `roundtable
   * review`); `fail` ends that work on the error, called at most once.
   */
  constructor(
    readonly what: string,
    private readonly fail: (e: Error) => void,
  ) {}

  /** Runs `fn` as this owner's work: whatever it starts, awaited or not, belongs to it. */
  run<T>(fn: () => T): T {
    return current.run(this, fn);
  }

  /** The work is over (or failed): later faults go to the owner it ran under. */
  close(): void {
    this.open = false;
  }

  /** The nearest open owner of the work running now, if any. */
  static now(): FaultOwner | undefined {
    let o = current.getStore();
    while (o && !o.open) o = o.parent;
    return o;
  }

  /** Takes a fault: closed first, so a second fault of the same work goes to its parent. */
  take(e: Error): void {
    this.open = false;
    this.fail(e);
  }
}

/**
 * Runs `work` as a new owner's (`what`): its result, or the first fault nobody awaited in it, as
 * a rejection (`onFault` first, to stop the work). The owner closes when it settles.
 */
export async function owned<T>(what: string, work: () => Promise<T>, onFault?: (e: Error) => void): Promise<T> {
  let faulted: (e: Error) => void = () => undefined;
  const fault = new Promise<never>((_, reject) => (faulted = reject));
  const owner = new FaultOwner(what, (e) => {
    onFault?.(e);
    faulted(e);
  });
  try {
    const result = owner.run(work);
    result.catch(() => undefined);
    return await Promise.race([result, fault]);
  } finally {
    owner.close();
  }
}

let log: (line: string) => void = (line) => process.stderr.write(`roundtable: ${terminalLine(line)}\n`);
let installed = false;

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

/** One fault: logged in one line (the stack with ROUNDTABLE_DEBUG), and failed where it belongs. */
export function takeFault(reason: unknown): void {
  const e = asError(reason);
  const owner = FaultOwner.now();
  const message = collapseWhitespace(e.message || e.name || 'unknown error').slice(0, 500);
  log(`an unexpected error in ${owner ? owner.what : 'no meeting or request'}: ${message}`);
  if (process.env.ROUNDTABLE_DEBUG && e.stack) log(e.stack);
  try {
    owner?.take(e);
  } catch (failed) {
    log(`could not end ${owner?.what ?? 'the work'} on that error: ${asError(failed).message}`);
  }
}

/**
 * Installs the process's listeners once; `to` is where the lines go (the daemon's log, or stderr).
 * Calling it again only moves the lines.
 */
export function installFaultHandlers(to?: (line: string) => void): void {
  if (to) log = to;
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', takeFault);
  process.on('uncaughtException', takeFault);
}
