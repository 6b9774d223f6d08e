import type { Stance } from '../../../protocol/src';

/** The documented stance marker. Case-insensitive; only AGREE, DISAGREE and NEUTRAL are valid. */
export const STANCE_RE = /\[STANCE:\s*(AGREE|DISAGREE|NEUTRAL)\]/gi;
/** Anything that looks like an attempt at a marker, valid or not. */
const STANCE_ATTEMPT_RE = /\[\s*STANCE\s*:[^\]]*\]/gi;
/** The documented way to sit out the remaining rounds. */
export const PASS_RE = /\[PASS\]|\bI have nothing (more |further )?to add\b/i;

/** Lines quoted from peers (`| ...`) are evidence, not the speaker's words: markers there never count. */
function ownLines(reply: string): string {
  return reply
    .split('\n')
    .filter((l) => !/^\s*\|/.test(l))
    .join('\n');
}

/**
 * Stance of a reply, parsed from the speaker's own text by regex (never by another model call).
 * The last valid marker wins, as a speaker may revise mid-reply. A malformed marker
 * (`[STANCE: MAYBE]`) or none at all is UNKNOWN, which the room counts as NEUTRAL.
 */
export function parseStance(reply: string): Stance {
  const own = ownLines(reply);
  let last: Stance = 'UNKNOWN';
  for (const m of own.matchAll(STANCE_RE)) last = (m[1] ?? '').toUpperCase() as Stance;
  // A malformed marker after the last valid one means the speaker's final word is unreadable.
  const attempts = [...own.matchAll(STANCE_ATTEMPT_RE)];
  const lastAttempt = attempts[attempts.length - 1];
  if (lastAttempt && !new RegExp(STANCE_RE.source, 'i').test(lastAttempt[0])) return 'UNKNOWN';
  return last;
}

/** True when the speaker says it has nothing to add and sits out the remaining rounds. */
export function isPass(reply: string): boolean {
  return PASS_RE.test(ownLines(reply));
}
