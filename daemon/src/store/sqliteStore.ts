/**
 * Durable event store: an append-only journal for durability, a sql.js database for queries,
 * exported as a snapshot for fast start-up.
 *
 * On disk (in `dir`):
 *   journal.<gen>.ndjson   one event per line; every append is written and fsynced here before
 *                          it is acknowledged (concurrent appends share one fsync: group commit)
 *   store.sqlite           sql.js snapshot; its meta table says up to which journal generation
 *                          it covers everything
 *   store.prev.sqlite      the snapshot before it, kept as the fallback copy
 *
 * A snapshot rotates the journal first (new appends go to generation g+1), exports the database
 * (which then holds everything in generations <= g), writes it to a temp file, fsyncs and renames
 * it over store.sqlite (the old one becomes store.prev.sqlite), fsyncs the directory, and only
 * then deletes the journals the *previous* snapshot covers. So at every instant the events are
 * in (a snapshot that loads) + (journals it does not cover), even if the newest snapshot is
 * corrupt. A snapshot is trusted only once verified (verify.ts): start-up loads the newest one
 * that passes, replays every journal past it (skipping events already present) and truncates a
 * torn last line left by a crash; when none passes and the journals cannot stand in, it fails
 * without changing any file. A snapshot that fails is never promoted to store.prev.sqlite.
 *
 * A write that fails (the disk is full: ENOSPC, EDQUOT, an I/O error) rejects the appends of its
 * batch — none of them was acknowledged — cuts the journal back to its last acknowledged byte and
 * gives their sequence numbers back; the store stays open, and the next append writes again. So
 * once space is freed the running daemon takes meetings again, with nothing acknowledged lost and
 * no torn line between acknowledged ones.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Database, Statement } from 'sql.js';
import type { EventBody, MeetingEvent } from '@roundtable/protocol';
import { EVENT_SCHEMA_VERSION, UsageSchema, checkEvent } from '@roundtable/protocol';
import { StoreWriteError, checkAppend, type EventStore, type QuarantinedMeeting } from './types';
import { SNAPSHOT, fsyncDir, installSnapshot, journalFiles, recover } from './storeFiles';
import { QUARANTINE_TABLE, type Quarantine } from './verify';
import { ensureDir } from '@roundtable/client/outputDir';
import { keepRefused, listQuarantined, quarantinedError } from './quarantine';

export interface SqliteStoreOptions {
  /** Delay after the last append before a snapshot is written (default 1,000 ms). */
  snapshotDebounceMs?: number;
  /** Journal lines after which a snapshot is written even while appends keep coming (default 5,000). */
  snapshotEvery?: number;
  now?: () => number;
  log?: (line: string) => void;
}

export interface StoreStats {
  events: number;
  meetings: number;
  snapshotBytes: number;
  journalBytes: number;
  lastSnapshotMs: number;
}

interface Pending {
  event: MeetingEvent;
  line: string;
  resolve: (e: MeetingEvent) => void;
  reject: (e: Error) => void;
}

/**
 * Rows were checked when the store was opened; on the way out they are read by the reader's rules
 * where those change anything: rows of an older version are upcast, and usage figures of the
 * previous release made whole (UsageSchema), so every reader sees one schema.
 */
function currentVersion(e: MeetingEvent): MeetingEvent {
  if (e.v !== EVENT_SCHEMA_VERSION) {
    const c = checkEvent(e);
    return c.ok ? c.value : e;
  }
  if (e.type !== 'usage_recorded') return e;
  const u = UsageSchema.safeParse(e.usage);
  return u.success ? { ...e, usage: u.data } : e;
}

/** The journal being appended to, and its size up to the last acknowledged byte. */
interface Journal {
  fh: fs.FileHandle;
  size: number;
  /** Rotated away while torn: closed once it is cut back. */
  retired?: boolean;
}

