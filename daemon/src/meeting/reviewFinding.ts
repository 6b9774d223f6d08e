/**
 * One finding from a model's item, with the names and shapes models give its fields: the
 * location in the item's own fields or nested (Codex's `code_location`, a bot's `location`,
 * SARIF's `locations[0].physicalLocation`), lines in any of the usual forms, the claim under any
 * of a dozen names, the decision as a field, a rule id or only in the prose, the severity by its
 * own scale (reviewSeverity.ts). Also read by the ballot's evidence (voteFields.ts).
 */
import type { Finding, LineRange } from '@roundtable/protocol';
import { isRecord } from '@roundtable/protocol';
import { changedFileOf, decisionKey, repoRelative } from '../review/findingPlace';
import { severityOf } from './reviewSeverity';

/** What a reply is read against: the change's files (as named and as shown), the rulebook's ids, the workspace root. */
export interface ReviewReadContext {
  changed: { file: string; shown?: string }[];
  /** Every record's id in the rulebook: a decision named only in a claim's prose is found by them. */
  decisions: string[];
  /** The meeting's workspace folder: absolute paths inside it are made relative to it. */
  root?: string;
}

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
    const whole = linesOf(o.lines ?? o.line_range ?? o.lineRange ?? o.range ?? o.line_numbers ?? o.lineNumbers);
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

/** The finding's record and the locations nested in it, nearest first (`locations[0]`, `affected_lines[0]` too). */
function withLocations(r: Record<string, unknown>): Record<string, unknown>[] {
  const out = [r];
  for (let i = 0; i < out.length && out.length < 12; i++) {
    const o = out[i] as Record<string, unknown>;
    // SARIF's `locations` and Gito's `affected_lines` are lists: the first place is the finding's.
    const listed = [o.locations, o.affected_lines].map((l) => (Array.isArray(l) ? (l[0] as unknown) : undefined));
    const nested = [...LOCATION_KEYS.map((k) => o[k]), ...listed];
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
  // `"where": "pyproject.toml:3-5"`, `"files": ["src/lib.rs:3881", …]` (the first place listed):
  // read only when written as a path, never prose ("the database module" names no file).
  const place = (v: unknown) => (typeof v === 'string' && /^\S{1,1000}$/.test(v.trim()) ? v.trim() : undefined);
  const named =
    first(records, FILE_KEYS, 1_000) ??
    place(raw.where) ??
    (Array.isArray(raw.files) ? place(raw.files[0]) : undefined);
  const split = named === undefined ? undefined : splitLines(named);
  const lines = findingLines(records) ?? split?.lines;
  return { ...(split ? { file: split.file } : {}), ...(lines ? { lines } : {}) };
}

/**
 * One finding, or what it lacks, from a model's item (`inherited`: the file of the group it is in;
 * `outOfTen`: the reply's severity numbers are out of 10, see reviewSeverity.ts).
 */
export function findingOf(
  raw: unknown,
  inherited: string | undefined,
  ctx: ReviewReadContext,
  outOfTen = false,
): Finding | string {
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
    body && title && !body.includes(title)
      ? `${title.replace(/^[\s*_]*\[?\s*p[0-4]\s*\]?[\s*_:-]+/i, '')}: ${body}`
      : (body ?? title)
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
  const sev = severityOf(raw, [title, claim], outOfTen);
  return {
    file,
    lines,
    severity: sev.severity,
    ...(sev.written === undefined ? {} : { severityWritten: sev.written }),
    ...(decision ? { decision } : {}),
    ...(defect && !decision ? { defect } : {}),
    claim,
    ...(quote ? { quote } : {}),
  };
}

/** One finding written alone, without a list around it: a file or location, and a claim. */
export function isLoneFinding(v: unknown): boolean {
  if (!isRecord(v)) return false;
  const records = withLocations(v);
  return first(records, FILE_KEYS, 1_000) !== undefined && first(records, CLAIM_KEYS, 2_000) !== undefined;
}

/** The file an object names in its own fields (a group's file, in a list grouped by file). */
export function fileNamed(r: Record<string, unknown>): string | undefined {
  return first([r], FILE_KEYS, 1_000);
}

/** True when an object has a claim of its own (a finding, never a group of findings). */
export function hasClaim(r: Record<string, unknown>): boolean {
  return CLAIM_KEYS.some((k) => typeof r[k] === 'string');
}
