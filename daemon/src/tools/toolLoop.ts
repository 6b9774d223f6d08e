/**
 * One model turn's access to the read-only tools, bounded by the engine whatever the model does:
 * at most `TOOL_LIMITS.callsPerReply` calls run per reply and `callsPerTurn` per turn; after that
 * the model is asked once for its answer without tools, and if it still will not answer the turn
 * ends with what it has. Every request of the turn is reserved in the room's budget before it is
 * sent (`TurnBudget`), every result is drawn from it before it is recorded, arguments are capped
 * in size and never echoed back in full, streamed call indexes are checked before they are used,
 * and what a tool returns reaches the model enveloped and defanged like any other text.
 *
 * Each call is logged as a `tool_called` event (its result counted into the room's budget), and
 * the turn's tool steps (calls, then results) have one shape that each provider writes in its
 * own format.
 */
import type { EventBody, MeetingState, Participant, ToolCall, ToolTurn, Usage } from '@roundtable/protocol';
import { TOOL_RESULT_MAX_TOKENS } from '@roundtable/protocol';
import { defang, oneLine, wrapToolResult } from '../providers/envelope';
import { countPromptTokens, countTokens, truncateToTokens } from '../providers/tokens';
import type { ChatMessage, ChatResult } from '../providers/types';
import { TOOL_DEFINITIONS, runTool } from './workspaceTools';

/** The engine's bounds on tool calls, in one place. */
export const TOOL_LIMITS = {
  /** Calls run from one reply; a reply's calls past it are refused, not run. */
  callsPerReply: 8,
  /** Calls run in one turn; past it the model is asked once for its answer without tools. */
  callsPerTurn: 16,
  /** Characters of one call's arguments; a bigger call is refused with one line. */
  argumentChars: 4_096,
  /** Characters of a call's arguments sent back to the model with the call on the next request. */
  echoedArgumentChars: 1_024,
  /** Characters of a tool name kept (longer names are not tools: they are refused). */
  nameChars: 64,
  /** Characters of a call id kept. */
  idChars: 64,
} as const;

/**
 * The turn's share of the room's budget, reserved by the engine's own count before each request
 * and each result (see budget.ts `Reservation`). Absent when the call is not budgeted.
 */
export interface TurnBudget {
  /**
   * Reserves the next request of the turn (prompt of `promptTokens`) and gives its `max_tokens`,
   * or 0 when the budget has no room for it (the request is then not sent).
   */
  request(promptTokens: number): number;
  /** The reply of the request reserved last came back with this usage: it settles the reservation. */
  settle(usage: Usage): void;
  /** Spoken tokens a tool result may take now (0 = none), keeping room for the answer. */
  resultRoom(): number;
  /** A result of `tokens` spoken tokens was handed to the store (within `resultRoom()`). */
  resultSpent(tokens: number): void;
}

export interface ToolLoop {
  /** Function definitions for the next call: empty once the turn's cap is reached. */
  definitions(): typeof TOOL_DEFINITIONS;
  /** Runs one call (logged before it returns) and gives the text the model gets back. */
  run(call: ToolCall): Promise<string>;
  /** Logs one line about the turn's tool calls (a reply's calls cut short, refused past a cap). */
  note?(text: string): Promise<void>;
  /** The turn's reservation in the room's budget, when the call is budgeted. */
  budget?: TurnBudget;
}

