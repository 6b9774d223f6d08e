/**
 * Recovery never destroys the good copy: a snapshot holding one unreadable event row is not
 * trusted, not promoted to store.prev.sqlite, and never the reason a journal is deleted; a
 * start-up that cannot trust anything (or fails half-way) leaves no half-daemon and no changed file.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import * as net from 'node:net';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import initSqlJs from 'sql.js';
import type { EventBody, MeetingEvent } from '@roundtable/protocol';
import { DEFAULT_CONFIG } from '@roundtable/protocol';
import { startDaemon } from '../../daemon/src/daemon/daemon';
import { SqliteStore } from '../../daemon/src/store/sqliteStore';
import { StoreCorruptError } from '../../daemon/src/store/verify';
import { journalFiles } from '../../daemon/src/store/storeFiles';
import { BIN, ensureBuilt } from '../fakes/cli';
import { tempDataDir } from '../fakes/daemon';
import { humanPost as human } from '../fakes/given';
import { panel } from '../fakes/meetings';

/** Replaces one event row's body in a snapshot file with text that is not JSON. */
async function breakRow(file: string, meetingId: string, seq: number): Promise<void> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(await readFile(file));
  db.run('UPDATE events SET body = ? WHERE meeting_id = ? AND seq = ?', ['{"meetingId":"m","se', meetingId, seq]);
  assert.equal(db.getRowsModified(), 1, `row ${meetingId}/${seq} exists`);
  await writeFile(file, db.export());
  db.close();
}

/** Name -> sha256 of every file in a directory. */
async function hashes(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of (await readdir(dir)).sort()) {
    out.set(
      name,
      createHash('sha256')
        .update(await readFile(path.join(dir, name)))
        .digest('hex'),
    );
  }
  return out;
}

/** A store with three snapshots written: store.sqlite, store.prev.sqlite and the journals after it. */
async function storeWithHistory(d: string): Promise<MeetingEvent[]> {
  const s = await SqliteStore.open(d);
  const acked: MeetingEvent[] = [];
  for (let i = 0; i < 10; i++) acked.push(await s.append('m', human(i)));
  await s.snapshot();
  for (let i = 10; i < 20; i++) acked.push(await s.append('m', human(i)));
  await s.snapshot();
  for (let i = 20; i < 30; i++) acked.push(await s.append('m', human(i)));
  await s.close();
  return acked;
}

describe('store recovery trusts only a verified copy', () => {
  it('recovers every acknowledged event from the previous copy and the journals when store.sqlite holds an unreadable row', async () => {
    const d = await tempDataDir();
    const acked = await storeWithHistory(d);
    await breakRow(path.join(d, 'store.sqlite'), 'm', 25);
    const lines: string[] = [];
    const s = await SqliteStore.open(d, { log: (l) => lines.push(l) });
    assert.deepEqual(await s.load('m'), acked);
    const said = lines.filter((l) => /store\.sqlite/.test(l));
    assert.equal(said.length, 1, lines.join('\n'));
    assert.match(said[0] ?? '', /unreadable event row \(meeting m seq 25\).*recovered from store\.prev\.sqlite/);
    assert.ok(
      (await readdir(d)).some((f) => f.startsWith('store.sqlite.corrupt-')),
      'the bad copy is kept aside',
    );
    await s.close();
    const again = await SqliteStore.open(d);
    assert.deepEqual(await again.load('m'), acked, 'and the next start-up has them too');
    await again.close();
  });

  it('refuses to start, changing no file, when no verified copy can be loaded', async () => {
    const d = await tempDataDir();
    await storeWithHistory(d);
    await breakRow(path.join(d, 'store.sqlite'), 'm', 3);
    await rm(path.join(d, 'store.prev.sqlite'));
    const before = await hashes(d);
    await assert.rejects(
      SqliteStore.open(d),
      (e: Error) =>
        e instanceof StoreCorruptError &&
        e.message.includes(path.join(d, 'store.sqlite')) &&
        /unreadable event row \(meeting m seq 3\).*then start again$/.test(e.message) &&
        !e.message.includes('\n'),
    );
    assert.deepEqual(await hashes(d), before, 'every file byte-identical');
  });

  it('never promotes a snapshot that fails its check, nor deletes the journals it would cover', async () => {
    const d = await tempDataDir();
    const s = await SqliteStore.open(d);
    const acked: MeetingEvent[] = [];
    for (let i = 0; i < 10; i++) acked.push(await s.append('m', human(i)));
    await s.snapshot();
    const prevBefore = await hashes(d);
    for (let i = 10; i < 20; i++) acked.push(await s.append('m', human(i)));
    // The snapshot on disk goes bad while the store runs; the next rotation must notice.
    await breakRow(path.join(d, 'store.sqlite'), 'm', 4);
    const journalsBefore = await journalFiles(d);
    await s.snapshot();
    assert.equal(existsSync(path.join(d, 'store.prev.sqlite')), prevBefore.has('store.prev.sqlite'));
    for (const j of journalsBefore) assert.ok(existsSync(j), `${path.basename(j)} kept`);
    for (let i = 20; i < 25; i++) acked.push(await s.append('m', human(i)));
    await s.snapshot(); // the good snapshot written above becomes the fallback copy now
    await s.close();
    const again = await SqliteStore.open(d);
    assert.deepEqual(await again.load('m'), acked);
    await again.close();
    await rm(path.join(d, 'store.sqlite'));
    const fromPrevious = await SqliteStore.open(d);
    assert.deepEqual(await fromPrevious.load('m'), acked, 'the fallback copy plus journals hold everything');
    await fromPrevious.close();
  });
});

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

