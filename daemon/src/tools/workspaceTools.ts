/**
 * The read-only workspace tools a model may call: read_file, search and list_files. Every path and
 * every line they give back passed the workspace gate (daemon/src/gate): inside the workspace on
 * its real path, never `.git` internals, git-ignored or secret-looking files, secrets in content
 * redacted. A refusal is the gate's one line. Nothing here writes anything.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { contextPathProblem } from '@roundtable/protocol';
import { workspaceGate, type Refusal, type WorkspaceGate } from '../gate';
import { globMatcher, type GlobMatcher } from '../gate/glob';

/** A tool's answer: `ok: false` carries the one-line reason the model is given instead. */
export type ToolResult = { ok: true; text: string } | { ok: false; text: string };

const MAX_LIST = 200;
const MAX_MATCHES = 50;
/** Most files one search reads through the gate. */
const MAX_SEARCH_FILES = 500;
const RG = '/usr/bin/rg';

export const TOOL_DEFINITIONS = [
  {
    type: 'function' as const,
    function: {
      name: 'read_file',
      description: 'Read a text file of the workspace (read-only). Lines are numbered; ask for a range of a long file.',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Workspace-relative path' },
          startLine: { type: 'integer', minimum: 1 },
          endLine: { type: 'integer', minimum: 1 },
        },
        required: ['path'],
      },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'search',
      description: 'Search the workspace files for a text (fixed string, case-insensitive), respecting .gitignore.',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string' },
          glob: { type: 'string', description: 'Only files matching this glob, e.g. src/**/*.ts' },
        },
        required: ['query'],
      },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'list_files',
      description: 'List the files under a workspace folder (default: the whole workspace), respecting .gitignore.',
      parameters: { type: 'object', properties: { path: { type: 'string' }, glob: { type: 'string' } } },
    },
  },
];

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length <= 1_000 ? v : undefined);
const pos = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : undefined;

async function readFileTool(gate: WorkspaceGate, a: Record<string, unknown>): Promise<ToolResult> {
  const file = str(a.path);
  if (!file) return { ok: false, text: 'read_file needs a "path" string' };
  const r = await gate.read(file);
  if (!r.ok) return { ok: false, text: `refused: ${r.path} ${r.reason}` };
  const lines = r.text.split('\n');
  const from = pos(a.startLine) ?? 1;
  const to = Math.min(pos(a.endLine) ?? lines.length, lines.length);
  const body = lines
    .slice(from - 1, to)
    .map((l, i) => `${from + i}: ${l}`)
    .join('\n');
  return { ok: true, text: `${r.rel} lines ${from}-${to} of ${lines.length}\n${body}` };
}

async function folderOf(gate: WorkspaceGate, p: string | undefined): Promise<string | ToolResult> {
  if (!p || p === '.' || p === '') return gate.realRoot();
  const where = await gate.locate(p);
  if ('reason' in where)
    return {
      ok: false,
      text: where.reason === 'does not exist' ? `${p} does not exist` : `refused: ${p} ${where.reason}`,
    };
  if (!(await fs.stat(where.real)).isDirectory()) return { ok: false, text: `${p} is not a folder` };
  return where.real;
}

/** One line on what the gate kept out of a listing, by reason (the names themselves are not given). */
function withheld(refused: Refusal[]): string {
  if (refused.length === 0) return '';
  const by = new Map<string, number>();
  for (const r of refused) by.set(r.reason, (by.get(r.reason) ?? 0) + 1);
  const why = [...by].map(([reason, n]) => `${n} ${reason}`).join('; ');
  return `\n(${refused.length} file(s) withheld by the workspace gate: ${why})`;
}

/** The tool's `glob` argument as a matcher (none when absent), or the one-line refusal of it. */
function globArg(a: Record<string, unknown>): { match?: GlobMatcher } | ToolResult {
  const glob = str(a.glob);
  if (!glob) return {};
  const problem = contextPathProblem(glob);
  return problem ? { ok: false, text: `refused: ${problem}` } : { match: globMatcher(glob) };
}

