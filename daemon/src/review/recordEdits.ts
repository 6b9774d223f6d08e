/**
 * The change's own edits to the decision records, as a review reports them: a review is held to
 * the rules of its base, so a change that marks 0001 superseded, deletes it, adds a record that
 * supersedes it or edits its scope does not change this review's verdict; it is a decision change,
 * said in the report. Only the record files the change touches are read (through the workspace
 * gate, from the work tree); the base's records are the rulebook already read.
 */
import type { ReviewRules } from '@roundtable/protocol';
import type { WorkspaceGate } from '../gate';
import { isRecordFile, linkSupersession } from '../decisions/rulebook';
import { parseRecord, stem, type DecisionRecord, type ReadOptions } from '../decisions/record';
import { clipLine } from '../meeting/digest';
import type { Change } from './change';
import { recordIds } from '../decisions/ids';

/** Most record files of the change described one by one (the rest are counted in `moreEdits`). */
const MAX_EDITS_SHOWN = 30;

type Edits = Pick<ReviewRules, 'edits' | 'moreEdits'>;

/** Whether a workspace-relative path is a record file of `folder`. */
export function inRecordsFolder(folder: string): (p: string) => boolean {
  const under = folder === '' || folder === '.' ? '' : `${folder.replace(/\/+$/, '')}/`;
  return (p) => p.startsWith(under) && /\.md$/i.test(p) && isRecordFile(p, folder);
}

/** The change's files that are records of `folder`: in the change's diff, or kept back by the gate. */
function changedRecordFiles(change: Change, folder: string): string[] {
  const all = [...change.files.map((f) => f.file), ...change.refused.map((r) => r.path)];
  return [...new Set(all)].filter(inRecordsFolder(folder)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const scopeText = (s: readonly string[]): string => (s.length ? s.join(', ') : 'none');
const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * One line per record file the change adds, deletes or edits (`marks 0001 superseded (accepted at
 * the base)`, `adds 0003 "Use SQLite" (accepted), superseding 0001`), at most MAX_EDITS_SHOWN.
 */
export async function recordEdits(opts: {
  gate: WorkspaceGate;
  change: Change;
  folder: string;
  /** How the base's records were read (the folder's archives, records with no status): the edits are read alike. */
  unstatused: ReadOptions['unstatused'];
  base: readonly DecisionRecord[];
}): Promise<Edits> {
  const files = changedRecordFiles(opts.change, opts.folder);
  if (files.length === 0) return {};
  const read: ReadOptions = { folder: opts.folder, unstatused: opts.unstatused };
  // A fresh copy of a record as its text says (the loader's supersession links undone), to link again.
  const reparsed = (r: DecisionRecord): DecisionRecord => ({ ...parseRecord(r.path, r.text, read), sha256: r.sha256 });
  const shown = files.slice(0, MAX_EDITS_SHOWN);
  const baseByPath = new Map(opts.base.map((r) => [r.path, r]));
  const head = new Map<string, DecisionRecord | { gone: true } | { refused: string }>();
  for (const f of shown) {
    const r = await opts.gate.read(f);
    if (r.ok) head.set(f, parseRecord(r.rel, r.text, read));
    else head.set(f, r.reason === 'does not exist' ? { gone: true } : { refused: r.reason });
  }
  // The base's records with the change's edits applied, linked again: what the change would put in force.
  const after = [
    ...opts.base.filter((r) => !head.has(r.path)).map(reparsed),
    ...[...head.values()].filter((r): r is DecisionRecord => 'state' in r),
  ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  linkSupersession(after, opts.folder);
  const afterByPath = new Map(after.map((r) => [r.path, r]));
  const baseIds = recordIds(opts.base);
  const afterIds = recordIds(after);
  const idOf = (p: string): string => {
    const b = baseByPath.get(p);
    const a = afterByPath.get(p);
    return (b && baseIds.get(b)) ?? (a && afterIds.get(a)) ?? stem(p);
  };
  const ctx = { after: afterByPath, idOf, inForce: (p: string) => baseByPath.get(p)?.state === 'accepted' };
  // Within the scope's schema (a meeting's log never holds what its reader would refuse).
  const edits = shown.map((p) => ({
    path: p.slice(0, 1_000),
    what: clipLine(describe(p, baseByPath.get(p), head.get(p), ctx), 500),
  }));
  return { edits, ...(files.length > shown.length ? { moreEdits: files.length - shown.length } : {}) };
}

function describe(
  p: string,
  before: DecisionRecord | undefined,
  now: DecisionRecord | { gone: true } | { refused: string } | undefined,
  ctx: { after: Map<string, DecisionRecord>; idOf: (p: string) => string; inForce: (p: string) => boolean },
): string {
  const { after, idOf } = ctx;
  const id = idOf(p);
  if (!now || 'refused' in now)
    return `edits ${id}, whose new text the gate kept back (${now && 'refused' in now ? now.refused : 'not read'})`;
  if ('gone' in now) return before ? `deletes ${id} (${before.state} at the base)` : `deletes ${id}`;
  const linked = after.get(p) ?? now;
  // What this record puts out of force that the base had in force.
  const replaces = linked.supersedes.filter((s) => ctx.inForce(s) && after.get(s)?.state === 'superseded').map(idOf);
  const superseding = replaces.length ? `, superseding ${replaces.join(', ')}` : '';
  if (!before) return `adds ${id} "${now.title}" (${linked.state})${superseding}`;
  const parts: string[] = [];
  if (linked.state !== before.state) parts.push(`marks ${id} ${linked.state} (${before.state} at the base)`);
  if (!sameList(now.scope, before.scope))
    parts.push(`changes the scope of ${id} (${scopeText(before.scope)} at the base, now ${scopeText(now.scope)})`);
  if (parts.length === 0) parts.push(`edits ${id}`);
  return `${parts.join('; ')}${superseding}`;
}
