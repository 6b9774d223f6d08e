/**
 * One decision record read as a team writes it, in any of the three common formats:
 *
 *  - MADR 3/4 with YAML front matter (`status`, `date`, `deciders`/`decision-makers`, `scope`,
 *    `supersedes`, `superseded-by`), https://adr.github.io/madr/;
 *  - MADR 2 without front matter: `* Status: accepted` lines under the title (and adr-tools'
 *    `* Supercedes [..](..)` link lines);
 *  - Michael Nygard's format as adr-tools writes it: a `## Status` section whose first line is the
 *    status (`Accepted`, `Superseded by [2. …](0002-….md)`), with `Supersedes …` lines below.
 *
 * Front matter wins over the status section, which wins over a `Status:` line. Lines inside fenced
 * code blocks are never read as fields (MADR's own records show front matter examples in fences).
 * Every line is looked at once, and only its first `MAX_LINE_CHARS` characters: linear in the size
 * of the record whatever it holds.
 */
import { scopeGlobCheck, visibleText, type DecisionStatus } from '@roundtable/protocol';
import type { Redaction } from '../gate/content';
import { frontList, frontString, readFrontMatter } from './frontMatter';

/** A supersession link as the record writes it: a Markdown link's target and text, or a bare reference (`ADR-0005`). */
export interface RecordLink {
  kind: 'supersedes' | 'superseded-by';
  /** The link target (a file name or path), when the reference is a Markdown link. */
  target?: string;
  /** The link text or the bare reference. */
  label: string;
}

export interface DecisionRecord {
  /** Workspace-relative, `/`-separated. */
  path: string;
  /** One line, at most 200 characters, bidi controls shown as escapes. */
  title: string;
  /** The record's number, from its file name (`0005-…`, `ADR015-…`) or its title (`5. …`). */
  number?: number;
  /** The status as written (one line). */
  status?: string;
  /** The status normalised; `superseded` also when an accepted record says it supersedes this one. */
  state: DecisionStatus;
  date?: string;
  deciders: string[];
  /** Workspace-relative globs of the paths the record governs (`scope:`). */
  scope: string[];
  /** Supersession links as written; the loader resolves them into `supersedes`/`supersededBy`. */
  links: RecordLink[];
  /** Paths of the records this one replaces / that replace it (both ways, resolved by the loader). */
  supersedes: string[];
  supersededBy: string[];
  text: string;
  /** What could not be read as written (an unclosed front matter, an unusable scope glob). */
  notes: string[];
  /** sha256 of `text` as the workspace gate let it through, and what it redacted. */
  sha256?: string;
  redacted?: Redaction[];
}

const MAX_LINE_CHARS = 4_000;
const MAX_FIELD_CHARS = 1_000;
const MAX_LIST = 50;

/** A field line: `Status: x`, `* Status: x`, `- **Status:** x`, `**Deciders**: a, b`. */
const FIELD =
  /^\s{0,3}(?:[*+-]\s+)?(?:\*\*|__)?(status|date|deciders|decision[- ]makers|scope)(?:\*\*|__)?\s*:(?:\*\*|__)?\s*(.*)$/i;
/** A supersession line: `Supersedes [1. …](…)`, `* Superceded by [ADR-0005](…)`, `- Supersedes: […](…)`. */
const LINK_LINE =
  /^\s{0,3}(?:[*+-]\s+)?(?:\*\*|__)?(super[sc]edes|super[sc]eded[- ]by)(?:\*\*|__)?\s*:?(?:\*\*|__)?\s*(.+)$/i;
const STATUS_HEADING = /^#{2,6}\s+status\s*#*\s*$/i;
const HEADING = /^#{1,6}\s/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const MD_LINK = /\[([^\]\n]{0,300})\]\(([^)\n]{1,500})\)/g;

/** Text of one field value: HTML comments dropped, one visible line, capped. */
const clean = (v: string): string =>
  visibleText(v.replace(/<!--.*?(-->|$)/g, ''))
    .trim()
    .slice(0, MAX_FIELD_CHARS);

