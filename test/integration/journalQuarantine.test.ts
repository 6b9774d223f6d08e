/**
 * One bad record never stops the daemon for good. A record the reader refuses (a figure written by
 * an older release, an event type of a newer one) quarantines its meeting — kept on disk, byte for
 * byte, not loaded, listed with where and why — and every other meeting opens. A torn last line
 * (a crash mid-write) is the only thing ever cut. And the store never writes what it would refuse.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import initSqlJs from 'sql.js';
import type { EventBody, MeetingEvent } from '@roundtable/protocol';
import { DEFAULT_CONFIG, EVENT_SCHEMA_VERSION, fold } from '@roundtable/protocol';
import { connectDaemon, readMeeting } from '@roundtable/client';
import { SqliteStore } from '../../daemon/src/store/sqliteStore';
import { journalFiles } from '../../daemon/src/store/storeFiles';
import { StoreQuarantinedError, StoreRecordError } from '../../daemon/src/store/types';
import { cli, ensureBuilt } from '../fakes/cli';
import { spawnDaemonProcess, tempDataDir } from '../fakes/daemon';
import { humanPost as human } from '../fakes/given';
import { panel } from '../fakes/meetings';

const opened = (topic: string): EventBody => ({
  type: 'meeting_opened',
  topic,
  mode: 'roundtable',
  participants: panel(['ada', 'grace'], false),
  config: { ...DEFAULT_CONFIG },
});

/** A usage record as a release that stored usage unchecked wrote it. */
function usageLine(meetingId: string, seq: number, usage: Record<string, unknown>): string {
  const e = { type: 'usage_recorded', participant: 'ada', role: 'worker', purpose: 'turn', round: 1, usage };
  return `${JSON.stringify({ ...e, meetingId, seq, at: 1_700_000_000_000 + seq, v: EVENT_SCHEMA_VERSION })}\n`;
}

