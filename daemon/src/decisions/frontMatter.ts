/**
 * The small part of YAML a decision record's front matter needs, read in one pass over its lines:
 * `key: scalar`, `key: "quoted"`/`'quoted'`, `key: [a, "b"]` and a block list (`key:` then
 * `  - item` lines). Nothing else of YAML is interpreted: no anchors or aliases (a YAML bomb is a
 * few strings here, never expanded), no tags, no nested maps, no multi-line scalars. A value that
 * YAML would read as an alias, anchor or tag (`*x`, `&x`, `!x`, unquoted) is left out with a note,
 * so `scope: *.sql` cannot silently become a glob other YAML tools refuse.
 *
 * Bounded: a front matter longer than `MAX_FRONT_LINES` lines or `MAX_FRONT_CHARS` characters is
 * skipped whole (with a note), one never closed makes the whole record fieldless; each value is
 * cut at `MAX_VALUE_CHARS` and a list at `MAX_LIST_ITEMS`.
 */

export const MAX_FRONT_LINES = 200;
export const MAX_FRONT_CHARS = 16_000;
const MAX_VALUE_CHARS = 1_000;
const MAX_LIST_ITEMS = 100;

export type FrontValue = string | string[];

export interface FrontMatter {
  /** Keys lower-cased; the first occurrence of a key wins. */
  fields: Map<string, FrontValue>;
  /** Index of the closing `---` line, or -1 when the record has no front matter. */
  end: number;
  /** An opening `---` never closed: nothing of the record is read as a field (its keys would swallow the body). */
  unclosed: boolean;
  /** A front matter there but not read (never closed, or too long): its status is unknown, not absent. */
  unread: boolean;
  notes: string[];
}

/** A plain scalar YAML reads as an alias, an anchor or a tag, not as text. */
const YAML_NODE_PROPERTY = /^[*&!]/;

/**
 * YAML's double-quoted escapes, undone as a YAML reader would (`\u001b` is an ESC, and is then
 * judged as one); a line break or tab becomes a space: every value is one line.
 */
const ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  N: '\x85',
  _: '\xa0',
  L: '\u2028',
  P: '\u2029',
};

function yamlEscape(e: string): string {
  if (e.length > 1) {
    const cp = parseInt(e.slice(1), 16);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
  }
  return ESCAPES[e] ?? e;
}

/** One scalar: quoted (with its escapes undone) or plain (a ` #` comment cut off); undefined when YAML would not read it as text. */
function scalar(raw: string, key: string, notes: string[]): string | undefined {
  const v = raw.trim().slice(0, MAX_VALUE_CHARS);
  if (v.startsWith('"')) {
    // The alternatives are disjoint and the value is capped: one pass, no backtracking.
    const body = /^"((?:[^"\\]|\\.)*)"?/.exec(v)?.[1] ?? '';
    return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (_m, e: string) =>
      yamlEscape(e).replace(/[\t\n\v\f\r\u0085\u2028\u2029]/g, ' '),
    );
  }
  if (v.startsWith("'")) {
    const body = /^'((?:[^']|'')*)'?/.exec(v)?.[1] ?? '';
    return body.replace(/''/g, "'");
  }
  const plain = v.replace(/\s+#.*$/, '').trim();
  if (YAML_NODE_PROPERTY.test(plain)) {
    notes.push(
      `front matter "${key}": ${plain.slice(0, 40)} starts with ${plain[0]}, which YAML reads as an alias, anchor or tag (quote it); left out`,
    );
    return undefined;
  }
  return plain;
}

/** Splits a flow list's body on commas outside quotes, in one pass. */
function flowItems(body: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote = '';
  for (const c of body) {
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ',') {
      out.push(cur);
      cur = '';
      if (out.length >= MAX_LIST_ITEMS) return out;
      continue;
    }
    cur += c;
  }
  if (cur.trim() !== '') out.push(cur);
  return out;
}

function listOf(items: string[], key: string, notes: string[]): string[] {
  const out: string[] = [];
  for (const i of items.slice(0, MAX_LIST_ITEMS)) {
    const v = scalar(i, key, notes);
    if (v) out.push(v);
  }
  return out;
}

/**
 * Reads the front matter at the top of `lines` (the first line `---`, closed by `---` or `...`).
 * One never closed is reported as `unclosed`: its keys would otherwise swallow the record, and
 * reading its lines as the body's would let a broken record count as accepted.
 */
export function readFrontMatter(lines: readonly string[]): FrontMatter {
  const notes: string[] = [];
  const fields = new Map<string, FrontValue>();
  if (lines[0]?.trim() !== '---') return { fields, end: -1, unclosed: false, unread: false, notes };
  let end = -1;
  let chars = 0;
  for (let i = 1; i < lines.length; i++) {
    const t = (lines[i] as string).trim();
    if (t === '---' || t === '...') {
      end = i;
      break;
    }
    chars += (lines[i] as string).length + 1;
  }
  if (end < 0) {
    notes.push('front matter is never closed: none of its fields is read');
    return { fields, end: -1, unclosed: true, unread: true, notes };
  }
  if (end > MAX_FRONT_LINES || chars > MAX_FRONT_CHARS) {
    notes.push(
      `front matter is longer than ${MAX_FRONT_LINES} lines or ${MAX_FRONT_CHARS} characters: none of its fields is read`,
    );
    return { fields, end, unclosed: false, unread: true, notes };
  }
  let listKey: string | undefined;
  for (let i = 1; i < end; i++) {
    const line = lines[i] as string;
    if (/^\s*(#|$)/.test(line)) continue;
    const item = /^\s+-\s+(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
    if (item && listKey) {
      const list = fields.get(listKey);
      const v = scalar(item[1] as string, listKey, notes);
      if (Array.isArray(list) && v && list.length < MAX_LIST_ITEMS) list.push(v);
      continue;
    }
    listKey = undefined;
    // Keys in any script (`statut`, `décideurs`), a space before the colon as French writes it.
    const kv = /^(\p{L}[\p{L}\p{N}_-]{0,63})\s*:(?:\s+(.*))?$/u.exec(line);
    if (!kv) continue;
    const key = (kv[1] as string).toLowerCase();
    if (fields.has(key)) continue;
    const raw = (kv[2] ?? '').trim();
    if (raw === '' || raw.startsWith('#')) {
      fields.set(key, []);
      listKey = key;
    } else if (raw.startsWith('[')) {
      const close = raw.lastIndexOf(']');
      fields.set(key, listOf(flowItems(raw.slice(1, close > 0 ? close : undefined)), key, notes));
    } else {
      const v = scalar(raw, key, notes);
      if (v !== undefined) fields.set(key, v);
    }
  }
  return { fields, end, unclosed: false, unread: false, notes };
}

/** A field as one string (a list joined with `, `), or undefined when missing or empty. */
export function frontString(fm: FrontMatter, key: string): string | undefined {
  const v = fm.fields.get(key);
  const s = Array.isArray(v) ? v.join(', ') : v;
  return s ? s : undefined;
}

/** A field as a list (a single string is a list of one), empty when missing. */
export function frontList(fm: FrontMatter, key: string): string[] {
  const v = fm.fields.get(key);
  return v === undefined ? [] : Array.isArray(v) ? v : v ? [v] : [];
}