export class SqliteStore implements EventStore {
  private journal!: Journal;
  private generation = 0;
  private journalBytes = 0;
  private linesSinceSnapshot = 0;
  private readonly lastSeq = new Map<string, number>();
  /** Meetings set aside at start-up (see verify.ts): kept on disk, never loaded or appended to. */
  private quarantine: Quarantine = new Map();
  /** The last seq per meeting that is on disk: where `lastSeq` goes back to when a write fails. */
  private readonly durableSeq = new Map<string, number>();
  /** Journals a failed write left longer than their acknowledged bytes, not yet cut back. */
  private readonly torn = new Set<Journal>();
  private queue: Pending[] = [];
  private flushing: Promise<void> | undefined;
  private snapshotTimer: NodeJS.Timeout | undefined;
  private snapshotting: Promise<void> | undefined;
  private closed = false;
  /** Set by abandon(): from then on no snapshot is written. */
  private abandoned = false;
  private lastSnapshotMs = 0;
  private insert!: Statement;
  private readonly now: () => number;
  private readonly log: (line: string) => void;

  private constructor(
    private readonly dir: string,
    private db: Database,
    private readonly opts: SqliteStoreOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? (() => undefined);
  }

  static async open(dir: string, opts: SqliteStoreOptions = {}): Promise<SqliteStore> {
    await ensureDir(dir, 0o700);
    const { chosen, journals, quarantined } = await recover(dir, opts.log ?? (() => undefined));
    const db = chosen.db;
    db.run(`CREATE TABLE IF NOT EXISTS meetings (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, topic TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS events (meeting_id TEXT NOT NULL, seq INTEGER NOT NULL, at INTEGER NOT NULL,
              type TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (meeting_id, seq));
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            ${QUARANTINE_TABLE};`);
    const store = new SqliteStore(dir, db, opts);
    store.quarantine = quarantined;
    keepRefused(db, quarantined, journals, store.log);
    store.insert = db.prepare('INSERT OR IGNORE INTO events (meeting_id, seq, at, type, body) VALUES (?, ?, ?, ?, ?)');
    for (const [m, seq] of chosen.lastSeq) store.lastSeq.set(m, seq);
    let maxGen = chosen.covered;
    for (const j of journals) {
      maxGen = Math.max(maxGen, j.generation);
      db.run('BEGIN');
      for (const e of j.events) store.apply(e);
      db.run('COMMIT');
    }
    store.generation = maxGen + 1;
    store.journal = { fh: await fs.open(path.join(dir, `journal.${store.generation}.ndjson`), 'a', 0o600), size: 0 };
    store.journal.size = (await store.journal.fh.stat()).size;
    for (const [m, seq] of store.lastSeq) store.durableSeq.set(m, seq);
    fsyncDir(dir);
    return store;
  }

  private apply(e: MeetingEvent): void {
    const last = this.lastSeq.get(e.meetingId) ?? 0;
    if (e.seq <= last) return;
    this.insert.run([e.meetingId, e.seq, e.at, e.type, JSON.stringify(e)]);
    this.lastSeq.set(e.meetingId, e.seq);
    if (e.type === 'meeting_opened') {
      this.db.run('INSERT OR IGNORE INTO meetings (id, created_at, topic) VALUES (?, ?, ?)', [
        e.meetingId,
        e.at,
        e.topic,
      ]);
    }
  }

