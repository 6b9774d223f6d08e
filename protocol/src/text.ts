/** Text with its accents taken off (`é` → `e`, `ü` → `u`, `ﬁ` → `fi`): how words in several languages are compared. */
export function foldDiacritics(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
}

/** File-name slug of a topic: lowercase ASCII words joined by `-`, at most 60 characters. */
export function slugify(text: string, fallback = 'meeting'): string {
  const slug = foldDiacritics(text.toLowerCase())
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return slug || fallback;
}

/**
 * Characters no model or agent text may carry into a prompt, a document or a terminal, as one
 * regex character-class body: C0 and C1 controls except tab and newline, and the bidi overrides
 * and isolates that make text read differently from what it is. Each place adds its own extras.
 */
export const UNSAFE_CHARS = '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069';

/** Runs of whitespace (newlines included) as one space, trimmed: an error detail fit for one log line. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Bidi controls: the embeddings and overrides (U+202A–U+202E), the isolates (U+2066–U+2069), the
 * marks (U+200E, U+200F) and the Arabic letter mark (U+061C). In model text they make a reply read
 * differently from what it is — `I \u202EEERGASID` shows "I DISAGREE" — so they are never kept.
 */
const BIDI_RE = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/**
 * Characters that show as nothing: zero-width space, non-joiner, joiner, word joiner, byte-order
 * mark, soft hyphen, combining grapheme joiner, Mongolian vowel separator, invisible operators.
 */
const ZERO_WIDTH = '\\u00ad\\u034f\\u180e\\u200b\\u200c\\u200d\\u2060-\\u2064\\ufeff';
/**
 * A zero-width character with ASCII on either side: inside a name or a marker (`[STANCE: AG\u200BREE]`),
 * where it could make text parse as something other than it shows. Between emoji or letters of the
 * scripts that need them (ZWJ sequences, Persian ZWNJ, Thai ZWSP) there is no ASCII, and they stay.
 */
const ZERO_WIDTH_BY_ASCII = new RegExp(
  // eslint-disable-next-line no-misleading-character-class -- the zero-width characters are the point
  `[${ZERO_WIDTH}]+(?=[\\u0000-\\u007f])|(?<=[\\u0000-\\u007f])[${ZERO_WIDTH}]+|^[${ZERO_WIDTH}]+|[${ZERO_WIDTH}]+$|\\ufeff`,
  'gm',
);
/** Unicode tag characters (invisible ASCII look-alikes) except in an emoji flag sequence (🏴 + tags). */
const TAGS_RE = /(?<![\u{1f3f4}\u{e0020}-\u{e007f}])[\u{e0000}-\u{e007f}]+/gu;

/**
 * Model, agent or file text made to show what it is, wherever it is shown or parsed: the room, the
 * terminal, the minutes and decision records, the prompts, and the stance/answer parsers (which read
 * exactly what is displayed). Every bidi control becomes a visible escape (`⟨U+202E⟩`); zero-width
 * characters inside ASCII (names, markers) and invisible tag characters are removed; everything else
 * — emoji ZWJ sequences included — is kept. Idempotent. The one function every surface calls.
 */
export function visibleText(text: string): string {
  return text
    .replace(BIDI_RE, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`)
    .replace(ZERO_WIDTH_BY_ASCII, '')
    .replace(TAGS_RE, '');
}

/** A copy of a value with every string in it (object keys left alone) passed through `f`. */
export function mapStrings<T>(value: T, f: (text: string) => string): T {
  if (typeof value === 'string') return f(value) as T;
  if (Array.isArray(value)) return value.map((x: unknown) => mapStrings(x, f)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, mapStrings(x, f)])) as T;
  }
  return value;
}

/** A copy of a value with every string in it (object keys left alone) passed through `visibleText`. */
export function visibleDeep<T>(value: T): T {
  return mapStrings(value, visibleText);
}

/** A count as people read it in this product, the same everywhere: 12,345. */
export const formatCount = (v: number): string => v.toLocaleString('en-US');
