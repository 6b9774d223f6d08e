/**
 * One decision record read as a team writes it:
 *
 *  - MADR 3/4 with YAML front matter (`status`, `date`, `deciders`/`decision-makers`, `scope`,
 *    `supersedes`, `superseded-by`), https://adr.github.io/madr/;
 *  - MADR 2 and log4brains without front matter: `* Status: accepted` lines under the title (and
 *    adr-tools' `* Supercedes [..](..)` link lines), `**Status:** …`, `> Status: …`, a field in a
 *    line of several (`Date: … · Status: accepted`), a table row (`| Status | Accepted |`);
 *  - Michael Nygard's format as adr-tools writes it: a `## Status` section whose first line is the
 *    status (`Accepted`, `Superseded by [2. …](0002-….md)`, the checked box of a task list), with
 *    `Supersedes …` lines below; or the status in the heading itself (`## Status: Accepted`);
 *  - in English, French, German, Spanish, Portuguese or Italian (`Statut : accepté`,
 *    `## Estado`, `Status: Angenommen`; the words are in ./status.ts).
 *
 * Front matter wins over the status heading or section, which wins over a `Status:` line. Lines
 * inside fenced code blocks are never read as fields (MADR's own records show front matter examples
 * in fences). Every line is looked at once, and only its first `MAX_LINE_CHARS` characters: linear
 * in the size of the record whatever it holds.
 */
import * as path from 'node:path';
import {
  DATED_NAME,
  DEFAULT_UNSTATUSED,
  foldDiacritics,
  nameNumber,
  scopeGlobCheck,
  visibleText,
  type DecisionStatus,
  type Unstatused,
} from '@roundtable/protocol';
import type { Redaction } from '../gate/content';
import { frontList, frontString, readFrontMatter, type FrontMatter } from './frontMatter';
import { DATE_NAMES, DECIDER_NAMES, STATUS_NAMES, SUPERSEDED_BY_TEXT, normalizeStatus } from './status';

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
  /** No status is written anywhere in the record: `state` is what `ReadOptions.unstatused` made of it. */
  unstatused?: true;
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

/** How a folder's records are read. */
export interface ReadOptions {
  /** A record with no status: a rule (`accepted`, the default) or not (`ignore`). */
  unstatused?: Unstatused;
  /** The decisions folder (workspace-relative): a record filed in an archive folder under it is not in force. */
  folder?: string;
}

/** What the text shows about whether it is a record at all (./recordRule.ts decides). */
export interface RecordShape {
  /** The file name starts with a date (`20201016-…`, `2024-05-16-…`, a timestamp). */
  dated: boolean;
  /** A heading names the decision (`## Decision`, `## Decision Outcome`, `## Décision`, `## Entscheidung`…). */
  decisionSection: boolean;
  /** A status is written somewhere, even one that is not recognised. */
  hasStatus: boolean;
}

const MAX_LINE_CHARS = 4_000;
const MAX_FIELD_CHARS = 1_000;
const MAX_LIST = 50;

const EMPH = '(?:\\*\\*|__)?';
/** A field line (or one `·`-separated part of one): `Status: x`, `* Status: x`, `- **Estado:** x`, `> Statut : x`. */
const FIELD = new RegExp(
  `^\\s{0,3}(?:>\\s*)?(?:[*+-]\\s+)?${EMPH}(${STATUS_NAMES}|${DATE_NAMES}|${DECIDER_NAMES}|scope)${EMPH}\\s*:${EMPH}\\s*(.*)$`,
  'i',
);
/** A supersession line: `Supersedes [1. …](…)`, `* Superceded by [ADR-0005](…)`, `- Supersedes: […](…)`. */
const LINK_LINE =
  /^\s{0,3}(?:[*+-]\s+)?(?:\*\*|__)?(super[sc]edes|super[sc]eded[- ]by)(?:\*\*|__)?\s*(?::\s*)?(?:(?:\*\*|__)\s*)?(.+)$/i;
