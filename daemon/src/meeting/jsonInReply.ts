/**
 * JSON in a model's reply: every value it holds (a fenced block, the whole text, objects and arrays
 * inside prose, a tool call's arguments sent as a string), loose JSON mended (trailing commas, a
 * missing brace, smart quotes, comments), and the last value a reader wants picked out of them.
 */
import { isRecord, jsonNestsDeeperThan } from '@roundtable/protocol';

/**
 * Every top-level balanced `{...}` (or `[...]`) in a text with its offset, strings and escapes
 * respected; an opener never closed is returned too, running to the end, for `repairJson`.
 */
function valuesIn(text: string, open: '{' | '['): { at: number; text: string; closed: boolean }[] {
  const close = open === '{' ? '}' : ']';
  const out: { at: number; text: string; closed: boolean }[] = [];
  for (let start = text.indexOf(open); start !== -1; start = text.indexOf(open, start + 1)) {
    let depth = 0;
    let inString = false;
    let escaped = false;
    let i = start;
    for (; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === '\\') escaped = true;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === open) depth++;
      else if (c === close && --depth === 0) break;
    }
    out.push({ at: start, text: text.slice(start, i + 1), closed: i < text.length });
    start = i;
  }
  return out;
}

const SMART_OPEN = new Set(['“', '”', '„', '‟']);
/** Python's literals as a `repr` writes them (`{'evidence': None}`), outside strings. */
const PY_LITERAL = /(?:None|True|False)\b/y;
const JSON_LITERAL: Record<string, string> = { None: 'null', True: 'true', False: 'false' };
const CLOSER: Record<string, string> = { '{': '}', '[': ']' };

/**
 * What may follow the quote that closes a JSON string: a colon (a key), a closing bracket, the
 * end, or a comma and then the next member or value (or a closing bracket after a trailing comma).
 * A `"` followed by anything else is a quote inside the text (`"Sent to the "dictator", waiting."`).
 */
