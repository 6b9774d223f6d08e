import type { CallPurpose, Role, Usage } from '../../../protocol/src';
import type { ToolLoop } from '../tools/toolLoop';

/** One chat message sent to a model. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** One model call. Providers never know what kind of meeting they serve. */
export interface ChatRequest {
  /** Model identifier as configured for the participant. */
  model: string;
  messages: ChatMessage[];
  /** Upper bound on the reply length in tokens. */
  maxTokens: number;
  /** Ask for a JSON object reply where the backend supports it. */
  json?: boolean;
  /** Aborted on cut, turn timeout, budget exhaustion or meeting time limit. */
  signal: AbortSignal;
  /** Called with each piece of text as it streams in. */
  onDelta?: (text: string) => void;
  /** Read-only workspace tools offered for this call; honoured by providers with tool calling (OpenAI). */
  tools?: ToolLoop;
  /** Who is asking and why; used for accounting and by the scripted provider. */
  meta: { participant: string; role: Role; purpose: CallPurpose; round: number; topic: string };
}

export interface ChatResult {
  text: string;
  usage: Usage;
}

/** Every backend (OpenAI-compatible, VS Code language models, scripted) sits behind this. */
export interface ChatProvider {
  /** Stable identifier used in logs and errors ("openai@http://127.0.0.1:11434/v1"). */
  readonly id: string;
  chat(req: ChatRequest): Promise<ChatResult>;
  /**
   * Told on resume how many calls of a participant and purpose the log already holds, so a
   * stateful provider (the scripted one) continues where the meeting stopped.
   */
  skip?(participant: string, purpose: CallPurpose, completed: number): void;
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
