/**
 * The decision records as a person looks for them (issue 33): all of them by number, those sharing
 * words with a search (best first), those with a status, those whose scope covers a file. One
 * selection for `roundtable decisions` and the `decisions/list` method behind the Decisions view,
 * over the one rulebook loader.
 */
import * as path from 'node:path';
import {
  DEFAULT_UNSTATUSED,
  type DecisionEntry,
  type DecisionStatus,
  type DecisionsListResult,
  type Unstatused,
} from '@roundtable/protocol';
import { DEFAULT_DECISIONS_FOLDER } from '../context/cliFlags';
import { workspaceGate } from '../gate';
import { recordIds } from './ids';
import { searchRecords } from './index';
import type { DecisionRecord } from './record';
import { currentOf, emptyRulebook, governingDecisions, loadDecisions, type Rulebook } from './rulebook';

export interface Shown {
  record: DecisionRecord;
  /** The record's one id (./ids.ts). */
  id: string;
  /** With a file: the scope glob that covers it. */
  glob?: string;
}

export interface Narrowing {
  words: string;
  statuses?: ReadonlySet<DecisionStatus>;
  /** Workspace-relative, `/`-separated. */
  file?: string;
}

/** A path given by a person or a client as the workspace-relative path scopes are written in; undefined when outside. */
export function workspaceRelative(workspace: string, file: string): string | undefined {
  const rel = path.relative(workspace, path.resolve(workspace, file));
  if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

const byNumber = (a: DecisionRecord, b: DecisionRecord): number =>
  (a.number ?? Infinity) - (b.number ?? Infinity) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** The records to show, in order: governing a file, matching words (title matches first), with a status. */
export function selectRecords(book: Rulebook, opts: Narrowing): Shown[] {
  const ids = recordIds(book.records);
  const listed = opts.file
    ? governingDecisions(book.records, opts.file)
    : book.records.map((record) => ({ record, glob: undefined }));
  let shown: Shown[] = listed
    .sort((a, b) => byNumber(a.record, b.record))
    .map((l) => ({ record: l.record, id: ids.get(l.record) ?? l.record.path, ...(l.glob ? { glob: l.glob } : {}) }));
  if (opts.words.trim() !== '') {
    const byRecord = new Map(shown.map((s) => [s.record, s]));
    shown = searchRecords(
      shown.map((s) => s.record),
      opts.words,
    ).map((r) => byRecord.get(r) as Shown);
  }
  return opts.statuses ? shown.filter((s) => opts.statuses?.has(s.record.state)) : shown;
}

/** How many records carry no status, and how they were read. */
export function unstatusedOf(book: Rulebook, readAs: Unstatused): { count: number; readAs: Unstatused } {
  return { count: book.records.filter((r) => r.unstatused).length, readAs };
}

export function entryOf(s: Shown, book: Rulebook): DecisionEntry {
  const r = s.record;
  const current = currentOf(r, book.records);
  return {
    id: s.id,
    title: r.title,
    status: r.state,
    ...(r.status !== undefined ? { statusText: r.status } : {}),
    ...(r.unstatused ? { unstatused: true } : {}),
    ...(r.date !== undefined ? { date: r.date } : {}),
    path: r.path,
    scope: r.scope,
    supersedes: r.supersedes,
    supersededBy: r.supersededBy,
    ...(current !== undefined ? { current } : {}),
    ...(s.glob !== undefined ? { matchedScope: s.glob } : {}),
  };
}

/** The rulebook of `folder` in `workspace`, read through the gate; a folder that does not exist is an empty one. */
export async function readRulebook(
  workspace: string,
  folder = DEFAULT_DECISIONS_FOLDER,
  unstatused: Unstatused = DEFAULT_UNSTATUSED,
): Promise<Rulebook | { ok: false; reason: string }> {
  const book = await loadDecisions({ gate: workspaceGate(workspace), folder, unstatused });
  if (!book.ok && !book.missing) return { ok: false, reason: `the decisions folder ${folder} ${book.reason}` };
  return book.ok ? book : emptyRulebook(folder, 'the work tree');
}

/** `decisions/list`: the records of the workspace's decisions folder, narrowed as asked. */
export async function listDecisions(p: {
  workspace: string;
  query?: string;
  status?: DecisionStatus[];
  file?: string;
  folder?: string;
  unstatused?: Unstatused;
}): Promise<{ ok: true; result: DecisionsListResult } | { ok: false; reason: string }> {
  const file = p.file === undefined ? undefined : workspaceRelative(p.workspace, p.file);
  if (p.file !== undefined && file === undefined)
    return { ok: false, reason: `file ${p.file.slice(0, 200)} is not inside the workspace` };
  const folder = p.folder?.trim() || DEFAULT_DECISIONS_FOLDER;
  const readAs = p.unstatused ?? DEFAULT_UNSTATUSED;
  const book = await readRulebook(p.workspace, folder, readAs);
  if (!book.ok) return book;
  const shown = selectRecords(book, {
    words: p.query ?? '',
    ...(p.status ? { statuses: new Set(p.status) } : {}),
    ...(file !== undefined ? { file } : {}),
  });
  return {
    ok: true,
    result: {
      folder,
      total: book.records.length,
      records: shown.map((s) => entryOf(s, book)),
      refused: book.refused,
      notes: book.notes,
      skipped: book.skipped,
      unstatused: unstatusedOf(book, readAs),
    },
  };
}