const AFTER_STRING =
  /\s*(?:[:}\]]|\/[/*]|$|,\s*(?:["“'{[\]}\d-]|true\b|false\b|null\b|None\b|True\b|False\b|\/[/*]|$))/y;

/**
 * What may follow a bracket that closes the outermost value when the writer closed it too soon:
 * another member, `, "key":` (`{"a":[1]}, "b": 2}` — an extra `}` after a list).
 */
const MORE_MEMBERS = /\s*,\s*["“][^"“”\n]*["”]\s*:/y;

/**
 * JSON as models loosen it, made strict: smart quotes and Python's single quotes as string
 * delimiters (an apostrophe inside is kept: a quote closes only where AFTER_STRING allows), Python's
 * `None`/`True`/`False`, `//` and `/* *\/` comments, trailing commas, raw newlines in strings,
 * unescaped double quotes inside a string (see AFTER_STRING), a stray bracket that would close the
 * outermost object before its next member (see MORE_MEMBERS), a closing bracket that skips one
 * left open (`{"a": 1]` closes the object first), and closing brackets missing at the very end
 * (only after a complete value, never after a dangling comma — that is a cut-off reply). Undefined
 * when it cannot be mended.
 */
export function repairJson(src: string): string | undefined {
  const out: string[] = [];
  const stack = new Brackets();
  let quote = ''; // the quote that closes the string being read, '' outside strings
  for (let i = 0; i < src.length; i++) {
    // A run of characters kept as they are, taken at once.
    const run = quote ? PLAIN_IN_STRING : PLAIN_OUTSIDE;
    if (followsAt(run, src, i)) {
      out.push(src.slice(i, run.lastIndex));
      i = run.lastIndex - 1;
      continue;
    }
    const c = src[i] as string;
    if (quote) {
      if (c === '\\') {
        // `\'` is no JSON escape: the apostrophe alone.
        out.push(src[i + 1] === "'" ? "'" : c + (src[i + 1] ?? ''));
        i++;
      } else if ((c === quote && (quote === '”' || mayClose(src, i + 1))) || (quote === '”' && SMART_OPEN.has(c))) {
        out.push('"');
        quote = '';
      } else out.push(c === '\n' ? '\\n' : c === '"' ? '\\"' : c);
    } else if (c === '"' || c === "'" || SMART_OPEN.has(c)) {
      out.push('"');
      quote = c === '"' || c === "'" ? c : '”';
    } else if ((c === 'N' || c === 'T' || c === 'F') && ((PY_LITERAL.lastIndex = i), PY_LITERAL.test(src))) {
      out.push(JSON_LITERAL[src.slice(i, PY_LITERAL.lastIndex)] ?? '');
      i = PY_LITERAL.lastIndex - 1;
    } else if (c === '/' && (src[i + 1] === '/' || src[i + 1] === '*')) {
      const end = src[i + 1] === '/' ? src.indexOf('\n', i) : src.indexOf('*/', i + 2) + 1;
      i = end <= 0 ? src.length : end;
    } else if (c === '{' || c === '[') {
      // Deeper than any reply we ask for is no JSON of ours: not mended (and not parsed) at all.
      if (stack.depth >= MAX_DEPTH) return undefined;
      out.push(c);
      stack.open(c);
    } else if (c === '}' || c === ']') {
      if (stack.depth === 1 && stack.top === '}' && followsAt(MORE_MEMBERS, src, i + 1)) continue;
      stack.close(c, out);
    } else out.push(c);
  }
  if (quote) return undefined;
  if (stack.depth > 0 && !endsWithBracket(out)) return undefined;
  return out.join('') + stack.rest();
}

/** The deepest nesting a mended value may have: ballots, proposals and digests are a few levels deep. */
const MAX_DEPTH = 64;

/** The brackets left open while mending, with how many of each kind, so a close is checked at once. */
class Brackets {
  private readonly stack: string[] = [];
  private readonly count: Record<string, number> = { '}': 0, ']': 0 };

  get depth(): number {
    return this.stack.length;
  }
  get top(): string | undefined {
    return this.stack[this.stack.length - 1];
  }
  open(c: '{' | '['): void {
    const closer = CLOSER[c] as string;
    this.stack.push(closer);
    this.count[closer] = (this.count[closer] ?? 0) + 1;
  }
  /** A closing bracket: stray (none of its kind open) is dropped; one that skips an open one closes it first. */
  close(c: '}' | ']', out: string[]): void {
    if (!this.count[c]) return;
    for (;;) {
      const closer = this.stack.pop() as string;
      this.count[closer] = (this.count[closer] ?? 1) - 1;
      dropTrailingComma(out);
      out.push(closer);
      if (closer === c) return;
    }
  }
  /** The closers still missing, innermost first. */
  rest(): string {
    return [...this.stack].reverse().join('');
  }
}

/** A trailing comma (white space after it allowed) taken off what was written so far. */
function dropTrailingComma(out: string[]): void {
  for (let k = out.length - 1; k >= 0; k--) {
    const piece = out[k] as string;
    const kept = piece.trimEnd();
    if (kept === '') continue;
    if (kept.endsWith(',')) out[k] = kept.slice(0, -1) + piece.slice(kept.length);
    return;
  }
}

/** True when what was written so far ends with a closing bracket (white space after it allowed). */
function endsWithBracket(out: string[]): boolean {
  for (let k = out.length - 1; k >= 0; k--) {
    const piece = (out[k] as string).trim();
    if (piece) return piece.endsWith('}') || piece.endsWith(']');
  }
  return false;
}

/** Characters copied as they are: inside a string, and outside one. */
const PLAIN_IN_STRING = /[^\\"'\n“”„‟]+/y;
const PLAIN_OUTSIDE = /[^"'“”„‟NTF/{}[\]]+/y;

/** AFTER_STRING at `at`, looked at only when the next character could start what it allows. */
function mayClose(src: string, at: number): boolean {
  const next = src[at];
  return (next === undefined || /[\s:}\],/]/.test(next)) && followsAt(AFTER_STRING, src, at);
}

/** True when the sticky `re` matches `src` at `at` (no copy of the rest of the text per look). */
function followsAt(re: RegExp, src: string, at: number): boolean {
  re.lastIndex = at;
  return re.test(src);
}

/** A value can start here: an object or an array whose first member looks like JSON (not `[1]`-style prose like `[CONTENT]`). */
const PLAUSIBLE = /^\s*[{[]\s*(?:["'“”[{\]}\d-]|true\b|false\b|null\b|None\b|True\b|False\b|\/[/*])/;

function parseLoose(text: string): unknown {
  if (!PLAUSIBLE.test(text) || jsonNestsDeeperThan(text, MAX_DEPTH)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const mended = repairJson(text);
    if (mended === undefined) return undefined;
    try {
      return JSON.parse(mended) as unknown;
    } catch {
      return undefined;
    }
  }
}

/**
 * The JSON blocks a reply marks as such, in order: ```` ```json ```` fences (an unclosed one runs
 * to the end), MetaGPT's `[CONTENT]…[/CONTENT]` and an `<answer>…</answer>` (R1-style replies),
 * each with the offset just past its end.
 */
function blocksIn(text: string): { at: number; end: number; text: string }[] {
  const out: { at: number; end: number; text: string }[] = [];
  const pairs: [string, string, RegExp | undefined][] = [
    ['```', '```', /(?:json|JSON|jsonc)?[^\S\n]*\n?/y],
    ['[CONTENT]', '[/CONTENT]', undefined],
    ['<answer>', '</answer>', undefined],
  ];
  // Found with indexOf (no lazy pattern retried from every opener): each block runs to its close or the end.
  for (const [open, close, info] of pairs) {
    for (let at = text.indexOf(open); at !== -1;) {
      let from = at + open.length;
      if (info) {
        info.lastIndex = from;
        if (info.test(text)) from = info.lastIndex;
      }
      const end = text.indexOf(close, from);
      const body = text.slice(from, end === -1 ? text.length : end).trim();
      if (body) out.push({ at, end: end === -1 ? text.length : end + close.length, text: body });
      if (end === -1) break;
      at = text.indexOf(open, end + close.length);
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

/** Every JSON value a reply holds, in order of where it starts: marked blocks, the whole text, objects, arrays. */
export function jsonValuesIn(text: string, open: '{' | '[' = '{'): unknown[] {
  const found = [...blocksIn(text), { at: 0, text: text.trim() }, ...valuesIn(text, open)];
  // The whole text is often also the first value: the same text is parsed once.
  const seen = new Map<string, unknown>();
  const parsed = (t: string) => (seen.has(t) ? seen.get(t) : (seen.set(t, parseLoose(t)), seen.get(t)));
  return found
    .sort((a, b) => a.at - b.at)
    .map((f) => parsed(f.text))
    .filter((v) => v !== undefined);
}

/** A JSON value of a reply where it was written: see `jsonSpans`. */
export interface JsonSpan {
  at: number;
  end: number;
  /** The text of the value as written (for a marked block, its body). */
  text: string;
  /** Parsed (mended when loose); undefined when even mending could not read it. */
  value: unknown;
  /** Marked as the answer: a fenced block, `[CONTENT]`, `<answer>`, or the whole reply. */
  marked: boolean;
  /** False when its brackets are still open at the end of the text: a reply cut off inside it. */
  closed: boolean;
}

/**
 * The outermost JSON values of a reply, in order: marked blocks, the whole text, and the objects
 * and arrays in prose not inside another value. Values that do not parse are kept (`value`
 * undefined) so a reader can still take what was complete in a reply cut off by the token cap.
 */
export function jsonSpans(text: string): JsonSpan[] {
  const trimmed = text.trim();
  const whole = trimmed ? [{ at: 0, end: text.length, text: trimmed, marked: true }] : [];
  const marked = blocksIn(text).map((b) => ({ ...b, marked: true }));
  const inProse = [...valuesIn(text, '{'), ...valuesIn(text, '[')].map((v) => ({
    at: v.at,
    end: v.at + v.text.length,
    text: v.text,
    marked: false,
  }));
  const spans = [...whole, ...marked, ...inProse]
    .filter((s) => /^[{[]/.test(s.text))
    .sort((a, b) => a.at - b.at || b.end - a.end);
  // Only the outermost: a value inside a parsed one is part of it (the whole text, when it parses,
  // holds all). Swept in order of start, longest first, so the check is linear in the spans.
  const out: JsonSpan[] = [];
  let covered = -1;
  for (const s of spans) {
    if (s.end <= covered) continue;
    const value = parseLoose(s.text);
    if (value !== undefined) covered = s.end;
    out.push({ ...s, value, closed: valuesIn(s.text, s.text[0] as '{' | '[')[0]?.closed ?? false });
  }
  return out;
}

/** The records inside a value that satisfy `want`, a JSON object sent as a string (a tool call's arguments) included. */
function matchesIn(v: unknown, want: (r: Record<string, unknown>) => boolean, depth = 0): Record<string, unknown>[] {
  if (depth > 6) return [];
  if (typeof v === 'string') return /^\s*\{/.test(v) ? matchesIn(parseLoose(v), want, depth + 1) : [];
  if (isRecord(v) && want(v)) return [v];
  const children = Array.isArray(v) ? v : isRecord(v) ? Object.values(v) : [];
  return children.flatMap((c) => matchesIn(c, want, depth + 1));
}

/** A structured value: an object, or an array of objects, arrays or strings (not `[1]`, a footnote in prose). */
function structured(v: unknown): boolean {
  return isRecord(v) || (Array.isArray(v) && v.some((x) => typeof x === 'object' || typeof x === 'string'));
}

/**
 * The value a reply means when nothing says what to look for, an object or an array: the last
 * marked block that holds one (a plan or a draft block comes before the deliverable), else the
 * whole text, else the first object or array in the prose.
 */
function intendedJson(text: string): unknown {
  const blocks = blocksIn(text)
    .map((b) => parseLoose(b.text))
    .filter(structured);
  if (blocks.length > 0) return blocks[blocks.length - 1];
  const whole = parseLoose(text.trim());
  if (structured(whole)) return whole;
  // In order of where they start (each list is in order already), an outer value before the ones inside it.
  const objects = valuesIn(text, '{');
  const arrays = valuesIn(text, '[');
  for (let o = 0, a = 0; o < objects.length || a < arrays.length;) {
    const next = (objects[o]?.at ?? Infinity) <= (arrays[a]?.at ?? Infinity) ? objects[o++] : arrays[a++];
    const v = parseLoose((next as { text: string }).text);
    if (structured(v)) return v;
  }
  return undefined;
}

/**
 * A JSON value from a reply. With `want`, the LAST object anywhere in the reply (nested ones and
 * tool-call arguments included) that satisfies it — a model may send a tool call or a draft first;
 * or, when none does, the first object found. Without, the value the reply means, an object or
 * an array (see intendedJson). Loose JSON is mended (`repairJson`).
 */
export function extractJson(text: string, want?: (r: Record<string, unknown>) => boolean): unknown {
  if (!want) return intendedJson(text);
  const values = jsonValuesIn(text);
  const hits = values.flatMap((v) => matchesIn(v, want));
  return hits.length > 0 ? hits[hits.length - 1] : values.find(isRecord);
}
