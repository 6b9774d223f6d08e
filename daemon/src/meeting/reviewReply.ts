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
import type { Finding } from '@roundtable/protocol';
import { SEVERITIES, isRecord } from '@roundtable/protocol';
import { jsonSpans, repairJson, type JsonSpan } from './jsonInReply';
import { fileNamed, findingOf, hasClaim, isLoneFinding, type ReviewReadContext } from './reviewFinding';
import { readsOutOfTen } from './reviewSeverity';

/**
 * More findings than this from one reviewer are not put forward: a review that lists everything
 * says nothing. Over it, the most severe are kept (`mostSevere`), so thirty nits never push out a
 * breach written last.
 */
export const MAX_FINDINGS_PER_REVIEWER = 30;

/** At most `max` findings, the most severe first to stay, each kept where the reviewer wrote it. */
function mostSevere(findings: Finding[], max: number): Finding[] {
  if (findings.length <= max) return findings;
  const rank = (f: Finding) => SEVERITIES.indexOf(f.severity);
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
    .slice(0, max)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.f);
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
  // kaizen's `{"code_quality_percentage": …, "review": [...]}` (its recorded replies, review/findings.json).
  'review',
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
/** An item that may be a finding: an object, or a string (a finding written as a sentence, unreadable). */
type Item = { raw: unknown; file?: string };

/** A path-like key of a list grouped by file (`{"src/a.ts": [...]}`): it has a slash or an extension. */
const PATHLIKE = /^[^\s{}[\]]{1,1000}$/;
const looksLikePath = (k: string) => PATHLIKE.test(k) && (k.includes('/') || k.includes('\\') || /\.\w{1,8}$/.test(k));

/** A group of findings on one file (`{file, findings: [...]}`): no claim of its own, a list of objects. */
function groupList(r: Record<string, unknown>): unknown[] | undefined {
  if (hasClaim(r)) return undefined;
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
      if (group && isRecord(el)) collect(group, fileNamed(el) ?? file, out, depth + 1);
      else out.push({ raw: el, ...(file ? { file } : {}) });
    }
    return true;
  }
  if (!isRecord(v)) return false;
  let found = false;
  const own = fileNamed(v) ?? file;
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

function saysClean(reply: string): boolean {
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
  const outOfTen = readsOutOfTen(items.map((i) => i.raw));
  for (const [i, item] of items.entries()) {
    const f = findingOf(item.raw, item.file, ctx, outOfTen);
    if (typeof f === 'string') unread.push(`finding ${i + 1} ${f}`);
    else findings.push(f);
  }
  const kept = mostSevere(findings, MAX_FINDINGS_PER_REVIEWER);
  const why = [
    ...(cut
      ? [
          o.cut
            ? `it was cut off by the token cap after ${plural(items.length, 'finding')}`
            : `it was cut off (its list is never closed) after ${plural(items.length, 'finding')}`,
        ]
      : []),
    ...unread.slice(0, 3),
    ...(unread.length > 3 ? [`${unread.length - 3} more could not be read`] : []),
  ];
  return why.length ? { read: 'partial', findings: kept, why: why.join('; ') } : { read: 'complete', findings: kept };
}