/** A link target as a file name: angle brackets, a fragment and Hugo's `{{< ref "x.md" >}}` wrapper removed. */
function linkTarget(raw: string): string {
  const quoted = /"([^"]{1,300})"/.exec(raw)?.[1];
  const t = (quoted ?? raw.trim().split(/\s+/)[0] ?? '').replace(/^<|>$/g, '').replace(/#.*$/, '');
  try {
    return decodeURI(t);
  } catch {
    return t;
  }
}

/** The references in a supersession text: its Markdown links, or the text itself (`ADR-0123`, `5. Use X`). */
export function linksIn(kind: RecordLink['kind'], text: string): RecordLink[] {
  const t = text.slice(0, MAX_FIELD_CHARS);
  const out: RecordLink[] = [];
  for (const m of t.matchAll(MD_LINK)) {
    const target = linkTarget(m[2] as string);
    if (target) out.push({ kind, target, label: clean(m[1] as string) });
  }
  const bare = clean(t.replace(/^[\s:,-]+/, ''));
  // A bare file name (`superseded-by: 0009-use-sqlite.md`) is a target too.
  if (out.length === 0 && bare)
    out.push(/^[\w./-]+\.md$/i.test(bare) ? { kind, target: bare, label: bare } : { kind, label: bare });
  return out;
}

const STATUS_WORDS: [DecisionStatus, RegExp][] = [
  ['accepted', /^(accepted|approved|adopted|agreed|decided|done|implemented|active|in force)\b/],
  [
    'proposed',
    /^(proposed|proposal|draft|drafted|open|pending|under review|in review|in progress|discussion|wip|rfc|suggested)\b/,
  ],
  ['rejected', /^(rejected|declined|refused|dead|abandoned|withdrawn|not accepted)\b/],
  ['deprecated', /^(deprecated|obsolete|retired|outdated|archived)\b/],
  ['superseded', /^(superseded|superceded|replaced)\b/],
];

/** A status as written, normalised: its first word decides; "superseded by" anywhere in it wins. */
export function normalizeStatus(status: string | undefined): DecisionStatus {
  if (!status) return 'unknown';
  const s = status.toLowerCase();
  if (/super[sc]eded\b|replaced by/.test(s)) return 'superseded';
  const word = s.replace(/^[^a-z]+/, '');
  return STATUS_WORDS.find(([, re]) => re.test(word))?.[0] ?? 'unknown';
}