  append(meetingId: string, body: EventBody): Promise<MeetingEvent> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    const aside = quarantinedError(this.quarantine, meetingId);
    if (aside) return Promise.reject(aside);
    const seq = (this.lastSeq.get(meetingId) ?? 0) + 1;
    const event: MeetingEvent = { ...body, meetingId, seq, at: this.now(), v: EVENT_SCHEMA_VERSION };
    // A record the reader would refuse is never written: its seq is not taken.
    const refused = checkAppend(event);
    if (refused) return Promise.reject(refused);
    this.lastSeq.set(meetingId, seq);
    return new Promise<MeetingEvent>((resolve, reject) => {
      this.queue.push({ event, line: `${JSON.stringify(event)}\n`, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.flushing) return;
    // Start the write on the next turn of the event loop, so every append made in this one
    // (a reply, its stance and its usage, say) shares one write and one fsync.
    this.flushing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.flush())
      .finally(() => {
        this.flushing = undefined;
        // Appends made while the last batch was being acknowledged start the next one.
        if (this.queue.length > 0) this.kick();
      });
  }

  /** Writes and fsyncs everything queued, then makes it visible; appends queued meanwhile share the next fsync. */
  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      // The whole batch goes to one journal, even if a snapshot rotates the journal meanwhile.
      const journal = this.journal;
      const buf = Buffer.from(batch.map((p) => p.line).join(''), 'utf8');
      try {
        await this.mend();
        let off = 0;
        while (off < buf.length) off += (await journal.fh.write(buf, off)).bytesWritten;
        await journal.fh.datasync();
      } catch (e) {
        await this.refuse(batch, journal, e as Error);
        continue;
      }
      journal.size += buf.length;
      this.journalBytes += buf.length;
      for (const p of batch) this.durableSeq.set(p.event.meetingId, p.event.seq);
      this.db.run('BEGIN');
      for (const p of batch) {
        this.insert.run([p.event.meetingId, p.event.seq, p.event.at, p.event.type, p.line.slice(0, -1)]);
        if (p.event.type === 'meeting_opened') {
          this.db.run('INSERT OR IGNORE INTO meetings (id, created_at, topic) VALUES (?, ?, ?)', [
            p.event.meetingId,
            p.event.at,
            p.event.topic,
          ]);
        }
      }
      this.db.run('COMMIT');
      this.linesSinceSnapshot += batch.length;
      for (const p of batch) p.resolve(p.event);
      this.scheduleSnapshot();
    }
  }

  /**
   * A failed write: its appends (and those queued behind them, whose seqs follow theirs) are
   * refused, their seqs given back, and the journal cut back to its acknowledged bytes, so the
   * next write starts on a clean line. The store stays open.
   */
  private async refuse(batch: Pending[], journal: Journal, e: Error): Promise<void> {
    const code = (e as NodeJS.ErrnoException).code;
    const error = new StoreWriteError(
      `the store cannot write its journal${code === 'ENOSPC' || code === 'EDQUOT' ? ' (the disk is full: free some space and try again)' : ''}: ${e.message}`,
    );
    const refused = [...batch, ...this.queue.splice(0)];
    for (const p of refused) this.lastSeq.set(p.event.meetingId, this.durableSeq.get(p.event.meetingId) ?? 0);
    this.torn.add(journal);
    await this.mend().catch(() => undefined);
    this.log(`store: ${error.message}`);
    for (const p of refused) p.reject(error);
  }

  /** Cuts the journals a failed write left torn back to their acknowledged bytes (again, until it works). */
  private async mend(): Promise<void> {
    for (const torn of [...this.torn]) {
      await torn.fh.truncate(torn.size);
      await torn.fh.datasync();
      this.torn.delete(torn);
      if (torn.retired) await torn.fh.close(); // rotated away, kept open only to be cut back
    }
  }

  private scheduleSnapshot(): void {
    if (this.closed || this.abandoned) return;
    if (this.linesSinceSnapshot >= (this.opts.snapshotEvery ?? 5_000)) {
      void this.snapshot().catch((e: unknown) => this.log(`store: snapshot failed: ${(e as Error).message}`));
      return;
    }
    if (this.snapshotTimer) clearTimeout(this.snapshotTimer);
    this.snapshotTimer = setTimeout(() => {
      this.snapshotTimer = undefined;
      void this.snapshot().catch((e: unknown) => this.log(`store: snapshot failed: ${(e as Error).message}`));
    }, this.opts.snapshotDebounceMs ?? 1_000);
    this.snapshotTimer.unref();
  }

  /** Writes a snapshot now (see the file comment for why each step is where it is). */
  snapshot(): Promise<void> {
    if (this.abandoned) return Promise.resolve();
    this.snapshotting ??= this.writeSnapshot().finally(() => (this.snapshotting = undefined));
    return this.snapshotting;
  }

  private async writeSnapshot(): Promise<void> {
    await this.flushing;
    if (this.linesSinceSnapshot === 0 && this.lastSnapshotMs > 0) return;
    const started = performance.now();
    // Rotate: from here on, appends go to the next generation, which this snapshot does not cover.
    const covered = this.generation;
    const oldJournal = this.journal;
    // Opened before the generation moves: a disk too full for a new file changes nothing.
    const next = await fs.open(path.join(this.dir, `journal.${this.generation + 1}.ndjson`), 'a', 0o600);
    this.generation += 1;
    this.journal = { fh: next, size: 0 };
    await this.flushing; // an append that raced the rotation lands in the old journal before we export
    this.db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('covered_generation', ?)", [String(covered)]);
    const bytes = this.db.export();
    // db.export() resets prepared statements in sql.js; prepare the insert again.
    this.insert = this.db.prepare(
      'INSERT OR IGNORE INTO events (meeting_id, seq, at, type, body) VALUES (?, ?, ?, ?, ?)',
    );
    this.linesSinceSnapshot = 0;
    await this.mend().catch(() => undefined); // a torn old journal is cut back before it is closed
    if (this.torn.has(oldJournal)) oldJournal.retired = true;
    else await oldJournal.fh.close();
    try {
      await installSnapshot(this.dir, bytes, this.log);
    } catch (e) {
      this.linesSinceSnapshot += 1; // every journal is kept; the next snapshot tries again
      throw e;
    }
    this.journalBytes = 0;
    for (const file of await journalFiles(this.dir)) this.journalBytes += (await fs.stat(file)).size;
    this.lastSnapshotMs = performance.now() - started;
  }

  /** Meetings set aside at start-up, with their topic and start where the opening record was readable. */
  quarantined(): QuarantinedMeeting[] {
    return listQuarantined(this.db, this.quarantine);
  }

  load(meetingId: string, sinceSeq = 0): Promise<MeetingEvent[]> {
    const aside = quarantinedError(this.quarantine, meetingId);
    if (aside) return Promise.reject(aside);
    const stmt = this.db.prepare('SELECT body FROM events WHERE meeting_id = ? AND seq > ? ORDER BY seq');
    const out: MeetingEvent[] = [];
    try {
      stmt.bind([meetingId, sinceSeq]);
      while (stmt.step()) out.push(currentVersion(JSON.parse(String(stmt.get()[0])) as MeetingEvent));
    } finally {
      stmt.free();
    }
    return Promise.resolve(out);
  }

  meetings(): Promise<string[]> {
    const rows = this.db.exec('SELECT id FROM meetings ORDER BY created_at, id')[0]?.values ?? [];
    return Promise.resolve(rows.map((r) => String(r[0])).filter((id) => !this.quarantine.has(id)));
  }

  /**
   * Forgets a meeting (deleted from history). Its rows go from the database, then two snapshots
   * are written: the first covers the journals that hold its events, the second replaces the
   * fallback copy and deletes those journals, so no file on disk brings it back at the next start.
   */
  async remove(meetingId: string): Promise<void> {
    if (this.closed) throw new Error('the store is closed');
    await this.flushing;
    this.db.run('DELETE FROM events WHERE meeting_id = ?', [meetingId]);
    this.db.run('DELETE FROM meetings WHERE id = ?', [meetingId]);
    for (let i = 0; i < 2; i++) {
      await this.snapshotting;
      this.linesSinceSnapshot += 1; // a snapshot is due even with no new append
      await this.snapshot();
    }
  }

  async stats(): Promise<StoreStats> {
    const events = Number(this.db.exec('SELECT count(*) FROM events')[0]?.values[0]?.[0] ?? 0);
    const meetings = Number(this.db.exec('SELECT count(*) FROM meetings')[0]?.values[0]?.[0] ?? 0);
    const snapshotBytes = await fs
      .stat(path.join(this.dir, SNAPSHOT))
      .then((s) => s.size)
      .catch(() => 0);
    return { events, meetings, snapshotBytes, journalBytes: this.journalBytes, lastSnapshotMs: this.lastSnapshotMs };
  }

  /** Flushes every acknowledged append, writes a final snapshot and closes the journal. */
  async close(): Promise<void> {
    await this.shut(true);
  }

  /**
   * Flushes every acknowledged append and closes the journal, writing no snapshot and rotating
   * nothing: for a start-up that failed, which must leave the files as a person will find them.
   */
  async abandon(): Promise<void> {
    await this.shut(false);
  }

  private async shut(snapshot: boolean): Promise<void> {
    if (this.closed) return;
    if (!snapshot) this.abandoned = true;
    if (this.snapshotTimer) clearTimeout(this.snapshotTimer);
    await this.flushing;
    if (snapshot)
      await this.snapshot().catch((e: unknown) => this.log(`store: snapshot failed: ${(e as Error).message}`));
    else await this.snapshotting?.catch(() => undefined);
    this.closed = true;
    await this.mend().catch(() => undefined);
    for (const t of this.torn) if (t.retired) await t.fh.close().catch(() => undefined);
    await this.journal.fh.close();
    this.insert.free();
    this.db.close();
  }
}
