/**
 * Store cost: snapshot export and start-up replay at 1k, 10k and 100k events. sql.js rewrites
 * the whole file on every export, so this is the figure that says how big a store stays fast.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { EventBody } from '@roundtable/protocol';
import { SqliteStore } from '../daemon/src/store/sqliteStore';

export interface StoreRow {
  events: number;
  appendPerSec: number;
  snapshotMs: number;
  snapshotBytes: number;
  startupFromSnapshotMs: number;
  startupFromJournalMs: number;
}

/** A realistic event: a worker contribution of ~120 words. */
function body(i: number): EventBody {
  return {
    type: 'message_posted',
    messageId: `r${i}-ada`,
    from: 'ada',
    role: 'worker',
    round: i,
    kind: 'contribution',
    text: `Contribution ${i}: ${'a reasoned argument with evidence and a caveat, '.repeat(12)}[STANCE: AGREE]`,
    tokens: 130,
  };
}

export async function benchStore(sizes = [1_000, 10_000, 100_000]): Promise<StoreRow[]> {
  const rows: StoreRow[] = [];
  // Stores dropped without close (as after a crash) are kept referenced so their file handles are not GC-closed mid-run.
  const dropped: SqliteStore[] = [];
  for (const n of sizes) {
    const dir = await mkdtemp(path.join(tmpdir(), 'rt-bench-store-'));
    // No automatic snapshots while filling: the export is measured on its own below.
    const store = await SqliteStore.open(dir, {
      snapshotEvery: Number.MAX_SAFE_INTEGER,
      snapshotDebounceMs: 3_600_000,
    });
    const meetings = Math.max(1, Math.round(n / 1_000));
    const t0 = performance.now();
    const batch = 100;
    for (let i = 0; i < n; i += batch) {
      await Promise.all(
        Array.from({ length: Math.min(batch, n - i) }, (_, k) => store.append(`m${(i + k) % meetings}`, body(i + k))),
      );
    }
    const appendMs = performance.now() - t0;
    // Start-up from the journal alone (before any snapshot exists).
    const tj = performance.now();
    const fromJournal = await SqliteStore.open(dir, {
      snapshotEvery: Number.MAX_SAFE_INTEGER,
      snapshotDebounceMs: 3_600_000,
    });
    const startupFromJournalMs = performance.now() - tj;
    await fromJournal.snapshot();
    const stats = await fromJournal.stats();
    // Drop both without close: the snapshot exists, the journals past it are empty.
    const ts = performance.now();
    const fromSnapshot = await SqliteStore.open(dir);
    const startupFromSnapshotMs = performance.now() - ts;
    await fromSnapshot.close();
    rows.push({
      events: n,
      appendPerSec: Math.round(n / (appendMs / 1000)),
      snapshotMs: Math.round(stats.lastSnapshotMs),
      snapshotBytes: stats.snapshotBytes,
      startupFromSnapshotMs: Math.round(startupFromSnapshotMs),
      startupFromJournalMs: Math.round(startupFromJournalMs),
    });
    dropped.push(store, fromJournal);
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
