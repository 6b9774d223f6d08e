/**
 * One model turn's access to the read-only tools, bounded by the engine whatever the model does:
 * at most `TOOL_LIMITS.callsPerReply` calls run per reply and `callsPerTurn` per turn; after that
 * the model is asked once for its answer without tools, and if it still will not answer the turn
 * ends with what it has. Every request of the turn is reserved in the room's budget before it is
 * sent (`TurnBudget`), every result is drawn from it before it is recorded, and what a tool
 * returns reaches the model enveloped and defanged like any other text.
 *
 * Each call is logged as a `tool_called` event (its result counted into the room's budget), and
 * the turn's tool steps (calls, then results) have one shape that each provider writes in its
 * own format. The loop drives the provider (`ToolLoop.turn` takes the provider's one request),
 * never the reverse: the providers read a reply's calls to the same caps (providers/toolCalls.ts)
 * and import nothing from here.
 */
import type {
  ChatMessage,
  EventBody,
  MeetingState,
  Participant,
  ToolCall,
  ToolTurn,
  Usage,
} from '@roundtable/protocol';
import { TOOL_RESULT_MAX_TOKENS } from '@roundtable/protocol';
import { defang, wrapToolResult } from '../providers/envelope';
import { TOOL_LIMITS, boundCalls, echoed } from '../providers/toolCalls';
import { cutPiece, offeredToolsTokens, pieceTokens, toolTurnPromptTokens } from '../providers/tokens';
import type { Asked, ChatResult, ToolLoop, ToolSteps, TurnBudget } from '../providers/types';
import { TOOL_DEFINITIONS, runTool } from './workspaceTools';

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
  return driven({
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
  });
}

/** A turn's tools with the loop that drives a provider through them (`runToolTurn`). */
export function driven(steps: ToolSteps): ToolLoop {
  return { ...steps, turn: (messages, ask) => runToolTurn(steps, messages, ask) };
}

/**
 * The same call (same tool, same arguments, their keys in any order) as one already answered in
 * the turn: a model that repeats a read is pointed at the result it has instead of being sent it again.
 */
function callKey(c: ToolCall): string {
  let args = c.arguments.trim() || '{}';
  try {
    const v: unknown = JSON.parse(args);
    if (v && typeof v === 'object' && !Array.isArray(v))
      args = JSON.stringify(Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  } catch {
    // Not JSON: the text as sent is the key (the tool refuses it the same way each time).
  }
  return `${c.name}\u0000${args}`;
}

const REPEATED = 'the same call (same tool, same arguments) was answered earlier in this turn: use that result';

/**
 * Runs a turn with tools: asks, runs the calls the reply asked for (within the caps and the
 * budget), asks again with the results, until the model answers. A call repeated within the turn
 * is answered from the turn's own results (not run, not sent again). Past the per-turn cap of
 * calls, or once the next request would take the turn's bill past `billedTokensPerTurn`, it is
 * asked once without tools; if it still asks for tools (or says nothing), the turn ends with what
 * it has. `ask(turns, maxTokens)` is the provider's own request with the turn's tool steps
 * (`maxTokens` undefined for the first request, which the caller planned).
 *
 * Usage of every request is summed (reasoning tokens too), their thinking joined; only each
 * reply's text (never its thinking) goes back to the model with its calls.
 */
export async function runToolTurn(
  tools: ToolSteps,
  messages: ChatMessage[],
  ask: (turns: ToolTurn[], o: { maxTokens?: number; offerTools: boolean }) => Promise<Asked>,
): Promise<ChatResult> {
  const turns: ToolTurn[] = [];
  const results: ChatResult[] = [];
  const answered = new Set<string>();
  let used = 0;
  let billed = 0;
  let offer = true;
  let asked = await ask(turns, { offerTools: true });
  for (;;) {
    results.push(asked.result);
    billed += asked.result.usage.promptTokens + asked.result.usage.completionTokens;
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
    let repeated = 0;
    for (const c of calls) {
      used++;
      const key = callKey(c);
      let text: string;
      if (used > TOOL_LIMITS.callsPerTurn) {
        pastCap++;
        text = wrapToolResult(
          c.name,
          false,
          `refused: at most ${TOOL_LIMITS.callsPerTurn} tool calls per turn; answer now`,
        );
      } else if (answered.has(key)) {
        repeated++;
        text = wrapToolResult(c.name, true, REPEATED);
      } else {
        answered.add(key);
        text = await tools.run(c);
      }
      step.push({ kind: 'result', callId: c.id, name: c.name, text });
    }
    if (pastCap > 0)
      await tools.note?.(`refused ${pastCap} tool call(s) past the turn's cap of ${TOOL_LIMITS.callsPerTurn}`);
    if (repeated > 0) await tools.note?.(`answered ${repeated} repeated tool call(s) from this turn's earlier results`);
    const last = step.at(-1);
    if (notes.length > 0 && last?.kind === 'result') last.text += `\n${notes.map((n) => `(${n})`).join('\n')}`;
    turns.push(...step);
    // The cap reached (or no room left for more results): one last request, without tools.
    const room = tools.budget ? tools.budget.resultRoom() : Infinity;
    if (used >= TOOL_LIMITS.callsPerTurn || room <= 0 || tools.definitions().length === 0) offer = false;
    // The messages and steps are tokenized once; the tools' definitions count only while they are offered.
    const withoutTools = toolTurnPromptTokens(messages, turns, []);
    let prompt = withoutTools + (offer ? offeredToolsTokens(tools.definitions()) : 0);
    if (offer && billed + prompt > TOOL_LIMITS.billedTokensPerTurn) {
      offer = false;
      prompt = withoutTools;
      await tools.note?.(
        `stopped offering tools: the turn's requests billed ${billed.toLocaleString('en-US')} tokens and the next would pass ${TOOL_LIMITS.billedTokensPerTurn.toLocaleString('en-US')}`,
      );
    }
    let maxTokens: number | undefined;
    if (tools.budget) {
      maxTokens = tools.budget.request(prompt);
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
