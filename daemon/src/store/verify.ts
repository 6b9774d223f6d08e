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
import { checkEvent } from '@roundtable/protocol';

/** Thrown when the store holds nothing it can trust; the message is one line naming the file and what to do. */
export class StoreCorruptError extends Error {
  override name = 'StoreCorruptError';
}

/** Why a snapshot is not trusted, as a phrase ("an unreadable event row (meeting m seq 3)"), or undefined when it is sound. */
export function verifySnapshot(db: Database): { problem?: string; lastSeq: Map<string, number> } {
  const lastSeq = new Map<string, number>();
  const stmt = db.prepare('SELECT meeting_id, seq, body FROM events ORDER BY meeting_id, seq');
  try {
    while (stmt.step()) {
      const [meetingId, seq, body] = stmt.get() as [string, number, string];
      const expected = (lastSeq.get(meetingId) ?? 0) + 1;
      if (seq !== expected) {
        return { problem: `a gap in meeting ${meetingId} (seq ${seq} follows ${expected - 1})`, lastSeq };
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined;
      }
      // The row must be a valid event of its schema (upcast from older versions), not just JSON.
      const e = parsed === undefined ? undefined : checkEvent(parsed);
      if (!e?.ok || e.value.meetingId !== meetingId || e.value.seq !== seq) {
        const why = e && !e.ok ? `: ${e.error}` : '';
        return { problem: `an unreadable event row (meeting ${meetingId} seq ${seq})${why}`, lastSeq };
      }
      lastSeq.set(meetingId, seq);
    }
  } finally {
    stmt.free();
  }
  return { lastSeq };
}

export interface JournalRead {
  file: string;
  generation: number;
  events: MeetingEvent[];
  /** Bytes to keep: less than the file's size when a crash left a torn last record. */
  keepBytes: number;
  totalBytes: number;
}

/**
 * Reads a journal's complete records without changing the file. A torn last record (a crash
 * mid-write) is left out and reported through `keepBytes`; an unreadable record anywhere else
 * means the journal cannot be trusted, and start-up stops there.
 */
export async function readJournal(file: string, generation: number): Promise<JournalRead> {
  const raw = await fs.readFile(file);
  const text = raw.toString('utf8');
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  let good = text.length - tail.length;
  const events: MeetingEvent[] = [];
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
    if (i === lines.length - 1 && tail.length === 0) {
      // A last line that is complete but unreadable is a torn write too.
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
): string | undefined {
  const present = new Set(journals.map((j) => j.generation));
  const newest = Math.max(covered, ...journals.map((j) => j.generation));
  for (let g = covered + 1; g <= newest; g++) {
    if (!present.has(g)) return `no journal.${g}.ndjson, which it needs`;
  }
  const last = new Map(lastSeq);
  for (const j of journals) {
    for (const e of j.events) {
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
