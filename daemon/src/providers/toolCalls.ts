/**
 * The tool calls of one reply as the engine takes them from any provider: the caps on their number
 * and size (`TOOL_LIMITS`), streamed call indexes checked before they are used (`ToolCallCollector`),
 * a whole reply's calls cut to the caps (`boundCalls`) and calls echoed back to the model never in
 * full (`echoed`). The tool loop (tools/toolLoop.ts) holds a turn to the same limits.
 */
import type { ToolCall } from '@roundtable/protocol';
import { oneLine } from './envelope';
import { pieceTokens } from './tokens';

/** The engine's bounds on tool calls, in one place. */
export const TOOL_LIMITS = {
  /** Calls run from one reply; a reply's calls past it are refused, not run. */
  callsPerReply: 8,
  /** Calls run in one turn; past it the model is asked once for its answer without tools. */
  callsPerTurn: 16,
  /**
   * Tokens one turn's requests may bill (prompt + completion, summed) before it stops offering
   * tools: every request re-sends every earlier result, so a model that keeps calling grows its
   * bill with the square of its calls (16 reads of a large file billed 162,661 in one turn). Past it,
   * the model is asked once for its answer without tools.
   */
  billedTokensPerTurn: 60_000,
  /** Characters of one call's arguments; a bigger call is refused with one line. */
  argumentChars: 4_096,
  /** Characters of a call's arguments sent back to the model with the call on the next request. */
  echoedArgumentChars: 1_024,
  /** Characters of a tool name kept (longer names are not tools: they are refused). */
  nameChars: 64,
  /** Characters of a call id kept. */
  idChars: 64,
} as const;

type Delta = { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } | null };

/**
 * Accumulates streamed `tool_calls` deltas (OpenAI chat completions) by index, in a `Map`: an
 * index must be a small non-negative integer (below the per-reply cap), anything else ends the
 * reply's tool calls (`stopped` says why, once). Names, ids and arguments are kept to their caps
 * (arguments one character past theirs, so the call is refused rather than cut).
 */
export class ToolCallCollector {
  private readonly byIndex = new Map<number, ToolCall>();
  /** Why the reply's tool calls ended early, when they did. */
  stopped: string | undefined;
  /** Tokens of tool-call text streamed (names and arguments, counted as they come, capped pieces). */
  streamedTokens = 0;

  /** `count`: count the tokens streamed (when the reply is held to max_tokens). */
  constructor(private readonly count = true) {}

  /** `room`: tokens the reply may still stream (counting stops past it). */
  add(deltas: unknown, room = Infinity): void {
    if (deltas === undefined || deltas === null) return;
    if (!Array.isArray(deltas)) return this.stop('tool_calls is not a list');
    for (const d of deltas as unknown[]) {
      if (typeof d !== 'object' || d === null) {
        this.stop('a tool call delta is not an object');
        continue;
      }
      const { index, id, function: fn } = d as Delta;
      const name = typeof fn?.name === 'string' ? fn.name : '';
      const args = typeof fn?.arguments === 'string' ? fn.arguments : '';
      // Generated, so counted against max_tokens, even past the point where the calls are taken.
      if (this.count) {
        const named = pieceTokens(name, room);
        this.streamedTokens += named + pieceTokens(args, room - named);
      }
      if (this.stopped) continue;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) {
        this.stop(`a tool call index (${oneLine(String(index)).slice(0, 40)}) is not a small non-negative integer`);
        continue;
      }
      if (index >= TOOL_LIMITS.callsPerReply) {
        this.stop(`more than ${TOOL_LIMITS.callsPerReply} tool calls in one reply; the rest were not run`);
        continue;
      }
      let c = this.byIndex.get(index);
      if (!c) {
        c = { id: '', name: '', arguments: '' };
        this.byIndex.set(index, c);
      }
      if (typeof id === 'string' && id) c.id = id.slice(0, TOOL_LIMITS.idChars);
      if (name && c.name.length <= TOOL_LIMITS.nameChars) c.name = (c.name + name).slice(0, TOOL_LIMITS.nameChars + 1);
      if (args && c.arguments.length <= TOOL_LIMITS.argumentChars)
        c.arguments = (c.arguments + args).slice(0, TOOL_LIMITS.argumentChars + 1);
    }
  }

  /** The calls, in index order. */
  calls(): ToolCall[] {
    return [...this.byIndex.entries()].sort(([a], [b]) => a - b).map(([i, c]) => ({ ...c, id: c.id || `call_${i}` }));
  }

  private stop(why: string): void {
    this.stopped ??= `the reply's tool calls end here: ${why}`;
  }
}

/**
 * The calls of one reply as the engine takes them: the first `callsPerReply`, each with its
 * fields capped (a reply from VS Code arrives whole; a streamed one through `ToolCallCollector`).
 */
export function boundCalls(calls: readonly ToolCall[]): { calls: ToolCall[]; refused: number } {
  const kept = calls.slice(0, TOOL_LIMITS.callsPerReply).map((c, i) => ({
    id: (c.id || `call_${i}`).slice(0, TOOL_LIMITS.idChars),
    name: c.name.slice(0, TOOL_LIMITS.nameChars + 1),
    arguments: c.arguments.slice(0, TOOL_LIMITS.argumentChars + 1),
  }));
  return { calls: kept, refused: Math.max(0, calls.length - kept.length) };
}

/** A call as it is sent back to the model with the next request: its arguments never in full past the cap. */
export function echoed(c: ToolCall): ToolCall {
  const max = TOOL_LIMITS.echoedArgumentChars;
  if (c.arguments.length <= max) return c;
  return { ...c, arguments: JSON.stringify({ truncated_by_roundtable: c.arguments.slice(0, 200) }) };
}
