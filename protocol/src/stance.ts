/**
 * The stance marker, in one place: its wording in every prompt and tool description
 * (`stanceMarker`, `STANCE_CHOICES`), the parser that reads it from a reply (`parseStance`, lenient
 * about decoration and full-width look-alikes), and the pattern the room, the scripted provider and
 * eval strip it with (`stripStanceMarkers`). Pure: the daemon, the webview and eval share it.
 */
import type { Stance } from './domain';
import { visibleText } from './text';

/** A stance a speaker can give (UNKNOWN is what the room reads when none is given). */
export type GivenStance = Exclude<Stance, 'UNKNOWN'>;

/** The marker as a speaker writes it: `[STANCE: AGREE]`. */
export function stanceMarker(stance: GivenStance): string {
  return `[STANCE: ${stance}]`;
}

/** The three markers as a prompt lists them: `[STANCE: AGREE], [STANCE: DISAGREE] or [STANCE: NEUTRAL]`. */
export const STANCE_CHOICES = `${stanceMarker('AGREE')}, ${stanceMarker('DISAGREE')} or ${stanceMarker('NEUTRAL')}`;

/**
 * The documented stance marker, after `normalize` (so also `**[STANCE: AGREE]**`, `\[STANCE: AGREE\]`
 * and `［STANCE：AGREE］`). Case-insensitive; only AGREE, DISAGREE and NEUTRAL are valid.
 */
export const STANCE_RE = /\[\s*STANCE\s*:\s*(AGREE|DISAGREE|NEUTRAL)\s*[.!]?\s*\]/gi;
/** Anything that looks like an attempt at a bracketed marker, valid or not (an unclosed one included). */
const STANCE_ATTEMPT_RE = /\[\s*STANCE\s*:[^\]\n]*(?:\]|$)/gim;
/**
 * A stance label on a line of its own: `Stance: X`, `**Stance:** X`, `Final stance: agree`,
 * `Position: Disagree.`, with a bullet or heading mark in front allowed; or `STANCE:` as the last
 * cell of a ` | `-separated line that does not start with `|` (a line that does is quoted).
 */
