/**
 * How a server's prompt cache serves a prompt, in one place: the estimate replays meetings on it,
 * and the test server reports `cached_tokens` by it, so what the estimate predicts and what the
 * bill of a meeting on that server says are counted by the same rule.
 *
 * OpenAI's rule (platform.openai.com/docs/guides/prompt-caching): prompts of at least 1,024 tokens
 * are cached, hits are counted in 128-token blocks, and a hit is the longest common prefix with any
 * earlier prompt. vLLM/llama.cpp skip the prefill of a cached prefix in blocks of their own
 * (`minTokens: 0, blockTokens: 16`).
 */

export interface PrefixCacheOptions {
  /** No hit is reported below this many common tokens (default 1,024). */
  minTokens?: number;
  /** Hits are counted in whole blocks of this many tokens (default 128). */
  blockTokens?: number;
}

/** The prompt text a prefix cache sees: the messages in order, system first, role by role. */
export function serializePrompt(messages: readonly { role: string; content?: unknown }[] | undefined): string {
  return (messages ?? []).map((m) => `<${m.role}>\n${typeof m.content === 'string' ? m.content : ''}\n`).join('');
}

/** Characters `a` and `b` share from their start. */
function commonPrefix(a: string, b: string, n: number): number {
  // Block by block with native comparisons (prompts share tens of thousands of characters), then
  // character by character inside the first block that differs.
  let i = 0;
  while (i + 1_024 <= n && a.substring(i, i + 1_024) === b.substring(i, i + 1_024)) i += 1_024;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** A prefix cache over every prompt seen so far. */
export class PrefixCache {
  private readonly seen: string[] = [];
  constructor(private readonly o: PrefixCacheOptions = {}) {}

  /**
   * Cached tokens of the prompt `text` of `promptTokens` tokens, then remembers it (a prompt is
   * cached once it arrived). The common prefix counts the prompt's tokens in proportion to its
   * characters: a server counts tokens, the cache compares text.
   */
  lookup(text: string, promptTokens: number): number {
    let best = 0;
    for (const before of this.seen) {
      const n = Math.min(before.length, text.length);
      if (n > best) best = Math.max(best, commonPrefix(text, before, n));
    }
    this.seen.push(text);
    const block = Math.max(1, this.o.blockTokens ?? 128);
    const common = text.length === 0 ? 0 : Math.floor((promptTokens * best) / text.length);
    const cached = common < (this.o.minTokens ?? 1_024) ? 0 : Math.floor(common / block) * block;
    // A prompt identical to an earlier one still has its last token computed.
    return Math.min(cached, Math.max(0, promptTokens - 1));
  }
}
