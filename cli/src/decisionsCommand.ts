/**
 * `roundtable decisions`: the team's decision records, listed and searched (status, date, scope,
 * what superseded what), and "which decisions govern this file". Every record is read through the
 * workspace gate, as for a meeting's briefing; everything printed is terminal-safe.
 */
import {
  DECISION_STATUSES,
  DEFAULT_UNSTATUSED,
  UNSAFE_CHARS,
  UnstatusedSchema,
  type DecisionStatus,
  type Unstatused,
} from '@roundtable/protocol';
import { DEFAULT_DECISIONS_FOLDER } from '../../daemon/src/context/cliFlags';
import {
  readRulebook,
  selectRecords,
  unstatusedOf,
  workspaceRelative,
  type Shown,
} from '../../daemon/src/decisions/listing';
import { currentOf, type Rulebook } from '../../daemon/src/decisions/rulebook';
import { UsageError, parseCli } from '@roundtable/client/usage';
import type { RunIO } from './follow';
import { terminalSafe } from '@roundtable/protocol/terminal';

export const DECISIONS_USAGE = `Usage: roundtable decisions [WORDS...] [--status STATUS] [--file PATH] [--dir DIR] [--unstatused HOW] [--json]

  Lists the decision records (MADR, with or without front matter, Nygard's format, log4brains; in
  English, French, German, Spanish or Portuguese) with their id, title, status, date, scope and what
  superseded what.
  WORDS          only the records that share words with these (plurals and other word forms too),
                 those whose title matches first
  --status S     only records with this status (or several, comma-separated): accepted, proposed,
                 rejected, deprecated, superseded, unknown
  --file PATH    the decisions that govern PATH: records whose scope globs cover it (accepted ones
                 govern; others are shown as not in force)
  --dir DIR      the decisions folder (default docs/decisions, as roundtable.decisionsFolder)
  --unstatused HOW
                 records that write no status: accepted (default: rules, as MADR allows) or ignore
  --json         one JSON object (version 1, described in docs/cli.md)`;

/** Notes printed on stderr at most; the rest are counted (all of them are in --json). */
const MAX_NOTES_SHOWN = 20;