const LABEL_RE = /^\s*(?:[-*+#]+\s*)?(?:(?:final|my|overall|current)\s+)?(stance|position)\s*:\s*(.*)$/i;
const CELL_RE = /\s\|\s*(?:(?:final|my|overall|current)\s+)?(stance)\s*:\s*([^|]*)$/i;
/** Words that say a stance when a label's value starts with them, with an adverb allowed ("Strongly agree", "Mostly agree"). */
const LEAD = String.raw`^(?:(?:strongly|mostly|largely|broadly|fully|completely|generally)\s+)?`;
/** Verbs and adjectives: the stance whatever follows ("Disagree with integration completeness — …"). */
const VALUE_WORDS: [RegExp, Stance][] = [
  [new RegExp(String.raw`${LEAD}(?:disagree|disagreed|oppose|opposed|reject)\b`, 'i'), 'DISAGREE'],
  [new RegExp(String.raw`${LEAD}(?:agree|agreed|support|supportive|approve)\b`, 'i'), 'AGREE'],
  [/^(?:neutral|unsure|undecided|abstain|mixed)\b/i, 'NEUTRAL'],
];
/** Short words that are a stance only as the whole value or before a separator ("Yes.", "No — too slow"), never "No strong view". */
const WHOLE_WORDS: [RegExp, Stance][] = [
  [/^(?:against|no)(?:\s*[.!]?\s*$|\s*[,;(—–]|\s+-\s)/i, 'DISAGREE'],
  [/^(?:for|yes)(?:\s*[.!]?\s*$|\s*[,;(—–]|\s+-\s)/i, 'AGREE'],
];

/** The stance a label's value says, or undefined when it does not start with a stance word. */
function labelValue(raw: string): Stance | undefined {
  const value = raw.trim().replace(/^\[\s*(\w+)\s*\]/, '$1');
  return [...VALUE_WORDS, ...WHOLE_WORDS].find(([re]) => re.test(value))?.[1];
}

/**
 * The documented way to sit out the remaining rounds: the marker, or the phrase. A reply passes
 * only when it is a pass as a whole (see `isPass`), never because the phrase appears in it.
 */
export const PASS_RE = /\[PASS\]|\b(?:I have |I've )?nothing (?:more |further |else |new )?to add\b/i;

/**
 * Lines quoted from peers (`| ...`, or a `> ...` blockquote) are evidence, not the speaker's
 * words: markers there never count. The reply is read as the room shows it (`visibleText`): a
 * zero-width character cannot split a marker the reader sees whole (`[STANCE: AG\u200BREE]` reads
 * AGREE, as it displays) nor hide the `|` of a quoted line, and a bidi control is an escape, not a
 * reordering, so no reply displays one stance and records another.
 */
export function ownLines(reply: string): string[] {
  return visibleText(reply)
    .split(/\r?\n/)
    .filter((l) => !/^\s*[|>]/.test(l));
}

/** A line that opens or closes a fenced code block (```` ``` ```` or `~~~`, a language after it allowed). */
const FENCE_RE = /^\s{0,3}(?:```|~~~)/;

/**
 * Which of `lines` sit inside a fenced code block (the fence lines themselves included): text
 * there is shown as code — an example, a quoted format — not said. An unclosed fence runs to the end.
 */
export function fencedLines(lines: string[]): boolean[] {
  let inside = false;
  return lines.map((l) => {
    if (FENCE_RE.test(l)) {
      inside = !inside;
      return true;
    }
    return inside;
  });
}

/** A line that is nothing but a stance marker (decorated as `normalize` allows). */
const MARKER_ONLY_RE = /^\s*\[\s*STANCE\s*:[^\]\n]*\]\s*$/i;

/** A bracketed marker, valid or not, on one line, with the blanks before it. */
const MARKER_TEXT_RE = /[ \t]*\[\s*STANCE\s*:[^\]\n]*\]/gi;

/** The text without its `[STANCE: X]` markers (valid or not): where the stance is shown or scored another way. */
export function stripStanceMarkers(text: string): string {
  return text.replace(MARKER_TEXT_RE, '');
}

/**
 * The speaker's own text with decoration a model adds to its markers removed: Markdown escapes
 * (`\[`), emphasis (`**`, `__`), full-width brackets and colon.
 */
export function normalize(line: string): string {
  return line
    .replace(/［/g, '[')
    .replace(/］/g, ']')
    .replace(/：/g, ':')
    .replace(/\\([[\]*_:])/g, '$1')
    .replace(/\*\*?|__/g, '');
}

/** An inline code span on a line that says more than the span quotes (the rule, say): it never counts. */
function dropQuotedCode(line: string): string {
  const bare = line.trim();
  if (/^`[^`]+`[.!]?$/.test(bare)) return bare.replace(/`/g, '');
  return line.replace(/`[^`]*`/g, ' ');
}

type Mark = { at: number; stance: Stance };

/** Every stance marker and label on one normalized line, in order; a malformed one is UNKNOWN. */
function marksOf(line: string, offset: number): Mark[] {
  const marks: Mark[] = [];
  for (const m of line.matchAll(STANCE_ATTEMPT_RE)) {
    const valid = new RegExp(STANCE_RE.source, 'i').exec(m[0]);
    marks.push({ at: offset + (m.index ?? 0), stance: (valid?.[1]?.toUpperCase() as Stance) ?? 'UNKNOWN' });
  }
  const label = LABEL_RE.exec(line) ?? CELL_RE.exec(line);
  if (label && marks.length === 0) {
    const stance = labelValue(label[2] ?? '');
    // `Stance:` is our label, so a value we cannot read makes the final word unreadable;
    // `Position:` is also an ordinary word ("Position: we ship B"), so it counts only when it says a stance.
    if (stance || label[1]?.toLowerCase() === 'stance') marks.push({ at: offset, stance: stance ?? 'UNKNOWN' });
  }
  return marks;
}

/**
 * Stance of a reply, parsed from the speaker's own text by regex (never by another model call),
 * and only from a marker or a label line — never from prose such as "I cannot agree", nor from a
 * fenced code block (an example of the format), unless the reply ends with a block holding only its marker. A label's
 * value counts when it starts with a stance word or a synonym (`unsure`, `Strongly disagree with …`,
 * `Yes.`); the bracketed marker takes only AGREE, DISAGREE and NEUTRAL.
 * The last marker wins, as a speaker may revise mid-reply (or put it first, as some models do).
 * A malformed final marker (`[STANCE: MAYBE]`) or none at all is UNKNOWN, which the room counts as NEUTRAL.
 */
export function parseStance(reply: string): Stance {
  let last: Mark | undefined;
  let offset = 0;
  const lines = ownLines(reply);
  const fenced = fencedLines(lines);
  // The last fenced block when nothing but space follows it, and whether it holds only markers.
  let tail: { marks: Mark[]; only: boolean } | undefined;
  lines.forEach((raw, i) => {
    const line = dropQuotedCode(normalize(raw));
    const marks = marksOf(line, offset);
    offset += raw.length + 1;
    if (!fenced[i]) {
      if (raw.trim()) tail = undefined;
      if (marks.length > 0) last = marks[marks.length - 1];
      return;
    }
    if (FENCE_RE.test(raw)) {
      if (!tail || !fenced[i - 1]) tail = { marks: [], only: true };
      return;
    }
    tail?.marks.push(...marks);
    if (tail && raw.trim() && !MARKER_ONLY_RE.test(line)) tail.only = false;
  });
  // A marker in a code block is an example, not the speaker's, unless the reply ends with a block
  // that holds nothing but its marker.
  if (tail?.only && tail.marks.length > 0) last = tail.marks[tail.marks.length - 1];
  return last?.stance ?? 'UNKNOWN';
}

/** Words around a pass that do not make it an argument: a marker, a dash, a full stop. */
const PASS_PHRASE_RE =
  /\b(?:(?:I have|I've|I)\s+)?(?:nothing|no)\s+(?:more|further|else|new|additional)?\s*(?:to add|comments?|points?)(?:\s+(?:here|now|at this (?:point|time|stage)|this round))?\b|\bI pass\b/gi;
/** The longest own text a pass may have (the longest recorded pass is 261 characters). */
const MAX_PASS_CHARS = 2_000;
const CONTRAST_RE = /\b(?:but|however|although|though|except|yet)\b/i;

/**
 * True when the whole reply is a pass: `[PASS]`, "I have nothing further to add.", "Nothing to add
 * — [PASS]" (a stance marker beside it allowed). A leading or trailing `[PASS]` may carry one short
 * sentence ("[PASS] I have left the meeting."). The phrase followed by an argument ("I have nothing
 * further to add to ada's point, but …") is no pass, nor is own text longer than MAX_PASS_CHARS.
 */
export function isPass(reply: string): boolean {
  const lines = ownLines(reply);
  // A pass is short: the marker or the phrase, a stance marker, one short sentence. Pages of own
  // text are an argument however they are worded, and are not read further.
  if (lines.reduce((n, l) => n + l.length, 0) > MAX_PASS_CHARS) return false;
  const own = lines
    .map((l) => dropQuotedCode(normalize(l)))
    .join('\n')
    .replace(STANCE_ATTEMPT_RE, ' ')
    .trim();
  const bareRest = (s: string) => s.replace(/[\s.,;:!—–\-()]+/g, '');
  const withoutPass = own.replace(/\[\s*PASS\s*\]/gi, ' ');
  if (bareRest(own) === '') return false;
  if (bareRest(withoutPass.replace(PASS_PHRASE_RE, ' ')) === '') return true;
  // A marker at either end with one short sentence beside it, and no turn to an argument.
  const marked = /^\[\s*PASS\s*\]|\[\s*PASS\s*\][.!]?$/i.test(own);
  const rest = withoutPass.trim();
  return marked && rest.length <= 120 && !rest.includes('\n') && !CONTRAST_RE.test(rest);
}
