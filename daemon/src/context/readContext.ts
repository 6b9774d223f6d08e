/**
 * Reads the context a meeting was started with, once: files, folders and globs, editor
 * selections, the git diff, a note and the relevant earlier decisions. Everything read is
 * returned as the body of the `context_attached` event, so minutes and a resumed meeting never
 * read the disk again. Refusals are one line each; the token budget cuts in request order and
 * says what it cut.
 */
import { promises as fs } from 'node:fs';
import type { ContextAttached, ContextItem, ContextRefusal, ContextRequest } from '@roundtable/protocol';
import { countTokens, truncateToTokens } from '../providers/tokens';
import { relevantDecisions } from '../decisions/index';
import { isGlob } from '@roundtable/protocol';
import { sha256, workspaceGate, type WorkspaceGate } from '../gate';
import { IGNORED } from '../gate/git';
import { globMatcher } from '../gate/glob';

/** Most files a glob or folder expands to: a wider pattern is cut with a message. */
export const MAX_GLOB_FILES = 200;

/** A piece cut to fewer tokens than this is left out whole: a stub of a file misleads more than it helps. */
const MIN_USEFUL_TOKENS = 40;

type Draft = Omit<ContextItem, 'tokens' | 'truncated'>;

interface Collected {
  drafts: Draft[];
  refused: ContextRefusal[];
  notes: string[];
  /** The files, folders and globs as asked (workspace-relative) that passed, and each selection's file: the proposed scope. */
  paths: string[];
}

const redactedOf = (r: ContextItem['redacted']): Pick<Draft, 'redacted'> => (r && r.length > 0 ? { redacted: r } : {});

/**
 * Files, folders and globs, every file through the gate. A file named on its own that the gate
 * refuses is refused with its path as asked; every file a folder or glob expanded to that the
 * gate refuses is listed with its own path and reason, so the minutes say what was kept back.
 */
async function collectPaths(gate: WorkspaceGate, req: ContextRequest, out: Collected): Promise<void> {
  const seen = new Set<string>();
  const candidates: { rel: string; named: string; explicit: boolean }[] = [];
  let skipped = 0;
  // A folder's git-ignored files (build output, caches) are counted in one line, every other refusal listed.
  const expanded = (refused: ContextRefusal[]): void => {
    for (const r of refused) {
      if (r.reason === IGNORED) skipped++;
      else out.refused.push(r);
    }
  };
  for (const p of req.paths ?? []) {
    if (isGlob(p)) {
      const files = await gate.files({ match: globMatcher(p), limit: MAX_GLOB_FILES });
      if (files.more)
        out.notes.push(`${p} matched more than ${MAX_GLOB_FILES} files; the first ${MAX_GLOB_FILES} were kept`);
      if (files.passed.length === 0 && files.refused.length === 0)
        out.refused.push({ path: p, reason: 'matches no file' });
      expanded(files.refused);
      if (files.passed.length > 0) out.paths.push(p);
      for (const rel of files.passed) candidates.push({ rel, named: p, explicit: false });
      continue;
    }
    const where = await gate.locate(p);
    if ('reason' in where) {
      out.refused.push(where);
      continue;
    }
    if ((await fs.stat(where.real)).isDirectory()) {
      const files = await gate.files({ dir: where.real, limit: MAX_GLOB_FILES });
      if (files.more)
        out.notes.push(`${p} holds more than ${MAX_GLOB_FILES} files; the first ${MAX_GLOB_FILES} were kept`);
      expanded(files.refused);
      if (files.passed.length > 0) out.paths.push(where.rel);
      for (const rel of files.passed) candidates.push({ rel, named: p, explicit: false });
    } else candidates.push({ rel: where.rel, named: p, explicit: true });
  }
  // Folders and globs were screened by path in one batch each; a file named on its own is asked here.
  if (skipped > 0) out.notes.push(`${skipped} git-ignored file(s) matched by a folder or glob were skipped`);
  for (const c of candidates) {
    if (seen.has(c.rel)) continue;
    seen.add(c.rel);
    const r = await gate.read(c.rel, { screened: !c.explicit });
    if (!r.ok) {
      out.refused.push({ path: c.explicit ? c.named : r.path, reason: r.reason });
      continue;
    }
    if (c.explicit) out.paths.push(r.rel);
    out.drafts.push({ kind: 'file', path: r.rel, sha256: r.sha256, text: r.text, ...redactedOf(r.redacted) });
  }
}

async function collectSelections(gate: WorkspaceGate, req: ContextRequest, out: Collected): Promise<void> {
  for (const sel of req.selections ?? []) {
    const r = await gate.read(sel.path);
    if (!r.ok) {
      out.refused.push({ path: sel.path, reason: r.reason });
      continue;
    }
    out.paths.push(r.rel);
    const from = Math.min(sel.startLine, sel.endLine);
    const to = Math.max(sel.startLine, sel.endLine);
    const text = r.text
      .split('\n')
      .slice(from - 1, to)
      .join('\n');
    const redacted = r.redacted
      .filter((x) => x.line >= from && x.line <= to)
      .map((x) => ({ ...x, line: x.line - from + 1 }));
    out.drafts.push({
      kind: 'selection',
      path: `${r.rel}:${from}-${to}`,
      sha256: sha256(text),
      text,
      ...redactedOf(redacted),
    });
  }
}

/** The diff, file by file through the gate: a refused file is left out and listed with its reason. */
async function collectDiff(gate: WorkspaceGate, req: ContextRequest, out: Collected): Promise<void> {
  if (!req.diff) return;
  const what = req.diff.staged ? ['--staged'] : req.diff.ref ? [req.diff.ref] : [];
  const label = `git diff ${what.join(' ')}`.trim();
  const d = await gate.diff(what);
  if ('error' in d) {
    out.refused.push({ path: label, reason: d.error });
    return;
  }
  out.refused.push(...d.refused);
  if (d.text.trim() === '') {
    out.refused.push({
      path: label,
      reason: d.refused.length > 0 ? 'has nothing the gate lets through' : 'is empty: nothing to discuss',
    });
    return;
  }
  out.drafts.push({ kind: 'diff', path: label, sha256: d.sha256, text: d.text, ...redactedOf(d.redacted) });
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
  const out: Collected = { drafts: [], refused: [], notes: [], paths: [] };
  if (req.note?.trim()) out.drafts.push({ kind: 'note', sha256: sha256(req.note), text: req.note });
  if (!opts.workspace) {
    const asked = [...(req.paths ?? []), ...(req.selections ?? []).map((s) => s.path)];
    for (const p of asked) out.refused.push({ path: p, reason: 'cannot be read: the meeting has no workspace folder' });
    if (req.diff) out.refused.push({ path: 'git diff', reason: 'cannot be read: the meeting has no workspace folder' });
  } else {
    const gate = workspaceGate(opts.workspace);
    await collectPaths(gate, req, out);
    await collectSelections(gate, req, out);
    await collectDiff(gate, req, out);
    if (req.decisionsFolder) {
      const found = await relevantDecisions({ gate, folder: req.decisionsFolder, topic: opts.topic });
      out.refused.push(...found.refused);
      out.drafts.push(...found.items);
    }
  }
  const fitted = fit(out.drafts, opts.budget);
  const cut = [fitted.cut, ...out.notes].filter(Boolean).join(' ');
  const paths = [...new Set(out.paths)].slice(0, 100);
  return {
    items: fitted.items,
    refused: out.refused,
    budget: opts.budget,
    ...(cut ? { cut } : {}),
    ...(paths.length > 0 ? { paths } : {}),
  };
}
