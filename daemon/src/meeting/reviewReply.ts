/**
 * A reviewer's findings, read from whatever a model wrote: `{"findings": [...]}` bare, fenced, with
 * prose around it, mended when loose (jsonInReply.ts), or a bare list; each finding read with the
 * names and shapes review bots' models use (`path`/`file_path`, `line`/`start_line`/`"12-14"`/
 * `[12, 14]`, severity `High`/`CRITICAL`, `description`/`comment`/`body`). A finding without a
 * file, a line or a claim cannot be checked against the change and is left out.
 */
import type { Finding, LineRange, Severity } from '@roundtable/protocol';
import { isRecord } from '@roundtable/protocol';
import { extractJson, jsonValuesIn } from './jsonInReply';

/** More findings than this from one reviewer are not read: a review that lists everything says nothing. */
export const MAX_FINDINGS_PER_REVIEWER = 30;

const LIST_KEYS = ['findings', 'issues', 'comments', 'suggestions', 'problems', 'reviews'] as const;

/** Severity words as models write them, mapped to ours (case and surrounding spaces ignored). */
const SEVERITY_WORDS = new Map<string, Severity>([
  ...['blocking', 'blocker', 'critical', 'error', 'must-fix', 'must fix', 'high-severity'].map(
    (w) => [w, 'blocking'] as const,
  ),
  ...['major', 'high', 'important', 'serious'].map((w) => [w, 'major'] as const),
  ...['minor', 'medium', 'moderate', 'warning'].map((w) => [w, 'minor'] as const),
  ...['note', 'nit', 'nitpick', 'info', 'low', 'suggestion', 'style', 'trivial'].map((w) => [w, 'note'] as const),
]);

function severityOf(raw: unknown): Severity {
  const word = typeof raw === 'string' ? raw.trim().toLowerCase().replace(/_/g, ' ') : '';
  // A finding without a readable severity is minor: it cannot fail a review at the default bar.
  return SEVERITY_WORDS.get(word) ?? SEVERITY_WORDS.get(word.split(/[\s:(-]/)[0] ?? '') ?? 'minor';
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

/** Lines as written: `{start, end}`, `"12-14"`, `"L12-L14"`, `"12–14"`, `"12, 14"`, `[12, 14]`, `12`, `"12"`. */
export function linesOf(raw: unknown): LineRange | undefined {
  if (Array.isArray(raw)) return range(lineNumber(raw[0]), lineNumber(raw[raw.length - 1]));
  if (isRecord(raw)) return range(lineNumber(raw.start ?? raw.from), lineNumber(raw.end ?? raw.to));
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

function firstString(r: Record<string, unknown>, keys: readonly string[], max: number): string | undefined {
  for (const k of keys) {
    const v = r[k];
    if (typeof v === 'string' && v.trim()) return v.trim().slice(0, max);
  }
  return undefined;
}

/** The lines of a finding, wherever a model put them (its own fields or a nested `location`). */
function findingLines(r: Record<string, unknown>): LineRange | undefined {
  const loc = isRecord(r.location) ? r.location : {};
  for (const o of [r, loc]) {
    const whole = linesOf(o.lines ?? o.line_range ?? o.range);
    if (whole) return whole;
    // code-warden's shape: `start_line` for a range's first line, `line_number` for its last.
    const start = lineNumber(o.start ?? o.start_line ?? o.line_start ?? o.startLine ?? o.line ?? o.line_number);
    const found = range(start, lineNumber(o.end ?? o.end_line ?? o.line_end ?? o.endLine ?? o.line ?? o.line_number));
    if (found) return found;
  }
  return undefined;
}

/** A path as models write it: `./src/db.ts`, `b/src/db.ts` (the diff's new side), `src\db.ts`. */
function pathOf(raw: string): string {
  return raw
    .replace(/\\/g, '/')
    .replace(/^(?:\.\/)+/, '')
    .replace(/^b\//, '');
}

/** One finding from a model's object, or undefined when it names no file, line or claim. */
export function findingOf(raw: unknown): Finding | undefined {
  if (!isRecord(raw)) return undefined;
  const loc = isRecord(raw.location) ? raw.location : {};
  const file =
    firstString(raw, ['file', 'path', 'file_path', 'filePath', 'filename'], 1_000) ??
    firstString(loc, ['file', 'path', 'file_path'], 1_000);
  const lines = findingLines(raw);
  const claim = firstString(
    raw,
    ['claim', 'description', 'comment', 'body', 'message', 'issue', 'explanation', 'title'],
    2_000,
  );
  if (!file || !lines || !claim) return undefined;
  const decision = firstString(raw, ['decision', 'decision_id', 'decisionId', 'adr', 'record', 'rule'], 200);
  const defect = firstString(raw, ['defect', 'defect_class', 'category', 'class', 'type'], 100)?.toLowerCase();
  const quote = firstString(raw, ['quote', 'code', 'snippet', 'diff', 'evidence'], 4_000);
  return {
    file: pathOf(file),
    lines,
    severity: severityOf(raw.severity ?? raw.level ?? raw.priority),
    ...(decision ? { decision } : {}),
    ...(defect && !decision ? { defect } : {}),
    claim,
    ...(quote ? { quote } : {}),
  };
}

function listOf(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v as unknown[];
  if (!isRecord(v)) return undefined;
  for (const k of LIST_KEYS) if (Array.isArray(v[k])) return v[k] as unknown[];
  return undefined;
}

/**
 * A reviewer's findings: the last object holding a findings list (`findings`, `issues`,
 * `comments`…; a draft or a tool call may come first), else the last bare list of findings.
 * An empty list is a clean review; undefined means the reply holds no findings list at all.
 */
export function parseFindings(reply: string): Finding[] | undefined {
  const json = extractJson(reply, (r) => LIST_KEYS.some((k) => Array.isArray(r[k])));
  const bare = jsonValuesIn(reply, '[')
    .filter((v): v is unknown[] => Array.isArray(v) && v.some((x) => findingOf(x) !== undefined))
    .at(-1);
  const list = listOf(json) ?? bare;
  if (!list) return undefined;
  return list
    .map(findingOf)
    .filter((f): f is Finding => f !== undefined)
    .slice(0, MAX_FINDINGS_PER_REVIEWER);
}
