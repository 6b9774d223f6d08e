/**
 * Seats for agents that attach themselves (over the daemon socket or MCP). To the engine an
 * attached agent is a provider whose reply arrives when the agent calls `speak`: the engine
 * waits for its turn with the same per-agent timeout as any other worker, and parses its
 * stance the same way.
 */
import { countPromptTokens, countTokens } from './tokens';
import { ProviderError, type ChatProvider, type ChatRequest, type ChatResult } from './types';
import type { ChatMessage } from '@roundtable/protocol';

/** What a seat says for its agent once the agent has left: a pass, so the seat sits out the rest. */
export const LEFT_PASS = '[PASS] I have left the meeting.';

interface PendingTurn {
  round: number;
  messages: ChatMessage[];
  resolve: (r: ChatResult) => void;
}

export class AttachedSeats implements ChatProvider {
  readonly id = 'attached';
  private readonly pending = new Map<string, PendingTurn>();
  private readonly watchers = new Set<() => void>();
  /** Seats whose agent left: every turn offered to them passes at once. */
  private readonly left = new Set<string>();

  chat(req: ChatRequest): Promise<ChatResult> {
    const name = req.meta.participant;
    return new Promise<ChatResult>((resolve, reject) => {
      if (req.signal.aborted) return reject(new ProviderError('the turn was aborted', 'aborted'));
      // Nobody will answer for a seat whose agent left: pass now rather than wait the turn timeout.
      if (this.left.has(name)) return resolve(this.reply(req.messages, LEFT_PASS));
      const onAbort = (): void => {
        this.pending.delete(name);
        reject(new ProviderError('the turn was aborted', 'aborted'));
        this.notify();
      };
      req.signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(name, {
        round: req.meta.round,
        messages: req.messages,
        resolve: (r) => {
          req.signal.removeEventListener('abort', onAbort);
          resolve(r);
        },
      });
      this.notify();
    });
  }

  /** The turn `name` is expected to take now, if any. */
  turnOf(name: string): { round: number; messages: ChatMessage[] } | null {
    const t = this.pending.get(name);
    return t ? { round: t.round, messages: t.messages } : null;
  }

  /** Delivers an attached agent's words for its pending turn. */
  speak(name: string, text: string): void {
    const t = this.pending.get(name);
    if (!t) throw new ProviderError(`it is not ${name}'s turn: listen until a turn is offered`, 'bad_request');
    this.pending.delete(name);
    t.resolve(this.reply(t.messages, text));
    this.notify();
  }

  /** The agent of seat `name` left: its pending turn and every later one pass at once. */
  leave(name: string): void {
    this.left.add(name);
    if (this.pending.has(name)) this.speak(name, LEFT_PASS);
  }

  /** The seat `name` has an agent again (it joined once more). */
  rejoin(name: string): void {
    this.left.delete(name);
  }

  private reply(messages: ChatMessage[], text: string): ChatResult {
    return {
      text,
      usage: { promptTokens: countPromptTokens(messages), completionTokens: countTokens(text), source: 'estimate' },
    };
  }

  /** Calls `fn` whenever a turn is offered or taken. Returns the unsubscribe function. */
  watch(fn: () => void): () => void {
    this.watchers.add(fn);
    return () => this.watchers.delete(fn);
  }

  private notify(): void {
    for (const fn of [...this.watchers]) fn();
  }
}
