/**
 * Meetings set aside at start-up (verify.ts says which and why): the records the reader refused
 * are kept in the database's quarantine table, so every later snapshot holds them as written after
 * their journals are gone, and the meeting is neither loaded nor appended to.
 */
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { StoreQuarantinedError, type QuarantinedMeeting } from './types';
import type { JournalRead, Quarantine } from './verify';

/** Keeps the journals' refused records in the quarantine table, and says once per meeting why it is not loaded. */
export function keepRefused(
  db: Database,
  quarantined: Quarantine,
  journals: JournalRead[],
  log: (line: string) => void,
): void {
  for (const j of journals)
    for (const r of j.refused)
      db.run('INSERT OR IGNORE INTO quarantine (file, line, meeting_id, reason, body) VALUES (?, ?, ?, ?, ?)', [
        path.basename(j.file),
        r.line,
        r.meetingId,
        r.reason,
        r.body,
      ]);
  for (const [m, why] of quarantined)
    log(`store: meeting ${m} is quarantined (${why}): kept on disk, not loaded; every other meeting is`);
}

/** The one-line error for a quarantined meeting, or undefined when it is not one. */
export function quarantinedError(quarantined: Quarantine, meetingId: string): StoreQuarantinedError | undefined {
  const why = quarantined.get(meetingId);
  return why === undefined
    ? undefined
    : new StoreQuarantinedError(
        `meeting ${meetingId} is quarantined: this daemon cannot read its log (${why}); it is kept on disk, not loaded`,
      );
}

/** The quarantined meetings, with topic and start where their opening record was readable. */
export function listQuarantined(db: Database, quarantined: Quarantine): QuarantinedMeeting[] {
  return [...quarantined].map(([meetingId, why]) => {
    const row = db.exec('SELECT topic, created_at FROM meetings WHERE id = ?', [meetingId])[0]?.values[0];
    return { meetingId, why, ...(row ? { topic: String(row[0]), createdAt: Number(row[1]) } : {}) };
  });
}