describe('a daemon whose start-up fails', () => {
  before(ensureBuilt);

  it('exits non-zero with one line naming the file, leaving every file as it was and no daemon.json', async () => {
    const home = await tempDataDir();
    const d = path.join(home, 'store');
    await mkdir(d);
    await storeWithHistory(d);
    await breakRow(path.join(d, 'store.sqlite'), 'm', 7);
    await rm(path.join(d, 'store.prev.sqlite'));
    const before = await hashes(d);
    const proc = spawn(process.execPath, [BIN, 'daemon', '--data-dir', home], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    proc.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
    assert.notEqual(code, 0);
    const lines = err.trim().split('\n');
    assert.equal(lines.length, 1, err);
    assert.match(
      lines[0] ?? '',
      new RegExp(
        `^roundtable: the store at ${path.join(d, 'store.sqlite').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} holds an unreadable event row \\(meeting m seq 7\\).*then start again$`,
      ),
    );
    assert.deepEqual(await hashes(d), before, 'every store file byte-identical');
    assert.equal(existsSync(path.join(home, 'daemon.json')), false);
    assert.equal(existsSync(path.join(home, 'daemon.lock')), false);
  });

  it('closes its listener and removes daemon.json when resuming the meetings fails half-way, losing no file', async () => {
    const home = await tempDataDir();
    const d = path.join(home, 'store');
    const s = await SqliteStore.open(d);
    const opened = (topic: string, script: unknown): EventBody => ({
      type: 'meeting_opened',
      topic,
      mode: 'roundtable',
      participants: panel(['ada', 'grace'], false),
      config: { ...DEFAULT_CONFIG },
      providers: { script: script as never },
    });
    const good = [await s.append('m1', opened('resumes', { defaultDelayMs: 50, replies: {} }))];
    // A meeting whose logged provider config cannot be rebuilt: resumeAll throws on it.
    const bad = [await s.append('m2', opened('cannot resume', 'not a script'))];
    await s.close();
    const before = await hashes(d);
    const lines: string[] = [];
    await assert.rejects(
      startDaemon({ dataDir: home, log: (l) => lines.push(l) }),
      /could not resume the unfinished meetings in .*store.*then start again$/,
    );
    const port = Number(/listening on 127\.0\.0\.1:(\d+)/.exec(lines.join('\n'))?.[1]);
    assert.ok(port > 0, lines.join('\n'));
    assert.equal(await refused(port), true, 'nothing answers on the port any more');
    assert.equal(existsSync(path.join(home, 'daemon.json')), false);
    assert.equal(existsSync(path.join(home, 'daemon.lock')), false);
    const after = await hashes(d);
    for (const name of before.keys()) assert.ok(after.has(name), `${name} kept`);
    assert.equal(after.get('store.sqlite'), before.get('store.sqlite'), 'no snapshot written');
    assert.equal(after.has('store.prev.sqlite'), before.has('store.prev.sqlite'));
    const again = await SqliteStore.open(d);
    assert.deepEqual((await again.load('m1')).slice(0, 1), good);
    assert.deepEqual(await again.load('m2'), bad);
    await again.close();
  });
});
