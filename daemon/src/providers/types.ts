import type {
  CallPurpose,
  ChatMessage,
  MeetingState,
  Participant,
  Role,
  ToolCall,
  ToolTurn,
  Usage,
} from '@roundtable/protocol';
import type { FinishReason, ReplyChannel } from './reply';

/**
 * A structured reply asked of the model: the JSON Schema of what the model itself returns (never
 * fields the engine sets on the recorded value). Providers send it as `json_schema` where the
 * server honours that, `json_object` where only that works, and no JSON mode where neither does.
 */
export interface JsonReply {
  /** `^[A-Za-z0-9_-]{1,64}$`, as OpenAI's `json_schema.name` requires. */
  name: string;
  schema: Record<string, unknown>;
}

/** One model call. Providers never know what kind of meeting they serve. */
export interface ChatRequest {
  /** Model identifier as configured for the participant. */
  model: string;
  messages: ChatMessage[];
  /** Upper bound on the reply length in tokens. */
  maxTokens: number;
  /**
   * Read no more of the reply than `maxTokens` by the engine's own count (thinking and tool
   * calls included), closing the stream there, even from a server that ignores max_tokens: what
   * a billed budget needs. Unset, the reply is read to its end (the reply cap then keeps its end).
   */
  stopAtMaxTokens?: boolean;
  /**
   * Sampling temperature; unset = the server's default (what the engine sends today). Never sent
   * to a model that takes only the default (OpenAI's reasoning models; see serverProfile.ts).
   */
  temperature?: number;
  /** Ask for a JSON reply of this shape where the backend supports it. */
  json?: JsonReply;
  /** Aborted on cut, turn timeout, budget exhaustion or meeting time limit. */
  signal: AbortSignal;
  /** Called with each piece of text as it streams in, with the part of the reply it belongs to. */
  onDelta?: (text: string, channel: ReplyChannel) => void;
  /** Read-only workspace tools offered for this call; honoured by providers with tool calling (OpenAI). */
  tools?: ToolLoop;
  /** Who is asking and why; used for accounting and by the scripted provider. */
  meta: { participant: string; role: Role; purpose: CallPurpose; round: number; topic: string };
}

export interface ChatResult {
  /** The reply alone: thinking removed (see providers/reply.ts). The only text that is spoken. */
  text: string;
  /** The model's thinking, when it showed any: billed, shown folded, never spoken or parsed. */
  thinking?: string;
  /** Why the server stopped, where it said (`length` = the token cap ran out). */
  finishReason?: FinishReason;
  /** The content was empty and `text` is the JSON the server put in the reasoning field (providers/replyReader.ts). */
  fromReasoning?: true;
  usage: Usage;
}

/** Every backend (OpenAI-compatible, VS Code language models, scripted) sits behind this. */
export interface ChatProvider {
  /** Stable identifier used in logs and errors ("openai@http://127.0.0.1:11434/v1"). */
  readonly id: string;
  chat(req: ChatRequest): Promise<ChatResult>;
  /**
   * Shown, on resume, the state of the meeting a participant's calls belong to, so a stateful
   * provider (the scripted one) continues where the meeting stopped.
   */
  resumeFrom?(participant: Participant, state: MeetingState): void;
  /** The model's context window in tokens, where the server says (vLLM's `max_model_len`); undefined otherwise. */
  contextWindow?(model: string, signal: AbortSignal): Promise<number | undefined>;
  /** How many requests the server runs at once, where it says (llama.cpp's `total_slots`); undefined otherwise. */
  serverSlots?(signal?: AbortSignal): Promise<number | undefined>;
}

/** A failure a user can act on, with the reason in plain words. */
export class ProviderError extends Error {
  constructor(
    message: string,
    /** `unreachable`, `auth`, `rate_limited`, `server`, `bad_request`, `aborted`. */
    readonly kind: 'unreachable' | 'auth' | 'rate_limited' | 'server' | 'bad_request' | 'aborted',
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** A read-only tool as it is offered to a model (OpenAI's function tool; tools/workspaceTools.ts defines them). */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * The turn's share of the room's budget, reserved by the engine's own count before each request
 * and each result (see meeting/budget.ts `Reservation`). Absent when the call is not budgeted.
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

/** The tools one turn may call, as the tool loop runs them (tools/toolLoop.ts `toolLoopFor`). */
export interface ToolSteps {
  /** Function definitions for the next call: empty once the turn's cap is reached. */
  definitions(): ToolDefinition[];
  /** Runs one call (logged before it returns) and gives the text the model gets back. */
  run(call: ToolCall): Promise<string>;
  /** Logs one line about the turn's tool calls (a reply's calls cut short, refused past a cap). */
  note?(text: string): Promise<void>;
  /** The turn's reservation in the room's budget, when the call is budgeted. */
  budget?: TurnBudget;
}

/**
 * A turn's tools as a provider sees them: it hands `turn` its own one-request function, and the
 * tool loop drives it (asks, runs the calls the reply asked for, asks again) within the engine's
 * bounds. A provider never runs a tool itself.
 */
export interface ToolLoop extends ToolSteps {
  /** `ask(turns, o)`: the provider's request with the turn's tool steps so far (`maxTokens` unset for the first). */
  turn(
    messages: ChatMessage[],
    ask: (turns: ToolTurn[], o: { maxTokens?: number; offerTools: boolean }) => Promise<Asked>,
  ): Promise<ChatResult>;
}

/** One request of a tool turn: its result and the tool calls it asked for. */
export interface Asked {
  result: ChatResult;
  calls: ToolCall[];
  /** Why the reply's tool calls ended early (bad index, over the per-reply cap), when they did. */
  stopped?: string;
}

/** How many requests a server runs at once where it says (llama.cpp's `/props` `total_slots`); never fails. */
export type ServerSlots = (
  baseUrl: string,
  apiKey: string | undefined,
  signal?: AbortSignal,
) => Promise<number | undefined>;
