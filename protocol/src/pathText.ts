/**
 * A file name as people and reviewers are shown it. A path is data: a contributor can name a file
 * with a newline, a carriage return, U+2028, a zero-width space, a soft hyphen or a bidi override.
 * `visibleText` (text.ts) is for prose: it drops zero-width characters, so `db\u200b.ts` would
 * show as `db.ts`, another file's name. Here nothing is dropped: every character that shows as
 * nothing, moves the line or reorders the text is written as an escape, and the report names it.
 */

/**
 * Characters a path may hold that show as nothing or as something else: controls (C0, DEL, C1),
 * the line and paragraph separators, and Unicode's default-ignorable code points (zero-width
 * space and joiners, soft hyphen, bidi marks, embeddings, overrides and isolates, word joiner,
 * variation selectors, tag characters, Hangul fillers, the byte-order mark).
 */
const INVISIBLE = /[\p{Cc}\p{Default_Ignorable_Code_Point}\u2028\u2029]/u;
const INVISIBLE_ALL = /[\p{Cc}\p{Default_Ignorable_Code_Point}\u2028\u2029]/gu;

/** Names of the characters hostile names use most; any other is named by its code point and kind. */
const NAMES: Record<number, string> = {
  0x09: 'CHARACTER TABULATION',
  0x0a: 'LINE FEED',
  0x0d: 'CARRIAGE RETURN',
  0x1b: 'ESCAPE',
  0x7f: 'DELETE',
  0x85: 'NEXT LINE',
  0xad: 'SOFT HYPHEN',
  0x34f: 'COMBINING GRAPHEME JOINER',
  0x61c: 'ARABIC LETTER MARK',
  0x180e: 'MONGOLIAN VOWEL SEPARATOR',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0x2061: 'FUNCTION APPLICATION',
  0x2062: 'INVISIBLE TIMES',
  0x2063: 'INVISIBLE SEPARATOR',
  0x2064: 'INVISIBLE PLUS',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0x3164: 'HANGUL FILLER',
  0xfe0e: 'VARIATION SELECTOR-15',
  0xfe0f: 'VARIATION SELECTOR-16',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
};

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const hex = (cp: number): string => cp.toString(16).padStart(4, '0');

/** `U+200B ZERO WIDTH SPACE`; a character without a name here by its code point and kind. */
function characterName(cp: number): string {
  const code = `U+${hex(cp).toUpperCase()}`;
  const name = NAMES[cp];
  if (name) return `${code} ${name}`;
  return `${code} (${/\p{Cc}/u.test(String.fromCodePoint(cp)) ? 'a control character' : 'an invisible character'})`;
}

/** True when the name holds a character that shows as nothing or as something else. */
function holdsInvisible(file: string): boolean {
  return INVISIBLE.test(file);
}

/**
 * The visible form of a name that holds such characters (`services/db\u200b.ts`,
 * `services/new\nline.ts`: each one escaped, backslashes doubled, as in a JSON string), or
 * undefined when the name shows as it is. One line of printable text: it survives every prompt,
 * terminal and Markdown escaping unchanged, so a reviewer that copies it names this file.
 */
export function shownPath(file: string): string | undefined {
  if (!holdsInvisible(file)) return undefined;
  return file.replace(/\\/g, '\\\\').replace(INVISIBLE_ALL, (c) => {
    const cp = c.codePointAt(0) as number;
    return SHORT[c] ?? (cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${hex(cp)}`);
  });
}

/** The name as it looks: without the characters that show as nothing or as something else. */
export function withoutInvisible(file: string): string {
  return file.replace(INVISIBLE_ALL, '');
}

/** The characters a name holds that show as nothing or as something else, each named once, in order. */
export function invisibleNames(file: string): string[] {
  const seen = new Set<number>();
  for (const m of file.matchAll(INVISIBLE_ALL)) seen.add(m[0].codePointAt(0) as number);
  return [...seen].map(characterName);
}

/** What a report adds after a name that holds such characters: ` (holds U+200B ZERO WIDTH SPACE)`, else ''. */
export function invisibleNote(file: string): string {
  const names = invisibleNames(file);
  return names.length ? ` (holds ${names.join(', ')})` : '';
}

/**
 * A name for a report: the name itself, or its visible form followed by what it holds:
 * `services/db\u200b.ts (holds U+200B ZERO WIDTH SPACE)`.
 */
export function pathForPeople(file: string): string {
  return `${shownPath(file) ?? file}${invisibleNote(file)}`;
}
