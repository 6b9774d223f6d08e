/**
 * Reading one streamed reply from an OpenAI-compatible server: the guard that aborts a silent
 * stream, and a chunk held to the engine's own token cap. The usage the server reports is checked
 * where it enters, in usage.ts.
 */
import { cutPiece, pieceTokens } from './tokens';

/**
 * A chunk's thinking and reply cut to the `room` left under the cap, and the tokens the chunk
 * brought (counted before the cut: the server generated them).
 */
export function holdToCap(
  thought: string,
  said: string,
  room: number,
): { thought: string; said: string; tokens: number } {
  const thoughtTokens = pieceTokens(thought, room);
  const saidTokens = pieceTokens(said, room);
  const left = Math.max(0, room - thoughtTokens);
  return {
    thought: thoughtTokens > room ? cutPiece(thought, room) : thought,
    said: saidTokens > left ? cutPiece(said, left) : said,
    tokens: thoughtTokens + saidTokens,
  };
}

/** Our own abort for one request: the caller's signal, or a started stream silent for `ms`. */
export class StreamGuard {
  private readonly ctl = new AbortController();
  private idle: NodeJS.Timeout | undefined;
  stalled = false;
  private readonly forward = () => this.ctl.abort();

  constructor(
    private readonly caller: AbortSignal,
    private readonly ms: number,
  ) {
    caller.addEventListener('abort', this.forward, { once: true });
  }

  get signal(): AbortSignal {
    return this.ctl.signal;
  }

  /** (Re)starts the silence timer: called when the stream starts and on every chunk. */
  arm(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.stalled = true;
      this.ctl.abort();
    }, this.ms);
  }

  dispose(): void {
    clearTimeout(this.idle);
    this.caller.removeEventListener('abort', this.forward);
  }
}
