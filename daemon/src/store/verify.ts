/**
 * What the store checks before it trusts a copy. A snapshot that opens is not enough: one
 * unreadable event row makes every later load of that meeting throw, and a copy missing events
 * would silently shorten a meeting. So a snapshot is trusted (loaded at start-up, or promoted to
 * the fallback copy) only when every event row parses as the event its columns say it is and
 * each meeting's seq run is 1, 2, 3, ... without a gap. Journals are read here without touching
 * them, so a start-up that finds nothing it can trust leaves every file as it was.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import type { MeetingEvent } from '@roundtable/protocol';
import { checkEvent, isRecord } from '@roundtable/protocol';

/** Thrown when the store holds nothing it can trust; the message is one line naming the file and what to do. */
export class StoreCorruptError extends Error {
  override name = 'StoreCorruptError';
}

/**
 * Meetings set aside at start-up: a record the reader refuses (a bad figure written by an older
 * release, an event type written by a newer one) is kept on disk, and its meeting is not loaded.
 * Keyed by meeting; the value says where and why, in one line.
 */
export type Quarantine = Map<string, string>;

/** Records refused by an earlier start, kept in the snapshot's own table (absent in older snapshots). */
export const QUARANTINE_TABLE = `CREATE TABLE IF NOT EXISTS quarantine (file TEXT NOT NULL, line INTEGER NOT NULL,
  meeting_id TEXT NOT NULL, reason TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (file, line))`;

/**
 * Why a snapshot is not trusted, as a phrase ("an unreadable event row (meeting m seq 3)"), or
 * undefined when it is sound. A row that is not JSON, or not the row its columns say, is damage: the
 * copy is not trusted. A row that is the right record but one the reader refuses quarantines its
 * meeting (`quarantined`); the copy stays trusted for every other meeting.
 */
export function verifySnapshot(db: Database): {
  problem?: string;
  lastSeq: Map<string, number>;
  quarantined: Quarantine;
} {
  const lastSeq = new Map<string, number>();
  const quarantined: Quarantine = new Map();
  try {
    for (const [m, file, line, reason] of db.exec('SELECT meeting_id, file, line, reason FROM quarantine')[0]?.values ??
      [])
      if (!quarantined.has(String(m)))
        quarantined.set(String(m), `${String(file)} line ${String(line)}: ${String(reason)}`);
  } catch {
    // A snapshot written before quarantine existed has no such table.
  }
  const stmt = db.prepare('SELECT meeting_id, seq, body FROM events ORDER BY meeting_id, seq');
  try {
    while (stmt.step()) {
      const [meetingId, seq, body] = stmt.get() as [string, number, string];
      const expected = (lastSeq.get(meetingId) ?? 0) + 1;
      if (seq !== expected && !quarantined.has(meetingId)) {
        return { problem: `a gap in meeting ${meetingId} (seq ${seq} follows ${expected - 1})`, lastSeq, quarantined };
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined;
      }
      const own = isRecord(parsed) && parsed.meetingId === meetingId && parsed.seq === seq;
      // The row must be a valid event of its schema (upcast from older versions), not just JSON.
      const e = own ? checkEvent(parsed) : undefined;
      if (!e) return { problem: `an unreadable event row (meeting ${meetingId} seq ${seq})`, lastSeq, quarantined };
      if (!e.ok && !quarantined.has(meetingId))
        quarantined.set(meetingId, `snapshot row seq ${seq}: ${refusal(e.error)}`);
      lastSeq.set(meetingId, seq);
    }
  } finally {
    stmt.free();
  }
  return { lastSeq, quarantined };
}

/** The reader's refusal as a person reads it: a record of a newer release says so. */
function refusal(error: string): string {
  return /unknown type|newer than this Roundtable/.test(error)
    ? `written by a newer Roundtable (${error}); update Roundtable to open it`
    : error;
}

/** A record of a journal the reader refuses, kept as written. */
export interface Refused {
  meetingId: string;
  line: number;
  reason: string;
  body: string;
}

export interface JournalRead {
  file: string;
  generation: number;
  events: MeetingEvent[];
  /** Bytes to keep: less than the file's size when a crash left a torn last record. */
  keepBytes: number;
  totalBytes: number;
  /** Complete records the reader refuses: their meetings are quarantined, the file is left as it is. */
  refused: Refused[];
}

/**
 * Reads a journal's complete records without changing the file. A torn last record (a crash
 * mid-write: no newline, or not JSON) is left out and reported through `keepBytes`. A complete
 * record the reader refuses (a bad figure, a type of a newer release) is never cut: it is reported
 * in `refused` with its meeting, which is quarantined. A line that is not JSON anywhere else, or a
 * refused record that names no meeting, means the journal cannot be trusted: start-up stops there.
 */
export async function readJournal(file: string, generation: number): Promise<JournalRead> {
  const raw = await fs.readFile(file);
  const text = raw.toString('utf8');
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  let good = text.length - tail.length;
  const events: MeetingEvent[] = [];
  const refused: Refused[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.length === 0) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    const event = parsed === undefined ? undefined : checkEvent(parsed);
    if (event?.ok) {
      events.push(event.value);
      continue;
    }
    if (event && isRecord(parsed) && typeof parsed.meetingId === 'string' && parsed.meetingId.length > 0) {
      refused.push({ meetingId: parsed.meetingId, line: i + 1, reason: refusal(event.error), body: line });
      continue;
    }
    if (parsed === undefined && i === lines.length - 1 && tail.length === 0) {
      // A last line that is complete but not JSON is a torn write too.
      good -= line.length + 1;
      break;
    }
    throw new StoreCorruptError(
      `the store journal ${file} line ${i + 1} is corrupt; move that file aside (its events are lost) or restore it from a backup, then start again`,
    );
  }
  return {
    file,
    generation,
    events,
    keepBytes: Buffer.byteLength(text.slice(0, good)),
    totalBytes: raw.length,
    refused,
  };
}

/**
 * Why `journals` cannot complete a snapshot covering generations up to `covered` (whose last seq
 * per meeting is `lastSeq`), or undefined when they do: every later generation must be present and
 * every meeting's events must continue its run without a gap.
 */
export function chainProblem(
  covered: number,
  lastSeq: Map<string, number>,
  journals: JournalRead[],
  quarantined: ReadonlySet<string> = new Set(),
): string | undefined {
  const present = new Set(journals.map((j) => j.generation));
  const newest = Math.max(covered, ...journals.map((j) => j.generation));
  for (let g = covered + 1; g <= newest; g++) {
    if (!present.has(g)) return `no journal.${g}.ndjson, which it needs`;
  }
  const last = new Map(lastSeq);
  for (const j of journals) {
    for (const e of j.events) {
      // A quarantined meeting is not loaded: a refused record leaves a hole in its run.
      if (quarantined.has(e.meetingId)) continue;
      const l = last.get(e.meetingId) ?? 0;
      if (e.seq <= l) continue;
      if (e.seq !== l + 1) {
        return `a gap in meeting ${e.meetingId} (${path.basename(j.file)} has seq ${e.seq} after ${l})`;
      }
      last.set(e.meetingId, e.seq);
    }
  }
  return undefined;
}
