/**
 * A reviewer's findings, read from whatever a model wrote (test/fixtures/real-replies/review has
 * the recorded replies this reads): our `{"findings": [...]}` bare, fenced, in `<answer>` tags or
 * with prose around it; a bare list; lists under other names, several side by side (a `comments`
 * list beside `findings`); findings grouped by file (`{"src/a.ts": [...]}`, `[{file, findings}]`);
 * locations nested as Codex (`code_location.absolute_file_path` + `line_range`), review bots
 * (`location: {path, line}`) and SARIF (`physicalLocation.artifactLocation.uri` + `region`) write
 * them. A reply is a clean review only when it says so: an empty list, or a short "LGTM" / "No
 * issues found" with no list. What cannot be read is said, never dropped: a finding without a
 * file, a line or a claim, or a list cut off by the token cap, makes the reply `partial`.
 */
import type { Finding, LineRange } from '@roundtable/protocol';
import { isRecord } from '@roundtable/protocol';
import { jsonSpans, repairJson, type JsonSpan } from './jsonInReply';
import { changedFileOf, decisionKey, repoRelative } from './reviewFindings';
import { severityOf } from './reviewSeverity';

/** More findings than this from one reviewer are not read: a review that lists everything says nothing. */
export const MAX_FINDINGS_PER_REVIEWER = 30;

/** What a reply is read against: the change's files (as named and as shown), the rulebook's ids, the workspace root. */
export interface ReviewReadContext {
  changed: { file: string; shown?: string }[];
  /** Every record's id in the rulebook: a decision named only in a claim's prose is found by them. */
  decisions: string[];
  /** The meeting's workspace folder: absolute paths inside it are made relative to it. */
  root?: string;
}

/** A reviewer's reply as read: its whole list (empty = clean), part of one and why, or no list at all. */
export type FindingsRead =
  | { read: 'complete'; findings: Finding[] }
  | { read: 'partial'; findings: Finding[]; why: string }
  | { read: 'none'; why: string };

/** Names models give the list of findings (review bots', SARIF's `results`, our own). */
const LIST_KEYS = [
  'findings',
  'issues',
  'comments',
  'review_comments',
  'reviewComments',
  'suggestions',
  'problems',
  'reviews',
  'violations',
  'bugs',
  'defects',
  'concerns',
  'vulnerabilities',
  'results',
  'files',
  'runs',
] as const;
const FILE_KEYS = [
  'file',
  'path',
  'file_path',
  'filePath',
  'filename',
  'fileName',
  'file_name',
  'absolute_file_path',
  'relative_path',
  'uri',
] as const;
/** Where models nest a location (Codex, review bots, SARIF, LSP-ish). */
const LOCATION_KEYS = [
  'location',
  'code_location',
  'codeLocation',
  'physicalLocation',
  'physical_location',
  'artifactLocation',
  'artifact_location',
  'region',
  'position',
] as const;
const CLAIM_KEYS = [
  'claim',
  'body',
  'description',
  'message',
  'issue',
  'analysis',
  'details',
  'detail',
  'comment',
  'explanation',
  'problem',
  'finding',
  'text',
  'reason',
] as const;
const DECISION_KEYS = [
  'decision',
  'decision_id',
  'decisionId',
  'adr',
  'adr_id',
  'record',
  'violates',
  'breaks',
] as const;
const RULE_KEYS = ['rule_id', 'ruleId', 'rule'] as const;
const DEFECT_KEYS = ['defect', 'defect_class', 'category', 'class', 'type', 'kind'] as const;
const QUOTE_KEYS = [
  'quote',
  'code',
  'snippet',
  'code_snippet',
  'excerpt',
  'diff',
  'evidence',
  'existing_code',
] as const;

/** Text of a field: a string, or a SARIF-style `{text}` / `{markdown}` object. */
function textOf(v: unknown): string | undefined {
  const t = isRecord(v) ? (v.text ?? v.markdown) : v;
  return typeof t === 'string' && t.trim() ? t.trim() : undefined;
}

