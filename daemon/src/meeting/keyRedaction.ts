/**
 * The secrets this process holds (the API keys it calls servers with, the daemon's token), kept
 * out of everything a model's text reaches: a server that echoes the caller's key in a reply
 * (or an error) must not get it into the log, the minutes, the room or the terminal. Every event is
 * redacted where it is appended (the runner), and every live delta as it streams, a key split
 * across two chunks included.
 */

import { mapStrings } from '@roundtable/protocol';

export const REDACTED_KEY = '[redacted API key]';
/**
 * Shorter values are not secrets to look for: servers that need no key are given placeholders
 * such as `ollama`, `lm-studio` or `EMPTY`, and redacting those words from every reply would
 * garble the meeting. Real keys and the daemon's token are far longer.
 */
export const MIN_SECRET_CHARS = 12;

/** The values worth redacting, longest first (so a key that contains another is redacted whole). */
export function knownSecrets(values: readonly (string | undefined)[]): string[] {
  const kept = values.filter((v): v is string => typeof v === 'string' && v.trim().length >= MIN_SECRET_CHARS);
  return [...new Set(kept)].sort((a, b) => b.length - a.length);
}

/** Text with every occurrence of a secret replaced by `[redacted API key]`. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED_KEY);
  return out;
}

/** A copy of a value with every string in it redacted (object keys left alone); the value itself when nothing is. */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  return secrets.length === 0 ? value : mapStrings(value, (text) => redactText(text, secrets));
}

/**
 * Redacts a stream of chunks: the end of what came so far that could be the start of a secret is
 * held back until the next chunk says whether it is one, so a key split across chunks is never
 * shown. What is held back at the end of a call is never shown live; the posted message (redacted
 * whole) replaces the live text.
 */
export class StreamRedactor {
  private held = '';
  constructor(private readonly secrets: readonly string[]) {}

  /** The part of `chunk` (with what was held) that can be shown now. */
  push(chunk: string): string {
    if (this.secrets.length === 0) return chunk;
    const text = redactText(this.held + chunk, this.secrets);
    let hold = 0;
    for (const s of this.secrets) {
      for (let k = Math.min(s.length - 1, text.length); k > hold; k--) {
        if (text.endsWith(s.slice(0, k))) {
          hold = k;
          break;
        }
      }
    }
    this.held = text.slice(text.length - hold);
    return text.slice(0, text.length - hold);
  }
}