const sha = async (file: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

/** A store with a good meeting (three events) and a second one opened; closed, so a snapshot holds both. */
async function twoMeetings(): Promise<{ dir: string; good: MeetingEvent[]; journal: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rt-quarantine-'));
  const s = await SqliteStore.open(dir);
  const good = [await s.append('good', opened('kept')), await s.append('good', human(1))];
  await s.append('bad', opened('the one with a bad record'));
  good.push(await s.append('good', human(2)));
  await s.close();
  return { dir, good, journal: (await journalFiles(dir)).at(-1) as string };
}

async function open(dir: string): Promise<{ s: SqliteStore; lines: string[] }> {
  const lines: string[] = [];
  return { s: await SqliteStore.open(dir, { log: (l) => lines.push(l) }), lines };
}

describe('a record the reader refuses quarantines its meeting, and only that', () => {
  it('opens a store whose journal holds a negative figure mid-file, keeping every other meeting and the file byte-identical', async () => {
    const { dir, good, journal } = await twoMeetings();
    await appendFile(journal, usageLine('bad', 2, { promptTokens: -5, completionTokens: 20, source: 'provider' }));
    await appendFile(journal, JSON.stringify({ ...human(3), meetingId: 'bad', seq: 3, at: 3, v: 2 }) + '\n');
    const before = await sha(journal);
    const { s, lines } = await open(dir);
    assert.deepEqual(await s.load('good'), good);
    assert.deepEqual(await s.meetings(), ['good'], 'the quarantined meeting is not resumed');
    const [q] = s.quarantined();
    assert.equal(q?.meetingId, 'bad');
    assert.equal(q?.topic, 'the one with a bad record');
    assert.match(
      q?.why ?? '',
      new RegExp(`^${path.basename(journal).replace('.', '\\.')} line 1: event 2 \\(usage_recorded\\)`),
    );
    const said = lines.filter((l) => /quarantined/.test(l));
    assert.equal(said.length, 1, lines.join('\n'));
    assert.match(
      said[0] ?? '',
      /meeting bad is quarantined \(journal\.\d+\.ndjson line 1: .*\): kept on disk, not loaded/,
    );
    assert.equal(await sha(journal), before, 'not a byte of the journal changed');
    await s.close();
  });

  it('refuses to load or append to a quarantined meeting, in one line', async () => {
    const { dir, journal } = await twoMeetings();
    await appendFile(journal, usageLine('bad', 2, { promptTokens: 10, completionTokens: '12660', source: 'provider' }));
    const { s } = await open(dir);
    await assert.rejects(
      s.load('bad'),
      (e: Error) =>
        e instanceof StoreQuarantinedError && /meeting bad is quarantined/.test(e.message) && !e.message.includes('\n'),
    );
    await assert.rejects(s.append('bad', human(9)), StoreQuarantinedError);
    assert.equal((await s.append('good', human(9))).seq, 4, 'the other meeting goes on');
    await s.close();
  });

  it('never cuts a complete last record of a type it does not know: the file stays byte-identical and the meeting is marked as written by a newer Roundtable', async () => {
    const { dir, journal } = await twoMeetings();
    const newer = {
      type: 'vote_delegated',
      to: 'grace',
      weight: 2,
      note: 'x'.repeat(2_600),
      meetingId: 'bad',
      seq: 2,
      at: 9,
      v: 2,
    };
    await appendFile(journal, `${JSON.stringify(newer)}\n`);
    const before = await sha(journal);
    const size = (await readFile(journal)).length;
    const { s, lines } = await open(dir);
    assert.equal(await sha(journal), before);
    assert.equal((await readFile(journal)).length, size, 'no bytes lost');
    assert.ok(!lines.some((l) => /torn/.test(l)), lines.join('\n'));
    assert.match(
      s.quarantined()[0]?.why ?? '',
      /written by a newer Roundtable \(event has an unknown type "vote_delegated"\)/,
    );
    await s.close();
  });

  it('treats a record of a newer event version the same way', async () => {
    const { dir, journal } = await twoMeetings();
    await appendFile(
      journal,
      `${JSON.stringify({ ...human(5), meetingId: 'bad', seq: 2, at: 9, v: EVENT_SCHEMA_VERSION + 1 })}\n`,
    );
    const before = await sha(journal);
    const { s } = await open(dir);
    assert.match(s.quarantined()[0]?.why ?? '', /written by a newer Roundtable \(event version \d+ is newer/);
    assert.equal(await sha(journal), before);
    await s.close();
  });

  it('still cuts a torn last line, and only it, after a refused record', async () => {
    const { dir, journal } = await twoMeetings();
    const refused = usageLine('bad', 2, { promptTokens: -1, completionTokens: 1, source: 'provider' });
    await appendFile(journal, refused);
    const kept = (await readFile(journal)).length;
    await appendFile(journal, '{"meetingId":"good","seq":4,"type":"human_po');
    const { s, lines } = await open(dir);
    assert.equal((await readFile(journal)).length, kept, 'the torn tail is cut, the refused record is not');
    assert.ok(lines.some((l) => /ignored a torn record/.test(l)));
    assert.deepEqual(
      s.quarantined().map((q) => q.meetingId),
      ['bad'],
    );
    await s.close();
  });

  it('refuses to start on a complete last line that names no meeting, changing no file', async () => {
    const { dir, journal } = await twoMeetings();
    await appendFile(journal, '{"type":"usage_recorded","seq":4}\n');
    const before = await sha(journal);
    await assert.rejects(SqliteStore.open(dir), /line 1 is corrupt/);
    assert.equal(await sha(journal), before);
  });

  it('keeps trusting and promoting a snapshot whose refused row quarantines one meeting, setting nothing aside as corrupt', async () => {
    const { dir, good } = await twoMeetings();
    // An older release wrote the record to the journal and the database; a snapshot then took it.
    const SQL = await initSqlJs();
    const file = path.join(dir, 'store.sqlite');
    const db = new SQL.Database(await readFile(file));
    const row = usageLine('bad', 2, { promptTokens: 1e300, completionTokens: 3, source: 'provider' }).trim();
    db.run('INSERT INTO events (meeting_id, seq, at, type, body) VALUES (?, ?, ?, ?, ?)', [
      'bad',
      2,
      2,
      'usage_recorded',
      row,
    ]);
    await import('node:fs/promises').then((fs) => fs.writeFile(file, db.export()));
    db.close();
    const { s } = await open(dir);
    assert.match(s.quarantined()[0]?.why ?? '', /snapshot row seq 2: event 2 \(usage_recorded\)/);
    assert.deepEqual(await s.load('good'), good);
    await s.append('good', human(7));
    await s.snapshot();
    await s.append('good', human(8));
    await s.close();
    assert.ok(!(await readdir(dir)).some((f) => f.includes('.corrupt-')), (await readdir(dir)).join(' '));
    const { s: again } = await open(dir);
    assert.equal((await again.load('good')).length, 5);
    assert.deepEqual(
      again.quarantined().map((q) => q.meetingId),
      ['bad'],
    );
    await again.close();
  });

  it('keeps the refused record as written after snapshots delete its journal', async () => {
    const { dir, journal } = await twoMeetings();
    const line = usageLine('bad', 2, { promptTokens: 'NaN', completionTokens: 3, source: 'provider' });
    await appendFile(journal, line);
    const { s } = await open(dir);
    for (let i = 0; i < 3; i++) {
      await s.append('good', human(10 + i));
      await s.snapshot();
    }
    await s.close();
    assert.equal(existsSync(journal), false, 'its journal is gone');
    const SQL = await initSqlJs();
    const db = new SQL.Database(await readFile(path.join(dir, 'store.sqlite')));
    assert.equal(db.exec("SELECT body FROM quarantine WHERE meeting_id = 'bad'")[0]?.values[0]?.[0], line.trimEnd());
    db.close();
    const { s: again } = await open(dir);
    assert.match(again.quarantined()[0]?.why ?? '', /journal\.\d+\.ndjson line 1/);
    await again.close();
  });
});

describe('old logs are read leniently where that is safe', () => {
  it('reads fractional figures written by the previous release as whole numbers, without quarantine', async () => {
    const { dir, journal } = await twoMeetings();
    await appendFile(journal, usageLine('bad', 2, { promptTokens: 120.6, completionTokens: 33.2, source: 'provider' }));
    await appendFile(journal, JSON.stringify({ ...human(3), meetingId: 'bad', seq: 3, at: 3, v: 2 }) + '\n');
    const { s } = await open(dir);
    assert.deepEqual(s.quarantined(), []);
    const state = fold(await s.load('bad'));
    assert.deepEqual(
      [state.usageByParticipant.ada?.promptTokens, state.usageByParticipant.ada?.completionTokens],
      [121, 33],
    );
    await s.close();
  });

  it('reads cached tokens above the prompt (taken as reported before) as the prompt', async () => {
    const { dir, journal } = await twoMeetings();
    await appendFile(
      journal,
      usageLine('bad', 2, { promptTokens: 800, completionTokens: 5, cachedTokens: 900, source: 'provider' }),
    );
    const { s } = await open(dir);
    assert.equal(fold(await s.load('bad')).usageByParticipant.ada?.cachedTokens, 800);
    await s.close();
  });

  it('does not guess at a negative or absurd figure: that meeting is quarantined', async () => {
    const { dir, journal } = await twoMeetings();
    await appendFile(journal, usageLine('bad', 2, { promptTokens: 2e9, completionTokens: 5, source: 'provider' }));
    const { s } = await open(dir);
    assert.deepEqual(
      s.quarantined().map((q) => q.meetingId),
      ['bad'],
    );
    await s.close();
  });
});

describe('a record the reader would refuse is never written', () => {
  const bad: [string, Record<string, unknown>][] = [
    ['a negative figure', { promptTokens: -5, completionTokens: 3, source: 'provider' }],
    ['a figure as a string', { promptTokens: '126', completionTokens: 3, source: 'provider' }],
    ['an absurd figure', { promptTokens: 1e300, completionTokens: 3, source: 'provider' }],
    ['NaN (written as null)', { promptTokens: NaN, completionTokens: 3, source: 'provider' }],
  ];
  it('the store refuses each in one line, writes nothing and gives the seq to the next event', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rt-refuse-'));
    const store = await SqliteStore.open(dir);
    const bytes = async (): Promise<number> => {
      let n = 0;
      for (const f of await journalFiles(dir)) n += (await readFile(f)).length;
      return n;
    };
    await store.append('m', opened('t'));
    const written = await bytes();
    for (const [what, usage] of bad) {
      const body = { type: 'usage_recorded', participant: 'ada', role: 'worker', purpose: 'turn', round: 1, usage };
      await assert.rejects(
        store.append('m', body as EventBody),
        (e: Error) =>
          e instanceof StoreRecordError && /refused an event of meeting m/.test(e.message) && !e.message.includes('\n'),
        what,
      );
    }
    assert.equal(await bytes(), written, 'nothing reached the journal');
    assert.equal((await store.append('m', human(1))).seq, 2, 'no seq was taken');
    assert.equal((await store.load('m')).length, 2);
    await store.close();
  });
});

describe('the CLI and the daemon on a log with a bad record', () => {
  before(ensureBuilt);

  it('renders the minutes of a run whose log holds fractional figures (previous release)', async () => {
    const home = await tempDataDir();
    const id = 'run2';
    const runDir = path.join(home, 'runs', id);
    const store = await SqliteStore.open(runDir);
    await store.append(id, opened('a run of the previous release'));
    await store.close();
    // As the previous release wrote it: a fractional figure mid-journal, then another record.
    const journal = (await journalFiles(runDir)).at(-1) as string;
    await appendFile(journal, usageLine(id, 2, { promptTokens: 10.5, completionTokens: 3.25, source: 'provider' }));
    await appendFile(journal, JSON.stringify({ ...human(99), meetingId: id, seq: 3, at: 1, v: 2 }) + '\n');
    const out = path.join(home, 'out');
    const r = await cli(['minutes', id, '--data-dir', home, '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Minutes: /);
    assert.equal((await readdir(out)).length, 1);
  });

  it('says in one line why the minutes of a quarantined run cannot be rendered, leaving its journal as it was', async () => {
    const home = await tempDataDir();
    const runDir = path.join(home, 'runs', 'run1');
    const s = await SqliteStore.open(runDir);
    await s.append('run1', opened('a run'));
    await s.close();
    const journal = (await journalFiles(runDir)).at(-1) as string;
    await appendFile(journal, usageLine('run1', 2, { promptTokens: '12660', completionTokens: 3, source: 'provider' }));
    const before = await sha(journal);
    const r = await cli(['minutes', 'run1', '--data-dir', home, '--out', path.join(home, 'out')]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(
      r.stderr,
      /^roundtable: meeting run1 is quarantined: .*journal\.\d+\.ndjson line 1: event 2 \(usage_recorded\)/,
    );
    assert.equal(await sha(journal), before);
  });

  it('starts a daemon whose store holds one bad record: lists that meeting as quarantined with why, serves the others, and answers a reader of it in one line', async () => {
    const home = await tempDataDir();
    const storeDir = path.join(home, 'store');
    const s = await SqliteStore.open(storeDir);
    const good = [await s.append('good', opened('kept')), await s.append('good', human(1))];
    await s.append('bad', opened('the one with a bad record'));
    await s.close();
    const journal = (await journalFiles(storeDir)).at(-1) as string;
    await appendFile(journal, usageLine('bad', 2, { promptTokens: -5, completionTokens: 20, source: 'provider' }));
    const before = await sha(journal);
    const d = await spawnDaemonProcess(home);
    try {
      assert.match(d.output(), /meeting bad is quarantined \(journal\.\d+\.ndjson line 1: /);
      const conn = await connectDaemon(d.port, d.token);
      try {
        const { meetings: list } = await conn.rpc.request('meeting/list', {});
        const row = list.find((m) => m.meetingId === 'bad');
        assert.equal(row?.status, 'closed');
        assert.equal(row?.terminatedBy, 'error');
        assert.match(row?.quarantined ?? '', /line 1: event 2 \(usage_recorded\)/);
        assert.ok(list.some((m) => m.meetingId === 'good' && !m.quarantined));
        // The other meeting was unfinished: it resumed, from the events it had.
        assert.deepEqual((await readMeeting(conn, 'good')).events.slice(0, good.length), good);
        // A follower is answered at once, in one line, instead of waiting for events that never come.
        await assert.rejects(
          conn.rpc.request('room/subscribe', { meetingId: 'bad', sinceSeq: 0 }),
          (e: Error) => /meeting bad is quarantined/.test(e.message) && !e.message.includes('\n'),
        );
        await assert.rejects(
          readMeeting(conn, 'bad'),
          (e: Error) => /meeting bad is quarantined/.test(e.message) && !e.message.includes('\n'),
        );
      } finally {
        await conn.close();
      }
      const r = await cli(['minutes', 'bad', '--data-dir', home, '--out', path.join(home, 'out')]);
      assert.notEqual(r.code, 0);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /meeting bad is quarantined/);
    } finally {
      await d.stop();
    }
    assert.equal(await sha(journal), before, 'the bad record is still on disk as written');
  });
});
