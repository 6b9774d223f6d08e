/**
 * A model's thinking in the room: folded under a line that says how much there was ("Thought for
 * 1,234 tokens"), opened on demand, always as plain text. Thinking is hostile model text and is
 * never spoken: it never becomes the reply, its stance or what Copy copies.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { formatCount } from '@roundtable/protocol';

/** Roughly four characters a token: what the room counts while a model thinks, or where the log does not say. */
export function estimateTokens(text: string): number {
  return text.trim() ? Math.max(1, Math.round(text.length / 4)) : 0;
}

const n = formatCount;

/** "Thought for 1,234 tokens" (known) or "Thought for about 310 tokens" (counted here); "Thinking… (about 12 tokens)" while written. */
export function thinkingLabel(text: string, tokens: number | undefined, streaming: boolean): string {
  const count = tokens ?? estimateTokens(text);
  const about = tokens === undefined ? 'about ' : '';
  const unit = count === 1 ? 'token' : 'tokens';
  return streaming ? `Thinking… (${about}${n(count)} ${unit})` : `Thought for ${about}${n(count)} ${unit}`;
}

/**
 * The fold: a native `<details>`, closed until the person opens it (lit never binds `open`, so an
 * opened fold stays open while the message streams and when it is posted).
 */
export function thinkingFold(
  thinking: string | undefined,
  tokens: number | undefined,
  streaming: boolean,
): TemplateResult | typeof nothing {
  if (!thinking && tokens === undefined) return nothing;
  return html`<details class="thinking ${streaming ? 'thinking-live' : ''}" data-testid="thinking">
    <summary data-testid="thinking-summary">${thinkingLabel(thinking ?? '', tokens, streaming)}</summary>
    <div class="thinking-body plain" data-testid="thinking-body">${thinking || '(the thinking was not kept)'}</div>
  </details>`;
}
