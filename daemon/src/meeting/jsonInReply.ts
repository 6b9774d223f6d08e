/**
 * JSON in a model's reply: every value it holds (a fenced block, the whole text, objects and arrays
 * inside prose, a tool call's arguments sent as a string), loose JSON mended (trailing commas, a
 * missing brace, smart quotes, comments), and the last value a reader wants picked out of them.
 */
import { isRecord } from '@roundtable/protocol';

/**
 * Every top-level balanced `{...}` (or `[...]`) in a text with its offset, strings and escapes
 * respected; an opener never closed is returned too, running to the end, for `repairJson`.
 */
function valuesIn(text: string, open: '{' | '['): { at: number; text: string }[] {
  const close = open === '{' ? '}' : ']';
  const out: { at: number; text: string }[] = [];
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
    out.push({ at: start, text: text.slice(start, i + 1) });
    start = i;
  }
  return out;
}

const SMART_OPEN = new Set(['“', '”', '„', '‟']);
const CLOSER: Record<string, string> = { '{': '}', '[': ']' };

/**
 * What may follow the quote that closes a JSON string: a colon (a key), a closing bracket, the
 * end, or a comma and then the next member or value (or a closing bracket after a trailing comma).
 * A `"` followed by anything else is a quote inside the text (`"Sent to the "dictator", waiting."`).
 */
const AFTER_STRING = /^\s*(?:[:}\]]|\/[/*]|$|,\s*(?:["“{[\]}\d-]|true\b|false\b|null\b|\/[/*]|$))/;

/**
 * What may follow a bracket that closes the outermost value when the writer closed it too soon:
 * another member, `, "key":` (`{"a":[1]}, "b": 2}` — an extra `}` after a list).
 */
const MORE_MEMBERS = /^\s*,\s*["“][^"“”\n]*["”]\s*:/;

/**
 * JSON as models loosen it, made strict: smart quotes as string delimiters, `//` and `/* *\/`
 * comments, trailing commas, raw newlines in strings, unescaped double quotes inside a string
 * (see AFTER_STRING), a stray bracket that would close the outermost object before its next
 * member (see MORE_MEMBERS), and closing brackets missing at the very end (only after a complete
 * value, never after a dangling comma — that is a cut-off reply). Undefined when it cannot be mended.
 */
export function repairJson(src: string): string | undefined {
  let out = '';
  const stack: string[] = [];
  let quote = ''; // the quote that closes the string being read, '' outside strings
  for (let i = 0; i < src.length; i++) {
    const c = src[i] as string;
    if (quote) {
      if (c === '\\') {
        out += c + (src[i + 1] ?? '');
        i++;
      } else if (
        (c === quote && (quote !== '"' || AFTER_STRING.test(src.slice(i + 1)))) ||
        (quote !== '"' && SMART_OPEN.has(c))
      ) {
        out += '"';
        quote = '';
      } else out += c === '\n' ? '\\n' : c === '"' ? '\\"' : c;
    } else if (c === '"' || SMART_OPEN.has(c)) {
      out += '"';
      quote = c === '"' ? '"' : '”';
    } else if (c === '/' && (src[i + 1] === '/' || src[i + 1] === '*')) {
      const end = src[i + 1] === '/' ? src.indexOf('\n', i) : src.indexOf('*/', i + 2) + 1;
      i = end <= 0 ? src.length : end;
    } else if (c === '{' || c === '[') {
      out += c;
      stack.push(CLOSER[c] as string);
    } else if (c === '}' || c === ']') {
      if (stack.length === 1 && stack[0] === '}' && MORE_MEMBERS.test(src.slice(i + 1))) continue;
      out = out.replace(/,\s*$/, '') + c;
      stack.pop();
    } else out += c;
  }
  if (quote) return undefined;
  if (stack.length > 0 && !/[}\]]\s*$/.test(out)) return undefined;
  return out + stack.reverse().join('');
}

function parseLoose(text: string): unknown {
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
 * to the end) and MetaGPT's `[CONTENT]…[/CONTENT]`.
 */
function blocksIn(text: string): { at: number; text: string }[] {
  const fences = [
    ...text.matchAll(/```(?:json|JSON|jsonc)?[^\S\n]*\n?([\s\S]*?)(?:```|$)/g),
    ...text.matchAll(/\[CONTENT\]([\s\S]*?)(?:\[\/CONTENT\]|$)/g),
  ];
  return fences.filter((m) => m[1]).map((m) => ({ at: m.index ?? 0, text: (m[1] ?? '').trim() }));
}

/** Every JSON value a reply holds, in order of where it starts: marked blocks, the whole text, objects, arrays. */
export function jsonValuesIn(text: string, open: '{' | '[' = '{'): unknown[] {
  const found = [...blocksIn(text), { at: 0, text: text.trim() }, ...valuesIn(text, open)];
  return found
    .sort((a, b) => a.at - b.at)
    .map((f) => parseLoose(f.text))
    .filter((v) => v !== undefined);
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
  // In order of where they start, an outer value comes before the ones inside it.
  const inProse = [...valuesIn(text, '{'), ...valuesIn(text, '[')].sort((a, b) => a.at - b.at);
  return inProse.map((v) => parseLoose(v.text)).find(structured);
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
