/**
 * Reads the context a meeting was started with, once: files, folders and globs, editor
 * selections, the git diff, a note and the relevant earlier decisions. Everything read is
 * returned as the body of the `context_attached` event, so minutes and a resumed meeting never
 * read the disk again. Refusals are one line each; the token budget cuts in request order and
 * says what it cut.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ContextAttached, ContextItem, ContextRefusal, ContextRequest } from '../../../protocol/src';
import { countTokens, truncateToTokens } from '../providers/tokens';
import { relevantDecisions } from '../decisions/index';
import {
  MAX_GLOB_FILES,
  SECRET_PATHSPEC_EXCLUDES,
  git,
  gitIgnored,
  globRegex,
  isGlob,
  readWorkspaceFile,
  walkFiles,
} from './workspaceFiles';
import { resolveInWorkspace } from '../meeting/evidence';

/** A piece cut to fewer tokens than this is left out whole: a stub of a file misleads more than it helps. */
const MIN_USEFUL_TOKENS = 40;

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

type Draft = Omit<ContextItem, 'tokens' | 'truncated'>;

interface Collected {
  drafts: Draft[];
  refused: ContextRefusal[];
  notes: string[];
}

async function collectPaths(root: string, realRoot: string, req: ContextRequest, out: Collected): Promise<void> {
  const seen = new Set<string>();
  const candidates: { rel: string; named: string; explicit: boolean }[] = [];
  for (const p of req.paths ?? []) {
    if (isGlob(p)) {
      const files = await walkFiles(realRoot, realRoot, MAX_GLOB_FILES + 1, globRegex(p.replace(/^\.\//, '')));
      if (files.length > MAX_GLOB_FILES)
        out.notes.push(`${p} matched more than ${MAX_GLOB_FILES} files; the first ${MAX_GLOB_FILES} were kept`);
      if (files.length === 0) out.refused.push({ path: p, reason: 'matches no file' });
      for (const rel of files.slice(0, MAX_GLOB_FILES)) candidates.push({ rel, named: p, explicit: false });
      continue;
    }
    const where = await resolveInWorkspace(root, p, realRoot);
    if (typeof where === 'string') {
      out.refused.push({ path: p, reason: where === 'missing' ? 'does not exist' : 'is outside the workspace' });
      continue;
    }
    if ((await fs.stat(where.real)).isDirectory()) {
      const files = await walkFiles(realRoot, where.real, MAX_GLOB_FILES + 1);
      if (files.length > MAX_GLOB_FILES)
        out.notes.push(`${p} holds more than ${MAX_GLOB_FILES} files; the first ${MAX_GLOB_FILES} were kept`);
      for (const rel of files.slice(0, MAX_GLOB_FILES)) candidates.push({ rel, named: p, explicit: false });
    } else candidates.push({ rel: where.rel, named: p, explicit: true });
  }
  // One git call for every candidate: a named file that git ignores is refused, one a glob or
  // folder expanded to is skipped quietly (counted in one line).
  const ignored = await gitIgnored(
    realRoot,
    candidates.map((c) => c.rel),
  );
  let skipped = 0;
  for (const c of candidates) {
    if (seen.has(c.rel)) continue;
    seen.add(c.rel);
    if (ignored.has(c.rel)) {
      if (c.explicit) out.refused.push({ path: c.rel, reason: 'is ignored by git' });
      else skipped++;
      continue;
    }
    const r = await readWorkspaceFile(realRoot, c.rel, { realRoot, checkIgnored: false });
    if (!r.ok) {
      if (c.explicit) out.refused.push({ path: c.named, reason: r.reason });
      else out.refused.push({ path: r.path, reason: r.reason });
      continue;
    }
    out.drafts.push({ kind: 'file', path: r.rel, sha256: sha256(r.text), text: r.text });
  }
  if (skipped > 0) out.notes.push(`${skipped} git-ignored file(s) matched by a folder or glob were skipped`);
}

async function collectSelections(root: string, realRoot: string, req: ContextRequest, out: Collected): Promise<void> {
  for (const sel of req.selections ?? []) {
    const r = await readWorkspaceFile(root, sel.path, { realRoot });
    if (!r.ok) {
      out.refused.push({ path: sel.path, reason: r.reason });
      continue;
    }
    const from = Math.min(sel.startLine, sel.endLine);
    const to = Math.max(sel.startLine, sel.endLine);
    const text = r.text
      .split('\n')
      .slice(from - 1, to)
      .join('\n');
    out.drafts.push({ kind: 'selection', path: `${r.rel}:${from}-${to}`, sha256: sha256(text), text });
  }
}

async function collectDiff(realRoot: string, req: ContextRequest, out: Collected): Promise<void> {
  if (!req.diff) return;
  const what = req.diff.staged ? ['--staged'] : req.diff.ref ? [req.diff.ref] : [];
  const label = `git diff ${what.join(' ')}`.trim();
  const r = await git(realRoot, [
    'diff',
    '--no-color',
    '--no-ext-diff',
    ...what,
    '--',
    '.',
    ...SECRET_PATHSPEC_EXCLUDES,
  ]);
  if (r.code !== 0) {
    out.refused.push({ path: label, reason: 'failed: is this a git repository and does the ref exist?' });
    return;
  }
  if (r.stdout.trim() === '') {
    out.refused.push({ path: label, reason: 'is empty: nothing to discuss' });
    return;
  }
  out.drafts.push({ kind: 'diff', path: label, sha256: sha256(r.stdout), text: r.stdout });
}

/**
 * Fits the drafts into the budget in request order: one that does not fit is cut to what is left
 * (or left out when that would be a stub), and a later, smaller one may still fit.
 */
function fit(drafts: Draft[], budget: number): { items: ContextItem[]; cut?: string } {
  const items: ContextItem[] = [];
  const cut: string[] = [];
  let left = budget;
  for (const d of drafts) {
    const tokens = countTokens(d.text);
    if (tokens <= left) {
      items.push({ ...d, tokens, truncated: false });
      left -= tokens;
    } else if (left >= MIN_USEFUL_TOKENS) {
      const text = truncateToTokens(d.text, left);
      const kept = countTokens(text);
      items.push({ ...d, text, tokens: kept, truncated: true });
      cut.push(`${d.path ?? d.kind} cut to ${kept} of ${tokens} tokens`);
      left -= kept;
    } else cut.push(`${d.path ?? d.kind} left out (${tokens} tokens)`);
  }
  if (cut.length === 0) return { items };
  const shown = cut.length > 8 ? [...cut.slice(0, 8), `${cut.length - 8} more left out`] : cut;
  return { items, cut: `Context over its ${budget}-token budget: ${shown.join('; ')}.` };
}

/** Reads the requested context. Never throws for a bad path: it is refused with its reason. */
export async function readContext(opts: {
  workspace: string | undefined;
  request: ContextRequest;
  topic: string;
  budget: number;
}): Promise<ContextAttached> {
  const { request: req } = opts;
  const out: Collected = { drafts: [], refused: [], notes: [] };
  if (req.note?.trim()) out.drafts.push({ kind: 'note', sha256: sha256(req.note), text: req.note });
  if (!opts.workspace) {
    const asked = [...(req.paths ?? []), ...(req.selections ?? []).map((s) => s.path)];
    for (const p of asked) out.refused.push({ path: p, reason: 'cannot be read: the meeting has no workspace folder' });
    if (req.diff) out.refused.push({ path: 'git diff', reason: 'cannot be read: the meeting has no workspace folder' });
  } else {
    const root = path.resolve(opts.workspace);
    const realRoot = await fs.realpath(root).catch(() => root);
    await collectPaths(root, realRoot, req, out);
    await collectSelections(root, realRoot, req, out);
    await collectDiff(realRoot, req, out);
    if (req.decisionsFolder) {
      const found = await relevantDecisions({ root, realRoot, folder: req.decisionsFolder, topic: opts.topic });
      out.refused.push(...found.refused);
      out.drafts.push(...found.items);
    }
  }
  const fitted = fit(out.drafts, opts.budget);
  const cut = [fitted.cut, ...out.notes].filter(Boolean).join(' ');
  return { items: fitted.items, refused: out.refused, budget: opts.budget, ...(cut ? { cut } : {}) };
}
