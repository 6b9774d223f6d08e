import type { CallPurpose, ChatMessage, MeetingState, Participant, Role, Usage } from '@roundtable/protocol';
import type { ToolLoop } from '../tools/toolLoop';
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

export type { ChatMessage } from '@roundtable/protocol';

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