function first(records: Record<string, unknown>[], keys: readonly string[], max: number): string | undefined {
  for (const r of records)
    for (const k of keys) {
      const t = textOf(r[k]);
      if (t) return t.slice(0, max);
    }
  return undefined;
}

/** A positive line number as written: 12, "12", "L12", "line 12". */
function lineNumber(raw: unknown): number | undefined {
  const n =
    typeof raw === 'number'
      ? raw
      : typeof raw === 'string'
        ? Number(/^\s*(?:lines?\s*)?L?(\d{1,7})\s*$/i.exec(raw)?.[1])
        : NaN;
  return Number.isInteger(n) && n >= 1 ? n : undefined;
}

function range(a: number | undefined, b: number | undefined): LineRange | undefined {
  if (a === undefined) return undefined;
  const end = b ?? a;
  return { start: Math.min(a, end), end: Math.max(a, end) };
}

/**
 * Lines as written: `{start, end}`, `{from, to}`, `{old, new}` (the new side counts), `"12-14"`,
 * `"L12-L14"`, `"12–14"`, `"12, 14"`, `[12, 14]`, `12`, `"12"`.
 */
export function linesOf(raw: unknown): LineRange | undefined {
  if (Array.isArray(raw)) return range(lineNumber(raw[0]), lineNumber(raw[raw.length - 1]));
  if (isRecord(raw)) {
    if (raw.new !== undefined) return linesOf(raw.new);
    return range(
      lineNumber(raw.start ?? raw.from ?? raw.startLine ?? raw.start_line),
      lineNumber(raw.end ?? raw.to ?? raw.endLine ?? raw.end_line),
    );
  }
  if (typeof raw === 'string') {
    const m = /^\s*(?:lines?\s*)?L?(\d{1,7})\s*(?:[-–—:]|\.\.|to)\s*L?(\d{1,7})\s*$/i.exec(raw);
    if (m) return range(lineNumber(m[1]), lineNumber(m[2]));
    // A list of lines ("12, 14, 15"): the range that covers them.
    const list = raw.split(',').map(lineNumber);
    // Folded, not spread: a list of a million numbers would overflow the call stack as arguments.
    if (list.length > 1 && list.every((n) => n !== undefined))
      return list.reduce<LineRange>((r, n) => ({ start: Math.min(r.start, n), end: Math.max(r.end, n) }), {
        start: list[0] as number,
        end: list[0] as number,
      });
  }
  return range(lineNumber(raw), undefined);
}

/** The lines of a finding, in its own fields or any nested location. */
function findingLines(records: Record<string, unknown>[]): LineRange | undefined {
  for (const o of records) {
    const whole = linesOf(o.lines ?? o.line_range ?? o.lineRange ?? o.range ?? o.line_numbers);
    if (whole) return whole;
    const start = lineNumber(
      o.start ?? o.start_line ?? o.startLine ?? o.line_start ?? o.lineStart ?? o.line ?? o.line_number ?? o.lineNumber,
    );
    const found = range(
      start,
      lineNumber(o.end ?? o.end_line ?? o.endLine ?? o.line_end ?? o.lineEnd ?? o.line ?? o.line_number),
    );
    if (found) return found;
  }
  return undefined;
}

/** The finding's record and the locations nested in it, nearest first (SARIF's `locations[0]` too). */
function withLocations(r: Record<string, unknown>): Record<string, unknown>[] {
  const out = [r];
  for (let i = 0; i < out.length && out.length < 12; i++) {
    const o = out[i] as Record<string, unknown>;
    const nested = [...LOCATION_KEYS.map((k) => o[k]), Array.isArray(o.locations) ? o.locations[0] : undefined];
    for (const v of nested) if (isRecord(v)) out.push(v);
  }
  return out;
}

