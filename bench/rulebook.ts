/**
 * The rulebook as a review reads it (at its base commit: one `git ls-tree` and one `git cat-file
 * --batch`) beside the work-tree read the Decisions view and `roundtable decisions` use (the gate
 * per file), for folders of 500 and 2,000 one-screen records in a temporary git repository, in one
 * process. Both read every record (there is no cap on their number), so the time must grow with
 * the records and no faster: the figures are wall times in one run, and the 2,000/500 ratio (4 is
 * linear). While the gate ran secretlint through `@secretlint/core` (gate/content.ts now runs its
 * rules with no profiler) the work tree took 21 s and 739 s here: each lint scanned every mark of
 * the process.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadDecisions } from '../daemon/src/decisions/rulebook';
import { workspaceGate } from '../daemon/src/gate';
import { gitIn } from '../test/fakes/workspace';

export interface RulebookRow {
  records: number;
  atCommitMs: number;
  workTreeMs: number;
  read: number;
}

const record = (i: number): string =>
  `---\nstatus: accepted\ndate: 2025-01-01\nscope:\n  - "services/s${i}/**"\n---\n\n# Decision ${i}: one engine for service ${i}\n\n## Context and Problem Statement\n\n${'Service storage differed; backups and migrations differed for each. '.repeat(12)}\n\n## Decision Outcome\n\nChosen option: Postgres.\n`;

async function one(records: number): Promise<RulebookRow> {
  const base = await mkdtemp(path.join(tmpdir(), 'rt-bench-rulebook-'));
  try {
    const root = path.join(base, 'repo');
    const dir = path.join(root, 'docs', 'decisions');
    await mkdir(dir, { recursive: true });
    for (let i = 0; i < records; i++)
      await writeFile(path.join(dir, `${String(i + 1).padStart(4, '0')}-d.md`), record(i));
    gitIn(root, 'init', '-q');
    gitIn(root, 'add', '-A');
    gitIn(root, 'commit', '-qm', 'records');
    const commit = gitIn(root, 'rev-parse', 'HEAD').toString().trim();
    const gate = workspaceGate(root);
    let t = performance.now();
    const atCommit = await loadDecisions({ gate, folder: 'docs/decisions', at: commit });
    const atCommitMs = performance.now() - t;
    t = performance.now();
    const workTree = await loadDecisions({ gate, folder: 'docs/decisions' });
    const workTreeMs = performance.now() - t;
    const read = atCommit.ok && workTree.ok ? Math.min(atCommit.records.length, workTree.records.length) : 0;
    return { records, atCommitMs: Math.round(atCommitMs), workTreeMs: Math.round(workTreeMs), read };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

export async function benchRulebook(): Promise<{
  rows: RulebookRow[];
  growth: { atCommit: number; workTree: number };
}> {
  const rows: RulebookRow[] = [];
  for (const n of [500, 2_000]) rows.push(await one(n));
  const [small, big] = rows as [RulebookRow, RulebookRow];
  const x = (a: number, b: number) => Math.round((b / Math.max(a, 1)) * 10) / 10;
  return {
    rows,
    growth: { atCommit: x(small.atCommitMs, big.atCommitMs), workTree: x(small.workTreeMs, big.workTreeMs) },
  };
}