/** The number in a file name (`0005-x.md`, `ADR015-x.md`, `adr-0007.md`) or a title (`5. X`, `ADR-0007: X`). */
function numberOf(relPath: string, title: string): number | undefined {
  const base = relPath.split('/').pop() ?? '';
  const m = /^(?:adr[-_ ]?)?(\d{1,6})(?=[-_. ]|$)/i.exec(base) ?? /^(?:adr[-_ #]?)?(\d{1,6})(?=[.:)\s-])/i.exec(title);
  return m ? Number(m[1]) : undefined;
}

const splitList = (v: string): string[] => v.split(',').map(clean).filter(Boolean).slice(0, MAX_LIST);

/** What the body says, field by field, in one pass (fenced blocks skipped). */
interface BodyFields {
  title?: string;
  fields: Map<string, string>;
  section?: string;
  links: RecordLink[];
}

function scanBody(lines: readonly string[], from: number): BodyFields {
  const out: BodyFields = { fields: new Map(), links: [] };
  let fence = '';
  let inStatus = false;
  for (let i = from; i < lines.length; i++) {
    const line = (lines[i] as string).slice(0, MAX_LINE_CHARS);
    const f = FENCE.exec(line)?.[1];
    if (fence) {
      if (f && f[0] === fence[0] && f.length >= fence.length) fence = '';
      continue;
    }
    if (f) {
      fence = f;
      continue;
    }
    if (HEADING.test(line)) {
      inStatus = STATUS_HEADING.test(line);
      if (out.title === undefined && /^#\s+\S/.test(line)) out.title = line.replace(/^#\s+/, '').trim();
      continue;
    }
    const link = LINK_LINE.exec(line);
    if (link) {
      const superseded = /by$/i.test(link[1] as string);
      out.links.push(...linksIn(superseded ? 'superseded-by' : 'supersedes', link[2] as string));
    }
    if (inStatus && out.section === undefined && line.trim() !== '' && !/^\s*<!--/.test(line))
      out.section = clean(line.replace(/^\s*[*+-]\s+/, ''));
    const field = FIELD.exec(line);
    if (field) {
      const name = (field[1] as string).toLowerCase().replace(' ', '-');
      const value = clean(field[2] as string);
      if (value && !out.fields.has(name)) out.fields.set(name, value);
    }
  }
  return out;
}

/** Title, number, status, date, deciders, scope and supersession links of a MADR or Nygard record. */
export function parseRecord(relPath: string, text: string): DecisionRecord {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n?|\n/);
  const fm = readFrontMatter(lines);
  const scanned = scanBody(lines, fm.end + 1);
  // A front matter never closed: the title is still shown, nothing else is read as a field.
  const body: BodyFields = fm.unclosed ? { title: scanned.title, fields: new Map(), links: [] } : scanned;
  const notes = [...fm.notes];
  // One line, at most 200 characters, shown as it is (bidi controls as escapes): a title is a
  // label, not a place to carry a payload.
  const title = visibleText(body.title ?? frontString(fm, 'title') ?? relPath).slice(0, 200);
  // A `## Status` section is the status; a `Status:` line elsewhere (prose) only when there is none.
  const status = frontString(fm, 'status') ?? body.section ?? body.fields.get('status');
  const date = frontString(fm, 'date') ?? body.fields.get('date');
  const links = [...body.links];
  const frontKeys = { supersedes: ['supersedes'], 'superseded-by': ['superseded-by', 'superseded_by', 'supersededby'] };
  for (const kind of ['supersedes', 'superseded-by'] as const)
    for (const v of frontKeys[kind].flatMap((k) => frontList(fm, k))) links.push(...linksIn(kind, v));
  // "superseded by [x](…)" in the status itself is the most common way to say it.
  const byInStatus = status ? /super[sc]eded[- ]by\b(.*)$/i.exec(status) : null;
  if (byInStatus && !links.some((l) => l.kind === 'superseded-by'))
    links.push(...linksIn('superseded-by', byInStatus[1] as string));
  const frontDeciders = [...frontList(fm, 'deciders'), ...frontList(fm, 'decision-makers')];
  const deciders = (
    frontDeciders.length > 0
      ? frontDeciders.flatMap(splitList)
      : splitList(body.fields.get('deciders') ?? body.fields.get('decision-makers') ?? '')
  ).slice(0, MAX_LIST);
  const rawScope = fm.fields.has('scope') ? frontList(fm, 'scope') : splitList(body.fields.get('scope') ?? '');
  const scope: string[] = [];
  for (const raw of rawScope.slice(0, MAX_LIST)) {
    const g = scopeGlobCheck(raw);
    if ('glob' in g) scope.push(g.glob);
    else notes.push(`scope "${visibleText(raw).slice(0, 60)}" ${g.why}; left out`);
  }
  const state = normalizeStatus(status);
  const number = numberOf(relPath, title);
  return {
    path: relPath,
    title,
    ...(number !== undefined ? { number } : {}),
    ...(status ? { status: status.slice(0, 200) } : {}),
    state: state === 'superseded' || !links.some((l) => l.kind === 'superseded-by') ? state : 'superseded',
    ...(date ? { date: date.slice(0, 40) } : {}),
    deciders,
    scope,
    links,
    supersedes: [],
    supersededBy: [],
    text,
    notes,
  };
}