/** `src/db.ts:12-14`, `src/db.ts#L12-L14`: a file with its lines written into its name. */
function splitLines(file: string): { file: string; lines?: LineRange } {
  const m = /^(.+?)(?::|#L)(\d{1,7})(?:\s*[-–]\s*L?(\d{1,7}))?$/.exec(file);
  return m ? { file: m[1] as string, lines: range(Number(m[2]), m[3] ? Number(m[3]) : undefined) } : { file };
}

/**
 * The rulebook id a text names (`ADR-0001`, `decision 1`, `0001`, or a record's own slug id); of
 * several, the one listed first in `ids` (the caller lists accepted records first).
 */
function decisionInProse(text: string, ids: string[]): string | undefined {
  const keys = new Map(ids.map((id) => [decisionKey(id), id]));
  const named = new Set<string>();
  for (const m of text.matchAll(/\b(?:adr|decision|record)\s*[#:-]?\s*0*(\d{1,6})\b|\b(\d{4})\b/gi)) {
    const id = keys.get(String(Number(m[1] ?? m[2])));
    if (id) named.add(id);
  }
  const lower = text.toLowerCase();
  return ids.find((id) => named.has(id) || (!/^\d+$/.test(decisionKey(id)) && lower.includes(id.toLowerCase())));
}

/** A rule id names a decision when it is one of the rulebook's, or reads as one (`ADR-3`, `decision/0003`). */
function ruleIsDecision(rule: string, ids: string[]): boolean {
  return /^\s*(?:adr|decision|record)\b/i.test(rule) || ids.some((id) => decisionKey(id) === decisionKey(rule));
}

/**
 * A location as models write it, in its own fields or nested (Codex's `code_location`, a bot's
 * `location`, SARIF's `locations[0].physicalLocation`), a file named `src/db.ts:12-14` included.
 */
export function locationOf(raw: Record<string, unknown>): { file?: string; lines?: LineRange } {
  const records = withLocations(raw);
  const named = first(records, FILE_KEYS, 1_000);
  const split = named === undefined ? undefined : splitLines(named);
  const lines = findingLines(records) ?? split?.lines;
  return { ...(split ? { file: split.file } : {}), ...(lines ? { lines } : {}) };
}

/** One finding, or what it lacks, from a model's item (`inherited`: the file of the group it is in). */
function findingOf(raw: unknown, inherited: string | undefined, ctx: ReviewReadContext): Finding | string {
  if (!isRecord(raw)) return 'is not an object with a file, lines and a claim';
  const records = withLocations(raw);
  const at = locationOf(raw);
  const inGroup = inherited === undefined ? undefined : splitLines(inherited);
  // No file named, and one file changed: that is the file (the reviewer saw nothing else).
  const file0 = at.file ?? inGroup?.file ?? (ctx.changed.length === 1 ? ctx.changed[0]?.file : undefined);
  if (!file0) return 'names no file';
  const lines = at.lines ?? inGroup?.lines;
  if (!lines) return 'gives no line';
  const title = textOf(raw.title ?? raw.summary ?? raw.name);
  const body = first(records, CLAIM_KEYS, 2_000);
  const claim = (
    body && title && !body.includes(title) ? `${title.replace(/^[\s*_]*\[?\s*p[0-4]\s*\]?[\s*_:-]+/i, '')}: ${body}` : (body ?? title)
  )?.slice(0, 2_000);
  if (!claim) return 'gives no claim';
  const rule = first([raw], RULE_KEYS, 200);
  const decision =
    first([raw], DECISION_KEYS, 200) ??
    (rule && ruleIsDecision(rule, ctx.decisions) ? rule : undefined) ??
    decisionInProse(`${title ?? ''} ${claim}`, ctx.decisions);
  const defect = (first([raw], DEFECT_KEYS, 100) ?? (rule && !decision ? rule : undefined))?.toLowerCase();
  const quote = first(records, QUOTE_KEYS, 4_000);
  const file = changedFileOf(file0, ctx, ctx.root)?.file ?? repoRelative(file0, ctx.root);
  return {
    file,
    lines,
    severity: severityOf(raw, [title, claim]).severity,
    ...(decision ? { decision } : {}),
    ...(defect && !decision ? { defect } : {}),
    claim,
    ...(quote ? { quote } : {}),
  };
}

/** An item that may be a finding: an object, or a string (a finding written as a sentence, unreadable). */
type Item = { raw: unknown; file?: string };

/** A path-like key of a list grouped by file (`{"src/a.ts": [...]}`): it has a slash or an extension. */
const PATHLIKE = /^[^\s{}[\]]{1,1000}$/;
const looksLikePath = (k: string) => PATHLIKE.test(k) && (k.includes('/') || k.includes('\\') || /\.\w{1,8}$/.test(k));

/** A group of findings on one file (`{file, findings: [...]}`): no claim of its own, a list of objects. */
function groupList(r: Record<string, unknown>): unknown[] | undefined {
  if (CLAIM_KEYS.some((k) => typeof r[k] === 'string')) return undefined;
  for (const k of LIST_KEYS) {
    const v = r[k];
    if (Array.isArray(v) && v.every(isRecord)) return v;
  }
  return undefined;
}

/**
 * The findings lists in a value, all of them (lists side by side, groups by file, nested wrappers),
 * into `out`; true when the value holds a findings list at all, an empty one included.
 */
function collect(v: unknown, file: string | undefined, out: Item[], depth: number): boolean {
  if (depth > 6) return false;
  if (Array.isArray(v)) {
    for (const el of v) {
      const group = isRecord(el) ? groupList(el) : undefined;
      if (group && isRecord(el)) collect(group, first([el], FILE_KEYS, 1_000) ?? file, out, depth + 1);
      else out.push({ raw: el, ...(file ? { file } : {}) });
    }
    return true;
  }
  if (!isRecord(v)) return false;
  let found = false;
  const own = first([v], FILE_KEYS, 1_000) ?? file;
  for (const k of LIST_KEYS) {
    const list = v[k];
    if (Array.isArray(list)) found = collect(list, own, out, depth + 1) || found;
    else if (isRecord(list) && (k === 'files' || Object.keys(list).some(looksLikePath)))
      found = collect(list, own, out, depth + 1) || found;
  }
  for (const [k, list] of Object.entries(v))
    if (looksLikePath(k) && Array.isArray(list) && list.every(isRecord))
      found = collect(list, k, out, depth + 1) || found;
  if (found) return true;
  // A wrapper (`{"review": {"findings": [...]}}`): its values, one level down.
  for (const inner of Object.values(v)) if (isRecord(inner) && collect(inner, own, out, depth + 1)) return true;
  return false;
}

/** One finding written alone, without a list around it: a file or location, and a claim. */
function isLoneFinding(v: unknown): boolean {
  if (!isRecord(v)) return false;
  const records = withLocations(v);
  return first(records, FILE_KEYS, 1_000) !== undefined && first(records, CLAIM_KEYS, 2_000) !== undefined;
}

/**
 * A value as a findings list: an empty array marked as the answer (a bare `[]`), an array or an
 * object holding finding-like items (see `collect`), or one finding written alone.
 */
function listOf(s: JsonSpan, out: Item[]): boolean {
  if (Array.isArray(s.value) && s.value.length === 0) return s.marked;
  const items: Item[] = [];
  if (!collect(s.value, undefined, items, 0)) {
    if (!isLoneFinding(s.value)) return false;
    items.push({ raw: s.value });
  }
  if (Array.isArray(s.value) && !items.some((i) => isRecord(i.raw))) return false;
  out.push(...items);
  return true;
}

/** "LGTM", "No issues found.", "Looks good to me": a review that says it found nothing, with no list. */
const CLEAN =
  /^(?:lgtm|(?:(?:the|this) (?:change|diff|patch|pr) |everything |it )?looks (?:good|fine|correct)(?: to me)?|(?:i )?(?:found )?no (?:issues|findings|problems|defects|violations|concerns|bugs)(?: (?:were |have been )?(?:found|detected|identified|to report))?|(?:i )?(?:didn't|did not|couldn't|could not) find any (?:major |significant )?(?:issues|problems|bugs|findings)|nothing to report|no changes? (?:needed|required))$/;
/** Words that take a "looks good" back: a review that says LGTM and then names a problem is no clean one. */
const BUT = /\b(?:but|however|except|although|though|should|must|consider|line \d|bug|breaks?|violat|risk)/i;

export function saysClean(reply: string): boolean {
  const plain = reply.replace(/[*_`#>~]/g, '').trim();
  if (plain.length === 0 || plain.length > 300) return false;
  const sentences = plain
    .split(/[.!:;,\n]+/)
    .map((x) =>
      x
        .trim()
        .toLowerCase()
        .replace(/[^\w\s']+$/u, '')
        .trim(),
    )
    .filter(Boolean);
  const clean = sentences.filter((x) => CLEAN.test(x));
  return clean.length > 0 && !sentences.some((x) => !CLEAN.test(x) && BUT.test(x));
}

/**
 * A reply cut off inside its list: the text up to the last of its final closing brackets that
 * leaves a readable list (at most 20 tried from the end, each a linear pass).
 */
function beforeTheCut(s: JsonSpan, out: Item[]): boolean {
  let end = s.text.length;
  for (let tries = 0; tries < 20; tries++) {
    end = Math.max(s.text.lastIndexOf('}', end - 1), s.text.lastIndexOf(']', end - 1));
    if (end < 0) return false;
    const mended = repairJson(s.text.slice(0, end + 1));
    if (mended === undefined) continue;
    let value: unknown;
    try {
      value = JSON.parse(mended) as unknown;
    } catch {
      continue;
    }
    if (listOf({ ...s, value, marked: false }, out)) return true;
  }
  return false;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * A reviewer's reply read: the last value that holds a findings list (a draft may come first),
 * every finding in it; `partial` when the reply was cut off inside the list (`cut`: the server
 * said the token cap ended it, or the list's brackets are still open) or an item could not be
 * read; `none` when it holds no list and does not say the change is clean.
 */
export function readFindings(reply: string, ctx: ReviewReadContext, o: { cut?: boolean } = {}): FindingsRead {
  const spans = jsonSpans(reply);
  let items: Item[] = [];
  let chosen: JsonSpan | undefined;
  for (const s of spans) {
    const these: Item[] = [];
    if (s.value !== undefined && s.closed && listOf(s, these)) [items, chosen] = [these, s];
  }
  // An open list at the end (a reply cut off by the cap): what was complete before the cut.
  const last = spans.at(-1);
  let cut = false;
  if (last && !last.closed && (!chosen || last.at > chosen.at)) {
    const these: Item[] = [];
    if (beforeTheCut(last, these)) [items, chosen, cut] = [these, last, true];
  }
  if (!chosen) {
    if (saysClean(reply)) return { read: 'complete', findings: [] };
    return {
      read: 'none',
      why: o.cut ? 'it was cut off by the token cap before any findings list' : 'it holds no findings list',
    };
  }
  const findings: Finding[] = [];
  const unread: string[] = [];
  for (const [i, item] of items.entries()) {
    const f = findingOf(item.raw, item.file, ctx);
    if (typeof f === 'string') unread.push(`finding ${i + 1} ${f}`);
    else findings.push(f);
  }
  const kept = findings.slice(0, MAX_FINDINGS_PER_REVIEWER);
  const why = [
    ...(cut ? [`it was cut off by the token cap after ${plural(items.length, 'finding')}`] : []),
    ...unread.slice(0, 3),
    ...(unread.length > 3 ? [`${unread.length - 3} more could not be read`] : []),
  ];
  return why.length ? { read: 'partial', findings: kept, why: why.join('; ') } : { read: 'complete', findings: kept };
}
