/**
 * The daemon's idle exit: once no client is connected and no meeting is running for `ms`, it
 * asks the daemon to stop, so a daemon started by VS Code does not outlive it by days. A meeting
 * waiting for the human is not running: it is in the log and resumes when asked.
 */
import type { Clock } from '../meeting/clock';

export interface IdleWatchOptions {
  ms: number;
  clock: Clock;
  /** True while something keeps the daemon needed (a client, a running meeting). */
  busy: () => boolean;
  onIdle: () => void;
}

export class IdleWatch {
  private cancel: (() => void) | undefined;
  private fired = false;

  constructor(private readonly opts: IdleWatchOptions) {}

  /** True while the countdown to the exit runs. */
  get armed(): boolean {
    return this.cancel !== undefined;
  }

  /** Re-reads whether the daemon is busy: arms the countdown when it just became idle, disarms it when not. */
  check(): void {
    if (this.fired) return;
    if (this.opts.busy()) {
      this.cancel?.();
      this.cancel = undefined;
      return;
    }
    this.cancel ??= this.opts.clock.setTimer(this.opts.ms, () => {
      this.cancel = undefined;
      if (this.opts.busy()) return;
      this.fired = true;
      this.opts.onIdle();
    });
  }

  dispose(): void {
    this.cancel?.();
    this.cancel = undefined;
    this.fired = true;
  }
}