/** The tools for one turn, or undefined when the meeting does not offer them. */
export function toolLoopFor(opts: {
  state: MeetingState;
  participant: Participant;
  round: number;
  emit: (body: EventBody) => Promise<void>;
  budget?: TurnBudget;
}): ToolLoop | undefined {
  const { state, participant, round, emit, budget } = opts;
  const workspace = state.workspace;
  if (!state.config.tools || !workspace) return undefined;
  let used = 0;
  /** Logs one call within the reservation; gives the model's text (enveloped), never more than was counted. */
  const record = async (tool: string, args: string, ok: boolean, raw: string): Promise<string> => {
    // Cut by characters first, then a slice at a time: a file of one long run of a character
    // (a base64 blob) would keep the tokenizer busy for minutes if it were tokenized whole.
    let text = defang(cutPiece(raw.slice(0, TOOL_RESULT_MAX_TOKENS * 8), TOOL_RESULT_MAX_TOKENS));
    let tokens = pieceTokens(text);
    let told = text;
    if (budget) {
      const room = budget.resultRoom();
      if (tokens > room) {
        const why = 'refused: the room has no budget left for tool results; answer now';
        const mark = '\n[… cut: the budget ran out]';
        text = room >= 40 ? `${cutPiece(text, room - 20)}${mark}` : '';
        tokens = pieceTokens(text);
        if (tokens > room) {
          text = '';
          tokens = 0;
        }
        ok = ok && text !== '';
        told = text || why;
      }
      budget.resultSpent(tokens);
    }
    const logged = emit({
      type: 'tool_called',
      round,
      participant: participant.name,
      tool: defang(tool).slice(0, 100),
      args: args.slice(0, 1_000),
      ok,
      result: text,
      tokens,
    });
    await logged;
    return wrapToolResult(tool, ok, told);
  };
  return {
    ...(budget ? { budget } : {}),
    definitions: () => (used < TOOL_LIMITS.callsPerTurn ? TOOL_DEFINITIONS : []),
    note: async (text) => {
      await record('(tool calls)', '', false, text);
    },
    async run(call) {
      used++;
      let result;
      if (used > TOOL_LIMITS.callsPerTurn) {
        result = { ok: false, text: `refused: at most ${TOOL_LIMITS.callsPerTurn} tool calls per turn; answer now` };
      } else if (call.arguments.length > TOOL_LIMITS.argumentChars) {
        result = {
          ok: false,
          text: `refused: the arguments are over ${TOOL_LIMITS.argumentChars.toLocaleString('en-US')} characters`,
        };
      } else if (call.name.length > TOOL_LIMITS.nameChars) {
        result = { ok: false, text: 'refused: unknown tool; use read_file, search or list_files' };
      } else {
        try {
          result = await runTool(workspace, call.name, JSON.parse(call.arguments || '{}'));
        } catch {
          result = { ok: false, text: `${call.name}: the arguments are not valid JSON` };
        }
      }
      return record(call.name, call.arguments, result.ok, result.text);
    },
  };
}

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

/** Characters tokenized at a time while streaming: the tokenizer is quadratic on one long run of a character. */
const SLICE = 128;

/**
 * Tokens of one streamed piece, counted a slice at a time (slightly over, never under, the
 * whole count) and only until `cap` is passed: a megabyte piece, or a run of one character
 * that the tokenizer would take seconds over, costs no more than the tokens it may still use.
 */
export function pieceTokens(piece: string, cap = Infinity): number {
  let n = 0;
  for (let i = 0; i < piece.length && n <= cap; i += SLICE) n += countTokens(piece.slice(i, i + SLICE));
  return n;
}