async function listFilesTool(gate: WorkspaceGate, a: Record<string, unknown>): Promise<ToolResult> {
  const dir = await folderOf(gate, str(a.path));
  if (typeof dir !== 'string') return dir;
  const glob = globArg(a);
  if ('ok' in glob) return glob;
  const files = await gate.files({ dir, limit: MAX_LIST, ...glob });
  const more = files.more ? `\n(more files not listed: narrow the folder or glob)` : '';
  return {
    ok: true,
    text: `${files.passed.length} file(s)\n${files.passed.join('\n')}${more}${withheld(files.refused)}`,
  };
}

/** Files that may hold `query` (ripgrep's list; undefined when rg is not there). Only a shortlist: the gate reads them. */
function ripgrepFiles(realRoot: string, query: string, glob: string | undefined): Promise<string[] | undefined> {
  const args = ['--files-with-matches', '--color', 'never', '--fixed-strings', '--ignore-case', '--max-filesize', '2M'];
  if (glob) args.push('--glob', glob);
  args.push('--', query, '.');
  return new Promise((resolve) => {
    execFile(RG, args, { cwd: realRoot, maxBuffer: 4_000_000, timeout: 15_000 }, (err, stdout) => {
      // rg exits 1 for "no match"; any other failure (not installed) falls back to the walk.
      if (err && err.code !== 1) return resolve(undefined);
      resolve(
        String(stdout)
          .split('\n')
          .filter(Boolean)
          .map((l) => l.replace(/^\.\//, ''))
          .sort()
          .slice(0, MAX_SEARCH_FILES),
      );
    });
  });
}

/**
 * Every matching line of the files the gate lets through, as the gate gives them (secrets
 * redacted, so a query for a secret finds nothing). Files the gate keeps in are not counted or
 * named: a count would let a model probe a secret file by its content, one query at a time.
 */
async function searchTool(gate: WorkspaceGate, a: Record<string, unknown>): Promise<ToolResult> {
  const query = str(a.query);
  if (!query?.trim()) return { ok: false, text: 'search needs a non-empty "query" string' };
  const glob = globArg(a);
  if ('ok' in glob) return glob;
  const realRoot = await gate.realRoot();
  const shortlist =
    (await ripgrepFiles(realRoot, query, str(a.glob))) ??
    (await gate.files({ limit: MAX_SEARCH_FILES, ...glob })).passed;
  const { passed } = await gate.screenPaths(shortlist);
  const found: string[] = [];
  const q = query.toLowerCase();
  for (const f of passed) {
    const r = await gate.read(f, { screened: true });
    if (!r.ok) continue;
    r.text.split('\n').forEach((l, i) => {
      if (l.toLowerCase().includes(q) && found.length <= MAX_MATCHES) found.push(`${r.rel}:${i + 1}:${l}`);
    });
    if (found.length > MAX_MATCHES) break;
  }
  const more = found.length > MAX_MATCHES ? `\n(more matches not shown: narrow the query or glob)` : '';
  return {
    ok: true,
    text: `${Math.min(found.length, MAX_MATCHES)} match(es)\n${found.slice(0, MAX_MATCHES).join('\n')}${more}`,
  };
}

/** Runs one tool call inside `workspace`. Never throws: a failure is a one-line result. */
export async function runTool(workspace: string, name: string, args: unknown): Promise<ToolResult> {
  const gate = workspaceGate(workspace);
  const a = typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  try {
    if (name === 'read_file') return await readFileTool(gate, a);
    if (name === 'list_files') return await listFilesTool(gate, a);
    if (name === 'search') return await searchTool(gate, a);
    return { ok: false, text: `unknown tool "${name.slice(0, 40)}": use read_file, search or list_files` };
  } catch (e) {
    return { ok: false, text: `${name} failed: ${(e as Error).message.split('\n')[0]}` };
  }
}
