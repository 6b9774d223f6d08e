/**
 * Seat names. A name is shown in the room, in prompts and in documents, and some words carry
 * meaning there (`human` is the person running the meeting; `CONVERGED:` ends a meeting when the
 * judge writes it; stance and pass markers are parsed from replies). A seat named after one of
 * them could make another participant's words read as protocol, so those names are refused
 * everywhere a name is accepted, case-insensitively.
 */
export const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;

export const RESERVED_NAMES: readonly string[] = [
  'human',
  'user',
  'system',
  'roundtable',
  'converged',
  'stance',
  'pass',
  'agree',
  'disagree',
  'neutral',
  'unknown',
  'timeout',
  'consensus',
  'consensus_statement',
  'dissent',
  'contributors',
  'everyone',
  'all',
];

/** True when `name` may not be used for a seat (compared case-insensitively). */
export function isReservedName(name: string): boolean {
  return RESERVED_NAMES.includes(name.trim().toLowerCase());
}

/** The one-line reason a reserved name is refused. */
export function reservedNameError(name: string): string {
  return `the name "${name}" is reserved (${name.toLowerCase() === 'human' ? 'it is the person running the meeting' : 'it is a word the room reads as protocol'}); choose another`;
}