/** JSON whose strings cannot drive a terminal: C1 controls and bidi controls escaped too (JSON escapes C0). */
function safeJson(value: unknown): string {
  return JSON.stringify(value).replace(
    new RegExp(`[${UNSAFE_CHARS}\\u2028\\u2029]`, 'g'),
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function parseStatuses(v: string | undefined): Set<DecisionStatus> | undefined {
  if (v === undefined) return undefined;
  const asked = v.split(',').map((s) => s.trim().toLowerCase());
  const bad = asked.find((s) => !(DECISION_STATUSES as readonly string[]).includes(s));
  if (bad !== undefined)
    throw new UsageError(`--status "${bad}" is not a status: give one of ${DECISION_STATUSES.join(', ')}`);
  return new Set(asked as DecisionStatus[]);
}

/** `--unstatused`: how records with no status are read (a usage error, one line, for anything else). */
export function unstatusedFlag(v: string | undefined): Unstatused | undefined {
  if (v === undefined) return undefined;
  const r = UnstatusedSchema.safeParse(v.trim().toLowerCase());
  if (!r.success) throw new UsageError(`--unstatused must be accepted or ignore, got "${v}"`);
  return r.data;
}

function recordJson(s: Shown, book: Rulebook, file: string | undefined): Record<string, unknown> {
  const r = s.record;
  return {
    id: s.id,
    path: r.path,
    number: r.number ?? null,
    title: r.title,
    status: r.state,
    statusText: r.status ?? null,
    unstatused: r.unstatused === true,
    date: r.date ?? null,
    deciders: r.deciders,
    scope: r.scope,
    supersedes: r.supersedes,
    supersededBy: r.supersededBy,
    current: currentOf(r, book.records) ?? null,
    ...(file ? { governs: r.state === 'accepted', matchedScope: s.glob ?? null } : {}),
  };
}

function recordLines(s: Shown, book: Rulebook, readAs: Unstatused): string[] {
  const r = s.record;
  const lines = [
    `${s.id.padEnd(4)}  ${r.state.padEnd(10)}  ${(r.date ?? '').padEnd(10)}  ${r.title}`,
    `      ${r.path}`,
  ];
  if (r.unstatused) lines.push(`      no status written: ${readAs === 'accepted' ? 'read as accepted' : 'not a rule'}`);
  if (s.glob !== undefined)
    lines.push(
      r.state === 'accepted'
        ? `      governs it: scope ${s.glob}`
        : `      scope ${s.glob} covers it, but the record is ${r.state}: not in force`,
    );
  else if (r.scope.length > 0) lines.push(`      scope: ${r.scope.join(', ')}`);
  if (r.supersedes.length > 0) lines.push(`      supersedes ${r.supersedes.join(', ')}`);
  if (r.supersededBy.length > 0) {
    const now = currentOf(r, book.records);
    const chain = now && !r.supersededBy.includes(now) ? ` (in force now: ${now})` : '';
    lines.push(`      superseded by ${r.supersededBy.join(', ')}${chain}`);
  }
  return lines;
}

/** `, 18 with no status (read as accepted)` for the heading, when there are any. */
function unstatusedCount(u: { count: number; readAs: Unstatused }): string {
  if (u.count === 0) return '';
  return `, ${u.count} with no status (${u.readAs === 'accepted' ? 'read as accepted' : 'not rules'}: --unstatused)`;
}

/** What the listing was narrowed by, for its heading and its "none" line. */
function narrowing(words: string, statuses: Set<DecisionStatus> | undefined): string {
  return [statuses ? `with status ${[...statuses].join(' or ')}` : '', words.trim() ? `matching "${words.trim()}"` : '']
    .filter(Boolean)
    .join(', ');
}

export async function decisionsCommand(argv: string[], io: RunIO, workspace = process.cwd()): Promise<number> {
  const parsed = parseCli({
    args: argv,
    allowPositionals: true,
    options: {
      status: { type: 'string' },
      file: { type: 'string' },
      dir: { type: 'string' },
      unstatused: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (parsed.values.help) {
    io.stdout.write(`${DECISIONS_USAGE}\n`);
    return 0;
  }
  const statuses = parseStatuses(parsed.values.status);
  const words = parsed.positionals.join(' ');
  const folder = (parsed.values.dir ?? DEFAULT_DECISIONS_FOLDER).trim();
  if (folder === '') throw new UsageError('--dir is empty: give the decisions folder');
  const file = parsed.values.file === undefined ? undefined : workspaceRelative(workspace, parsed.values.file);
  if (parsed.values.file !== undefined && file === undefined)
    throw new UsageError(`--file ${parsed.values.file} is not a file inside the workspace (${workspace})`);
  const readAs = unstatusedFlag(parsed.values.unstatused) ?? DEFAULT_UNSTATUSED;
  const read = await readRulebook(workspace, folder, readAs);
  if (!read.ok) throw new UsageError(read.reason);
  const unstatused = unstatusedOf(read, readAs);
  const shown = selectRecords(read, { words, ...(statuses ? { statuses } : {}), ...(file ? { file } : {}) });
  if (parsed.values.json) {
    io.stdout.write(
      `${safeJson({
        version: 1,
        folder,
        ...(file ? { file } : {}),
        total: read.records.length,
        records: shown.map((s) => recordJson(s, read, file)),
        refused: read.refused,
        notes: read.notes,
        skipped: read.skipped,
        unstatused,
      })}\n`,
    );
    return 0;
  }
  const out = (line: string): boolean => io.stdout.write(`${terminalSafe(line)}\n`);
  if (read.records.length === 0) out(`no decision records in ${folder}`);
  else if (shown.length === 0) {
    const what = narrowing(words, statuses);
    out(
      file
        ? `no decision record in ${folder} has a scope that covers ${file}${what ? ` (${what})` : ''}`
        : `none of the ${read.records.length} decision records in ${folder} ${what.replace(/^with/, 'has').replace(/^matching/, 'matches')}`,
    );
  } else {
    const what = narrowing(words, statuses);
    out(
      file
        ? `Decisions in ${folder} whose scope covers ${file}${what ? ` (${what})` : ''}:`
        : what
          ? `${shown.length} of ${read.records.length} decision records in ${folder} ${what}:`
          : `${shown.length} decision records in ${folder}${unstatusedCount(unstatused)}:`,
    );
    for (const s of shown) {
      out('');
      for (const l of recordLines(s, read, readAs)) out(l);
    }
  }
  const notes = [
    ...read.refused.map((r) => `${r.path} ${r.reason}: not read`),
    ...read.skipped.map((k) => `${k.path}: ${k.reason}`),
    ...read.notes,
  ];
  for (const n of notes.slice(0, MAX_NOTES_SHOWN)) io.stderr.write(`note: ${terminalSafe(n)}\n`);
  if (notes.length > MAX_NOTES_SHOWN)
    io.stderr.write(`note: … and ${notes.length - MAX_NOTES_SHOWN} more (all of them are in --json)\n`);
  return 0;
}
