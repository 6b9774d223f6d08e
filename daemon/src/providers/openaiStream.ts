/**
 * Reading one streamed reply from an OpenAI-compatible server: the guard that aborts a silent
 * stream, a chunk held to the engine's own token cap, and the usage the server reports.
 */
import type OpenAI from 'openai';
import type { Usage } from '@roundtable/protocol';
import { cutPiece, pieceTokens } from '../tools/toolLoop';

/** The usage a server reports, with what its prefix cache served and the thinking inside the completion. */
export function usageOf(u: OpenAI.CompletionUsage): Usage {
  // Servers with a prefix cache (OpenAI, vLLM, some others) say how much of the prompt it served.
  const cached = u.prompt_tokens_details?.cached_tokens;
  // Already inside completion_tokens: never added to it.
  const thought = u.completion_tokens_details?.reasoning_tokens;
  return {
    promptTokens: u.prompt_tokens,
    completionTokens: u.completion_tokens,
    source: 'provider',
    ...(typeof cached === 'number' && cached >= 0 ? { cachedTokens: Math.floor(cached) } : {}),
    ...(typeof thought === 'number' && thought > 0 ? { reasoningTokens: Math.floor(thought) } : {}),
  };
}

/**
 * The server's thinking count where it gives one; else the thinking it sent, counted (never more
 * than the completion it reported, which already holds it).
 */
export function withThinking(usage: Usage, thinkingTokens: number): Usage {
  if (usage.reasoningTokens !== undefined || thinkingTokens === 0) return usage;
  return { ...usage, reasoningTokens: Math.min(thinkingTokens, usage.completionTokens) };
}

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
