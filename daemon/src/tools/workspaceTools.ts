/**
 * The read-only workspace tools a model may call: read_file, search and list_files. Every path is
 * resolved on its real path inside the workspace (a `../` or a symlink out of it is refused), and
 * secret-looking, binary and git-ignored files are never read. Nothing here writes anything.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { resolveInWorkspace } from '../meeting/evidence';
import { gitIgnored, looksSecret, readWorkspaceFile, walkFiles, globRegex } from '../context/workspaceFiles';

/** A tool's answer: `ok: false` carries the one-line reason the model is given instead. */
export type ToolResult = { ok: true; text: string } | { ok: false; text: string };

const MAX_LIST = 200;
const MAX_MATCHES = 50;
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

async function readFileTool(root: string, realRoot: string, a: Record<string, unknown>): Promise<ToolResult> {
  const file = str(a.path);
  if (!file) return { ok: false, text: 'read_file needs a "path" string' };
  const r = await readWorkspaceFile(root, file, { realRoot });
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

async function folderOf(root: string, realRoot: string, p: string | undefined): Promise<string | ToolResult> {
  if (!p || p === '.' || p === '') return realRoot;
  const where = await resolveInWorkspace(root, p, realRoot);
  if (where === 'outside_workspace') return { ok: false, text: `refused: ${p} is outside the workspace` };
  if (where === 'missing') return { ok: false, text: `${p} does not exist` };
  if (!(await fs.stat(where.real)).isDirectory()) return { ok: false, text: `${p} is not a folder` };
  return where.real;
}

async function listFilesTool(root: string, realRoot: string, a: Record<string, unknown>): Promise<ToolResult> {
  const dir = await folderOf(root, realRoot, str(a.path));
  if (typeof dir !== 'string') return dir;
  const glob = str(a.glob);
  const files = await walkFiles(realRoot, dir, MAX_LIST + 1, glob ? globRegex(glob) : undefined);
  const ignored = await gitIgnored(realRoot, files);
  const kept = files.filter((f) => !ignored.has(f) && !looksSecret(f));
  const more = files.length > MAX_LIST ? `\n(more files not listed: narrow the folder or glob)` : '';
  return { ok: true, text: `${kept.length} file(s)\n${kept.slice(0, MAX_LIST).join('\n')}${more}` };
}

function ripgrep(realRoot: string, query: string, glob: string | undefined): Promise<string[] | undefined> {
  const args = ['--line-number', '--no-heading', '--color', 'never', '--fixed-strings', '--ignore-case'];
  args.push('--max-count', '5', '--max-filesize', '2M', '--glob', '!.env*', '--glob', '!*.pem', '--glob', '!*.key');
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
          .map((l) => l.replace(/^\.\//, '')),
      );
    });
  });
}

async function walkSearch(realRoot: string, query: string, glob: string | undefined): Promise<string[]> {
  const files = await walkFiles(realRoot, realRoot, 2_000, glob ? globRegex(glob) : undefined);
  const ignored = await gitIgnored(realRoot, files);
  const out: string[] = [];
  const q = query.toLowerCase();
  for (const f of files) {
    if (ignored.has(f) || looksSecret(f)) continue;
    const r = await readWorkspaceFile(realRoot, f, { realRoot, checkIgnored: false });
    if (!r.ok) continue;
    r.text.split('\n').forEach((l, i) => {
      if (l.toLowerCase().includes(q)) out.push(`${f}:${i + 1}:${l}`);
    });
    if (out.length > MAX_MATCHES) break;
  }
  return out;
}

async function searchTool(realRoot: string, a: Record<string, unknown>): Promise<ToolResult> {
  const query = str(a.query);
  if (!query?.trim()) return { ok: false, text: 'search needs a non-empty "query" string' };
  const glob = str(a.glob);
  if (glob && (glob.includes('..') || path.isAbsolute(glob)))
    return { ok: false, text: `refused: ${glob} leaves the workspace` };
  const found = ((await ripgrep(realRoot, query, glob)) ?? (await walkSearch(realRoot, query, glob))).filter(
    (l) => !looksSecret(l.split(':')[0] ?? ''),
  );
  const more = found.length > MAX_MATCHES ? `\n(more matches not shown: narrow the query or glob)` : '';
  return { ok: true, text: `${found.length} match(es)\n${found.slice(0, MAX_MATCHES).join('\n')}${more}` };
}

/** Runs one tool call inside `workspace`. Never throws: a failure is a one-line result. */
export async function runTool(workspace: string, name: string, args: unknown): Promise<ToolResult> {
  const root = path.resolve(workspace);
  const realRoot = await fs.realpath(root).catch(() => root);
  const a = typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  try {
    if (name === 'read_file') return await readFileTool(root, realRoot, a);
    if (name === 'list_files') return await listFilesTool(root, realRoot, a);
    if (name === 'search') return await searchTool(realRoot, a);
    return { ok: false, text: `unknown tool "${name.slice(0, 40)}": use read_file, search or list_files` };
  } catch (e) {
    return { ok: false, text: `${name} failed: ${(e as Error).message.split('\n')[0]}` };
  }
}
