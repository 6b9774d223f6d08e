/**
 * The store's files on disk (layout and rules in sqliteStore.ts): which snapshot and journals to
 * trust at start-up, and how a newly exported snapshot is put in place.
 */
import { promises as fs, openSync, closeSync, fsyncSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import type { Database, SqlJsStatic } from 'sql.js';
import {
  StoreCorruptError,
  chainProblem,
  readJournal,
  verifySnapshot,
  type JournalRead,
  type Quarantine,
} from './verify';

export const SNAPSHOT = 'store.sqlite';
const PREVIOUS = 'store.prev.sqlite';
const JOURNAL_RE = /^journal\.(\d+)\.ndjson$/;

let sqlPromise: Promise<SqlJsStatic> | undefined;
export function sql(): Promise<SqlJsStatic> {
  sqlPromise ??= initSqlJs({ locateFile: wasmFile });
  return sqlPromise;
}

/**
 * The bundled daemon finds sql.js's engine beside itself (the build copies it to dist/daemon);
 * run from source (tests, benchmarks), it is the one in sql.js's own package.
 */
function wasmFile(name: string): string {
  const beside = path.join(__dirname, name);
  return existsSync(beside) ? beside : createRequire(__filename).resolve(`sql.js/dist/${name}`);
}

/** Journal files of a store directory, oldest generation first. */
export async function journalFiles(dir: string): Promise<string[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  return names
    .map((n) => [n, Number(JOURNAL_RE.exec(n)?.[1] ?? NaN)] as const)
    .filter(([, g]) => Number.isInteger(g))
    .sort((a, b) => a[1] - b[1])
    .map(([n]) => path.join(dir, n));
}

export function generationOf(file: string): number {
  return Number(JOURNAL_RE.exec(path.basename(file))?.[1] ?? -1);
}

export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The trusted copy a store opens from, every journal (torn tails already cut), and the meetings set aside. */
export interface Recovered {
  chosen: { db: Database; covered: number; lastSeq: Map<string, number>; from: string };
  journals: JournalRead[];
  quarantined: Quarantine;
}

export async function recover(dir: string, log: (line: string) => void): Promise<Recovered> {
  const SQL = await sql();
  // Nothing is changed on disk until a trusted copy is chosen: a start-up that finds none
  // leaves every file exactly as it was, for a person (or a backup) to put right.
  const journals: JournalRead[] = [];
  for (const file of await journalFiles(dir)) journals.push(await readJournal(file, generationOf(file)));
  const quarantined: Quarantine = new Map();
  for (const j of journals)
    for (const r of j.refused)
      if (!quarantined.has(r.meetingId))
        quarantined.set(r.meetingId, `${path.basename(j.file)} line ${r.line}: ${r.reason}`);
  const rejected: { name: string; problem: string }[] = [];
  let chosen: Recovered['chosen'] | undefined;
  for (const name of [SNAPSHOT, PREVIOUS]) {
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(path.join(dir, name));
    } catch {
      continue;
    }
    let candidate: Database | undefined;
    try {
      candidate = new SQL.Database(bytes);
      const row = candidate.exec("SELECT value FROM meta WHERE key = 'covered_generation'");
      const covered = Number(row[0]?.values[0]?.[0] ?? -1);
      const verified = verifySnapshot(candidate);
      const aside = new Set([...quarantined.keys(), ...verified.quarantined.keys()]);
      const gap = verified.problem ?? chainProblem(covered, verified.lastSeq, journals, aside);
      if (gap) throw new Error(gap);
      chosen = { db: candidate, covered, lastSeq: verified.lastSeq, from: name };
      for (const [m, why] of verified.quarantined) if (!quarantined.has(m)) quarantined.set(m, why);
      break;
    } catch (e) {
      candidate?.close();
      rejected.push({ name, problem: (e as Error).message });
    }
  }
  if (!chosen) {
    const problem = chainProblem(-1, new Map(), journals, new Set(quarantined.keys()));
    if (problem) {
      const first = rejected[0];
      const where = path.join(dir, first?.name ?? '');
      throw new StoreCorruptError(
        first
          ? `the store at ${where} holds ${first.problem}${rejected[1] ? ` and ${PREVIOUS} holds ${rejected[1].problem}` : ''}, and the journals cannot replace it (${problem}); move it aside or restore ${PREVIOUS} from a backup, then start again`
          : `the store at ${dir} has no snapshot and its journals are incomplete (${problem}); restore store.sqlite from a backup or move the folder aside, then start again`,
      );
    }
    chosen = { db: new SQL.Database(), covered: -1, lastSeq: new Map(), from: 'the journals alone' };
  }
  // A copy was chosen: now set aside what was not trusted, and cut torn journal tails.
  for (const r of rejected) {
    const kept = `${path.join(dir, r.name)}.corrupt-${Date.now()}`;
    await fs.rename(path.join(dir, r.name), kept);
    log(
      `store: snapshot ${r.name} is corrupt (${r.problem}); kept it as ${path.basename(kept)} and recovered from ${chosen.from === 'the journals alone' ? 'the journals' : `${chosen.from} and the journals`}`,
    );
  }
  for (const j of journals) {
    if (j.keepBytes >= j.totalBytes) continue;
    log(
      `store: ignored a torn record at the end of ${path.basename(j.file)} (${j.totalBytes - j.keepBytes} bytes, left by a crash)`,
    );
    await fs.truncate(j.file, j.keepBytes);
  }
  return { chosen, journals, quarantined };
}

/**
 * Puts exported database `bytes` in place as the newest snapshot, promotes the current one to
 * the fallback copy, and deletes the journals that fallback covers.
 */
export async function installSnapshot(dir: string, bytes: Uint8Array, log: (line: string) => void): Promise<void> {
  const tmp = path.join(dir, `${SNAPSHOT}.tmp`);
  const fh = await fs.open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(bytes);
    await fh.sync();
  } catch (e) {
    // A disk too full for the copy: the half-written file goes, so it holds no space it cannot use.
    await fh.close().catch(() => undefined);
    await fs.rm(tmp, { force: true });
    throw e;
  }
  await fh.close();
  const snapshotFile = path.join(dir, SNAPSHOT);
  const previousFile = path.join(dir, PREVIOUS);
  // The current snapshot becomes the fallback copy only if it is verified: its covered journals
  // are deleted below on the strength of that copy. One that fails is set aside, never deleted.
  let previousCovered = -1;
  let current: Database | undefined;
  try {
    const SQL = await sql();
    current = new SQL.Database(await fs.readFile(snapshotFile));
    const { problem } = verifySnapshot(current);
    if (problem) throw new Error(problem);
    previousCovered = Number(
      current.exec("SELECT value FROM meta WHERE key = 'covered_generation'")[0]?.values[0]?.[0] ?? -1,
    );
    await fs.rename(snapshotFile, previousFile);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      const kept = `${snapshotFile}.corrupt-${Date.now()}`;
      await fs.rename(snapshotFile, kept).catch(() => undefined);
      previousCovered = -1;
      log(
        `store: snapshot ${SNAPSHOT} failed its check (${(e as Error).message}); kept it as ${path.basename(kept)} and kept every journal`,
      );
    }
  } finally {
    current?.close();
  }
  await fs.rename(tmp, snapshotFile);
  fsyncDir(dir);
  // Journals the fallback copy already covers are no longer needed by anyone.
  for (const file of await journalFiles(dir)) {
    if (generationOf(file) <= previousCovered) await fs.rm(file, { force: true });
  }
}