/** The same in French, Spanish and Portuguese, when a link or an ADR number follows (not a sentence of prose). */
const LINK_LINE_OTHER =
  /^\s{0,3}(?:[*+-]\s+)?(?:\*\*|__)?(remplace|reemplaza(?: a)?|sustituye(?: a)?|substitui)(?:\*\*|__)?\s*(?::\s*)?(?:(?:\*\*|__)\s*)?((?:\[|adr[-\s]?\d|\d{3,}).*)$/i;
/** A heading's text that starts with a status name: the name, then the rest (`: Accepted`, ``, `:`). */
const STATUS_HEADING = new RegExp(`^(?:\\*\\*|__|\\*|_)?(?:${STATUS_NAMES})(?![\\p{L}\\p{N}])(.*)$`, 'iu');
const HEADING = /^#{1,6}\s/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const MD_LINK = /\[([^\]\n]{0,300})\]\(([^)\n]{1,500})\)/g;
const TASK = /^\s{0,3}[*+-]\s+\[([ xX])\]\s*(.*)$/;
/** A heading that names the decision, folded: Decision (Outcome), Décision, Decisión, Decisão, Decisione, Entscheidung. */
const DECISION_HEADING = /^#{2,6}\s.*\b(decision|decisao|decisione|entscheidung|considered options)/;
/** Folders of records no longer in force, folded. */
/** A record's file name without `.md`: its id when nothing better names it. */
export const stem = (p: string): string => path.posix.basename(p).replace(/\.md$/i, '');

const ARCHIVE_DIR = /^(archive[sd]?|archiv|arquivo|archivio|deprecated|obsolete|superseded|retired)$/;

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

/** The number in a file name or else a title (`5. X`, `ADR-0007: X`, `ADR 25: X`). */
function numberOf(relPath: string, title: string): number | undefined {
  const digits = nameNumber(relPath) ?? /^(?:adr[-_ #]?)?(\d{1,6})(?=[.:)\s-])/i.exec(title)?.[1];
  return digits === undefined ? undefined : Number(digits);
}

const splitList = (v: string): string[] => v.split(',').map(clean).filter(Boolean).slice(0, MAX_LIST);

/** The canonical field a name stands for (`Statut` → status, `Fecha` → date, `Décideurs` → deciders). */
const FIELD_OF: [string, RegExp][] = [
  ['status', new RegExp(`^(?:${STATUS_NAMES})$`, 'i')],
  ['date', new RegExp(`^(?:${DATE_NAMES})$`, 'i')],
  ['deciders', new RegExp(`^(?:${DECIDER_NAMES})$`, 'i')],
  ['scope', /^scope$/i],
];
const fieldOf = (name: string): string | undefined => FIELD_OF.find(([, re]) => re.test(name.trim()))?.[0];

/** What the body says, field by field, in one pass (fenced blocks skipped). */
interface BodyFields {
  title?: string;
  fields: Map<string, string>;
  /** The status a heading or a status section gives. */
  section?: string;
  links: RecordLink[];
  decisionSection: boolean;
}

/** A heading's text without the spaces and `#`s that may close it (no regex: a run of spaces costs its length once). */
function withoutClosingHashes(text: string): string {
  const t = text.trimEnd();
  let end = t.length;
  while (end > 0 && t[end - 1] === '#') end--;
  return t.slice(0, end).trimEnd();
}

/**
 * What a heading says about the status: a status section (`## Status`, `## Statut :`), the status
 * itself (`## Status: Accepted`, `## Statut : Accepté (2026-08-27)`, `## Status — Accepted`), or
 * nothing. Read by slicing, not by a pattern with two runs of optional spaces (quadratic on a long
 * heading).
 */
function statusHeading(line: string): { section: true } | { value: string } | undefined {
  const text = withoutClosingHashes(line.replace(/^#{1,6}\s+/, ''));
  const rest = STATUS_HEADING.exec(text)?.[1];
  if (rest === undefined) return undefined;
  const r = rest.replace(/^(?:\*\*|__|\*|_)/, '').trimStart();
  if (/^[:：]?(?:\*\*|__|\*|_)?$/.test(r)) return { section: true };
  const sep = /^(?:[:：]|[-–—](?=\s))/.exec(r)?.[0];
  if (!sep) return undefined;
  const value = r
    .slice(sep.length)
    .replace(/^(?:\*\*|__|\*|_)/, '')
    .trim();
  return value ? { value } : { section: true };
}

/** Fields of one line that is not a heading: a table row (`| Status | Accepted |`), or each `·`-separated part. */
function lineFields(line: string, out: BodyFields): void {
  const found: [string, string][] = [];
  if (line.trimStart().startsWith('|')) {
    const cells = line.split('|').map((c) => c.trim().replace(/^(?:\*\*|__)|(?:\*\*|__)$/g, ''));
    if (cells.length >= 4 && fieldOf(cells[1] as string)) found.push([cells[1] as string, cells[2] as string]);
  } else
    for (const part of line.includes('·') ? line.split('·').map((p) => p.trim()) : [line]) {
      const f = FIELD.exec(part);
      if (f) found.push([f[1] as string, f[2] as string]);
    }
  for (const [name, raw] of found) {
    const key = fieldOf(name);
    const value = clean(raw);
    if (key && value && !out.fields.has(key)) out.fields.set(key, value);
  }
}

function scanBody(lines: readonly string[], from: number): BodyFields {
  const out: BodyFields = { fields: new Map(), links: [], decisionSection: false };
  let fence = '';
  let inStatus = false;
  let uncheckedTasks = false;
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
      if (inStatus && uncheckedTasks && out.section === undefined) out.section = 'no box checked';
      const said = statusHeading(line);
      inStatus = said !== undefined && 'section' in said;
      uncheckedTasks = false;
      if (said && 'value' in said && out.section === undefined) out.section = clean(said.value);
      if (out.title === undefined && /^#\s+\S/.test(line)) out.title = line.replace(/^#\s+/, '').trim();
      if (DECISION_HEADING.test(foldDiacritics(line.toLowerCase()))) out.decisionSection = true;
      continue;
    }
    const link = LINK_LINE.exec(line) ?? LINK_LINE_OTHER.exec(line);
    if (link) {
      const superseded = /by$/i.test(link[1] as string);
      out.links.push(...linksIn(superseded ? 'superseded-by' : 'supersedes', link[2] as string));
    }
    if (inStatus && out.section === undefined && line.trim() !== '' && !/^\s*<!--/.test(line)) {
      // A task list under the heading: the checked box is the status.
      const task = TASK.exec(line);
      if (!task) out.section = clean(line.replace(/^\s*[*+-]\s+/, ''));
      else if (task[1] !== ' ') out.section = clean(task[2] as string);
      else uncheckedTasks = true;
    }
    lineFields(line, out);
  }
  if (inStatus && uncheckedTasks && out.section === undefined) out.section = 'no box checked';
  return out;
}

/** The first front matter key that names a status, a date or the deciders, in any of the languages. */
function frontOf(fm: FrontMatter, field: string): string[] {
  for (const key of fm.fields.keys()) if (fieldOf(key) === field) return frontList(fm, key);
  return [];
}

/** Links in the status itself: "superseded by X", "supersedes X", or a link after "Superseded." */
function statusLinks(status: string, state: DecisionStatus, links: RecordLink[]): RecordLink[] {
  const out: RecordLink[] = [];
  const by = SUPERSEDED_BY_TEXT.exec(status);
  if (by && !links.some((l) => l.kind === 'superseded-by')) out.push(...linksIn('superseded-by', by[1] as string));
  else if (state === 'superseded' && !links.some((l) => l.kind === 'superseded-by'))
    // "Superseded. [13. Use React](../013-react.md) is newer.": its links name what replaced it.
    out.push(...linksIn('superseded-by', status).filter((l) => l.target !== undefined));
  const sup = /\b(?:super[sc]edes|replaces)\b(.*)$/i.exec(status);
  if (sup) out.push(...linksIn('supersedes', sup[1] as string));
  return out;
}

/**
 * The part of `relPath` under the decisions folder; only its file name when it is elsewhere (a
 * symlinked record read at its real path: the folders it lives in are not the team's layout).
 */
export function underFolder(relPath: string, folder: string | undefined): string {
  const root = (folder ?? '').replace(/\/+$/, '');
  if (root === '' || root === '.') return relPath;
  return relPath.startsWith(`${root}/`) ? relPath.slice(root.length + 1) : path.posix.basename(relPath);
}

/** The archive folder (`archive/`, `deprecated/`…) a record is filed in under the decisions folder, if any. */
function archiveDir(relPath: string, folder: string | undefined): string | undefined {
  if (folder === undefined) return undefined;
  return underFolder(relPath, folder)
    .split('/')
    .slice(0, -1)
    .find((d) => ARCHIVE_DIR.test(foldDiacritics(d.toLowerCase())));
}

/** The record, and what its text shows about whether it is one (for ./recordRule.ts). */
export function readRecordFile(
  relPath: string,
  text: string,
  opts: ReadOptions = {},
): { record: DecisionRecord; shape: RecordShape } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n?|\n/);
  const fm = readFrontMatter(lines);
  const scanned = scanBody(lines, fm.end + 1);
  // A front matter never closed: the title is still shown, nothing else is read as a field.
  const body: BodyFields = fm.unclosed
    ? { title: scanned.title, fields: new Map(), links: [], decisionSection: scanned.decisionSection }
    : scanned;
  const notes = [...fm.notes];
  // One line, at most 200 characters, shown as it is (bidi controls as escapes): a title is a
  // label, not a place to carry a payload. No heading: the front matter's title, else the file name.
  const fallback = stem(relPath);
  const title = visibleText(body.title ?? frontString(fm, 'title') ?? fallback).slice(0, 200);
  // A heading or section is the status; a `Status:` line elsewhere (prose) only when there is none.
  const status = (frontOf(fm, 'status').join(', ') || body.section || body.fields.get('status'))?.slice(
    0,
    MAX_FIELD_CHARS,
  );
  const date = frontOf(fm, 'date').join(', ') || body.fields.get('date');
  const links = [...body.links];
  const frontKeys = { supersedes: ['supersedes'], 'superseded-by': ['superseded-by', 'superseded_by', 'supersededby'] };
  for (const kind of ['supersedes', 'superseded-by'] as const)
    for (const v of frontKeys[kind].flatMap((k) => frontList(fm, k))) links.push(...linksIn(kind, v));
  const written = normalizeStatus(status);
  if (status) links.push(...statusLinks(status, written, links));
  const frontDeciders = frontOf(fm, 'deciders');
  const deciders = (
    frontDeciders.length > 0 ? frontDeciders.flatMap(splitList) : splitList(body.fields.get('deciders') ?? '')
  ).slice(0, MAX_LIST);
  const rawScope = fm.fields.has('scope') ? frontList(fm, 'scope') : splitList(body.fields.get('scope') ?? '');
  const scope: string[] = [];
  for (const raw of rawScope.slice(0, MAX_LIST)) {
    const g = scopeGlobCheck(raw);
    if ('glob' in g) scope.push(g.glob);
    else notes.push(`scope "${visibleText(raw).slice(0, 60)}" ${g.why}; left out`);
  }
  // No status written, and nothing that could hold one left unread: the setting decides.
  const unstatused = !status && !fm.unread;
  let state: DecisionStatus = unstatused
    ? (opts.unstatused ?? DEFAULT_UNSTATUSED) === 'accepted'
      ? 'accepted'
      : 'unknown'
    : written;
  if (status && written === 'unknown')
    notes.push(
      `status "${visibleText(status).slice(0, 60)}" is not one Roundtable reads (accepted, proposed, rejected, deprecated, superseded): not a rule`,
    );
  if (state !== 'superseded' && links.some((l) => l.kind === 'superseded-by')) state = 'superseded';
  const archived = archiveDir(relPath, opts.folder);
  if (archived && (state === 'accepted' || state === 'proposed' || state === 'unknown')) {
    state = 'deprecated';
    notes.push(`filed under ${archived}/: read as deprecated, not in force`);
  }
  const number = numberOf(relPath, title);
  const record: DecisionRecord = {
    path: relPath,
    title,
    ...(number !== undefined ? { number } : {}),
    ...(status ? { status: status.slice(0, 200) } : {}),
    ...(unstatused ? { unstatused: true as const } : {}),
    state,
    ...(date ? { date: date.slice(0, 40) } : {}),
    deciders,
    scope,
    links,
    supersedes: [],
    supersededBy: [],
    text,
    notes,
  };
  const base = path.posix.basename(relPath);
  return {
    record,
    shape: { dated: DATED_NAME.test(base), decisionSection: body.decisionSection, hasStatus: Boolean(status) },
  };
}

/** Title, number, status, date, deciders, scope and supersession links of a record. */
export function parseRecord(relPath: string, text: string, opts: ReadOptions = {}): DecisionRecord {
  return readRecordFile(relPath, text, opts).record;
}