/** The first `max` tokens of a streamed piece, counted as `pieceTokens` counts them. */
export function cutPiece(piece: string, max: number): string {
  let n = 0;
  let out = '';
  for (let i = 0; i < piece.length; i += SLICE) {
    const slice = piece.slice(i, i + SLICE);
    const t = countTokens(slice);
    if (n + t > max) return out + truncateToTokens(slice, max - n);
    n += t;
    out += slice;
  }
  return out;
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

/** One request of a tool turn: its result and the tool calls it asked for. */
export interface Asked {
  result: ChatResult;
  calls: ToolCall[];
  /** Why the reply's tool calls ended early (bad index, over the per-reply cap), when they did. */
  stopped?: string;
}

/** The prompt of a tool turn's next request, by the engine's count: messages, tool steps and the tools offered. */
export function toolTurnPromptTokens(
  messages: ChatMessage[],
  turns: ToolTurn[],
  tools: unknown[],
  count: (text: string) => number = countTokens,
): number {
  // The steps are what models and tools wrote: counted a slice at a time (see pieceTokens).
  const steps = turns.reduce(
    (n, t) =>
      n +
      3 +
      (t.kind === 'result' ? pieceTokens(`${t.callId} ${t.text}`) : pieceTokens(`${t.text}${JSON.stringify(t.calls)}`)),
    0,
  );
  return countPromptTokens(messages, count) + steps + (tools.length ? count(JSON.stringify(tools)) : 0);
}

/**
 * Runs a turn with tools: asks, runs the calls the reply asked for (within the caps and the
 * budget), asks again with the results, until the model answers. Past the per-turn cap it is
 * asked once without tools; if it still asks for tools (or says nothing), the turn ends with what
 * it has. `ask(turns, maxTokens)` is the provider's own request with the turn's tool steps
 * (`maxTokens` undefined for the first request, which the caller planned).
 *
 * Usage of every request is summed (reasoning tokens too), their thinking joined; only each
 * reply's text (never its thinking) goes back to the model with its calls.
 */
export async function runToolTurn(
  tools: ToolLoop,
  messages: ChatMessage[],
  ask: (turns: ToolTurn[], o: { maxTokens?: number; offerTools: boolean }) => Promise<Asked>,
): Promise<ChatResult> {
  const turns: ToolTurn[] = [];
  const results: ChatResult[] = [];
  let used = 0;
  let offer = true;
  let asked = await ask(turns, { offerTools: true });
  for (;;) {
    results.push(asked.result);
    tools.budget?.settle(asked.result.usage);
    const { calls, refused } = boundCalls(asked.calls);
    const notes = [
      ...(asked.stopped ? [asked.stopped] : []),
      ...(refused > 0 ? [`refused ${refused} more tool call(s): at most ${TOOL_LIMITS.callsPerReply} per reply`] : []),
    ];
    for (const n of notes) await tools.note?.(n);
    // Answered, or asked for tools after being asked for its answer without them: the turn ends.
    if (calls.length === 0 || !offer) break;
    const step: ToolTurn[] = [{ kind: 'calls', text: asked.result.text, calls: calls.map(echoed) }];
    let pastCap = 0;
    for (const c of calls) {
      used++;
      if (used > TOOL_LIMITS.callsPerTurn) pastCap++;
      const text =
        used > TOOL_LIMITS.callsPerTurn
          ? wrapToolResult(
              c.name,
              false,
              `refused: at most ${TOOL_LIMITS.callsPerTurn} tool calls per turn; answer now`,
            )
          : await tools.run(c);
      step.push({ kind: 'result', callId: c.id, name: c.name, text });
    }
    if (pastCap > 0) {
      const n = `refused ${pastCap} tool call(s) past the turn's cap of ${TOOL_LIMITS.callsPerTurn}`;
      await tools.note?.(n);
    }
    const last = step.at(-1);
    if (notes.length > 0 && last?.kind === 'result') last.text += `\n${notes.map((n) => `(${n})`).join('\n')}`;
    turns.push(...step);
    // The cap reached (or no room left for more results): one last request, without tools.
    const room = tools.budget ? tools.budget.resultRoom() : Infinity;
    if (used >= TOOL_LIMITS.callsPerTurn || room <= 0 || tools.definitions().length === 0) offer = false;
    let maxTokens: number | undefined;
    if (tools.budget) {
      maxTokens = tools.budget.request(toolTurnPromptTokens(messages, turns, offer ? tools.definitions() : []));
      // No room in the budget for another request: the turn ends with what it has.
      if (maxTokens <= 0) break;
    }
    asked = await ask(turns, { ...(maxTokens !== undefined ? { maxTokens } : {}), offerTools: offer });
  }
  return combine(results);
}

/** The turn's result: the last reply (or the last one that said anything), every request's usage and thinking. */
function combine(results: ChatResult[]): ChatResult {
  const last = results[results.length - 1];
  if (!last) throw new Error('a tool turn with no request');
  const text = [...results].reverse().find((r) => r.text.trim() !== '')?.text ?? '';
  const thinking = results
    .map((r) => r.thinking)
    .filter(Boolean)
    .join('\n\n');
  const sum = (f: (u: Usage) => number | undefined): number => results.reduce((n, r) => n + (f(r.usage) ?? 0), 0);
  const some = (f: (u: Usage) => number | undefined): boolean => results.some((r) => f(r.usage) !== undefined);
  return {
    text: results.length === 1 ? last.text : text,
    ...(thinking ? { thinking } : {}),
    ...(last.finishReason ? { finishReason: last.finishReason } : {}),
    usage: {
      ...(some((u) => u.reasoningTokens) ? { reasoningTokens: sum((u) => u.reasoningTokens) } : {}),
      promptTokens: sum((u) => u.promptTokens),
      completionTokens: sum((u) => u.completionTokens),
      source: results.every((r) => r.usage.source === 'provider') ? 'provider' : 'estimate',
      ...(some((u) => u.cachedTokens) ? { cachedTokens: sum((u) => u.cachedTokens) } : {}),
    },
  };
}
