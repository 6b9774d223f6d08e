/**
 * Token counting with a real tokenizer (o200k_base, the GPT-4o family's encoding). Used for the
 * room's spoken-token budget and whenever a provider does not report usage.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import type { ChatMessage } from './types';

let encoder: Tiktoken | undefined;
function enc(): Tiktoken {
  encoder ??= new Tiktoken(o200k);
  return encoder;
}

/**
 * Hostile or leaked text may hold special tokens (`<|endoftext|>`, a model's template leaking):
 * they are counted as the plain text they are, never refused (the tokenizer throws on them by default).
 */
function encodeText(text: string): number[] {
  // The BPE is quadratic in the length of one unbroken run (20,000 'a's took 48 s): a long run is
  // encoded in 64-character pieces, which only moves a merge or two at each cut.
  if (!LONG_RUN.test(text)) return enc().encode(text, [], []);
  const ids: number[] = [];
  for (const part of text.split(RUN_PIECE)) if (part) ids.push(...enc().encode(part, [], []));
  return ids;
}
const LONG_RUN = /\S{65}/;
const RUN_PIECE = /(\S{64})/;

// Very long texts are counted in slices so the tokenizer's regex never sees a pathological input.
const SLICE = 20_000;

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  if (text.length <= SLICE) return encodeText(text).length;
  let n = 0;
  for (let i = 0; i < text.length; i += SLICE) n += encodeText(text.slice(i, i + SLICE)).length;
  return n;
}

/**
 * Prompt tokens of a chat request, with the per-message overhead OpenAI documents (3 + 3).
 * `count` counts one message's text (a caller that sends the same texts again may remember them).
 */
export function countPromptTokens(
  messages: readonly ChatMessage[],
  count: (text: string) => number = countTokens,
): number {
  let n = 3;
  for (const m of messages) n += 3 + count(m.content);
  return n;
}

/** Cuts `text` to at most `max` tokens, on a token boundary. */
export function truncateToTokens(text: string, max: number): string {
  // Every token covers at least one character: a text with no more characters than `max` fits.
  if (text.length <= max) return text;
  const ids = encodeText(text);
  if (ids.length <= max) return text;
  return enc().decode(ids.slice(0, max));
}
