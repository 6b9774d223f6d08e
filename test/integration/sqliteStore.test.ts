import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFile, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { EventBody, MeetingEvent } from '@roundtable/protocol';
import { DEFAULT_CONFIG } from '@roundtable/protocol';
import { SqliteStore } from '../../daemon/src/store/sqliteStore';
import { journalFiles } from '../../daemon/src/store/storeFiles';
import { ROOT } from '../fakes/cli';

const dir = () => mkdtemp(path.join(tmpdir(), 'rt-store-'));
const opened = (topic = 't'): EventBody => ({
  type: 'meeting_opened',
  topic,
  mode: 'roundtable',
  participants: [],
  config: { ...DEFAULT_CONFIG },
});
const human = (i: number): EventBody => ({
  type: 'human_posted',
  messageId: `h${i}`,
  from: 'human',
  text: `post ${i} ✓`,
  tokens: 2,
  round: 0,
});

describe('sql.js event store', () => {
  it('returns what it appended, in order, and the same after a reopen', async () => {
    const d = await dir();
    const s = await SqliteStore.open(d);
    const appended = [
      await s.append('m1', opened('first')),
      await s.append('m1', human(1)),
      await s.append('m2', opened('second')),
    ];
    assert.deepEqual(
      appended.map((e) => [e.meetingId, e.seq]),
      [
        ['m1', 1],
        ['m1', 2],
        ['m2', 1],
      ],
    );
    assert.deepEqual(await s.load('m1'), appended.slice(0, 2));
    assert.deepEqual(await s.load('m1', 1), appended.slice(1, 2));
    assert.deepEqual(await s.meetings(), ['m1', 'm2']);
    await s.close();
    const again = await SqliteStore.open(d);
    assert.deepEqual(await again.load('m1'), appended.slice(0, 2));
    assert.deepEqual(await again.meetings(), ['m1', 'm2']);
    assert.equal((await again.append('m1', human(2))).seq, 3, 'seq continues after a reopen');
    await again.close();
  });

  it('keeps seq monotonic with no gap under many concurrent appends', async () => {
    const s = await SqliteStore.open(await dir());
    const all = await Promise.all(Array.from({ length: 200 }, (_, i) => s.append(`m${i % 3}`, human(i))));
    for (const m of ['m0', 'm1', 'm2']) {
      const seqs = (await s.load(m)).map((e) => e.seq);
      assert.deepEqual(
        seqs,
        seqs.map((_, i) => i + 1),
      );
    }
    assert.equal(all.length, 200);
    await s.close();
  });

  it('loses nothing acknowledged when dropped without close, across snapshots', async () => {
    const d = await dir();
    const s = await SqliteStore.open(d, { snapshotEvery: 50 });
    const acked: MeetingEvent[] = [];
    for (let i = 0; i < 180; i++) acked.push(await s.append('m', human(i)));
    await s.snapshot();
    for (let i = 180; i < 220; i++) acked.push(await s.append('m', human(i)));
    // No close: as if the process died here.
    const again = await SqliteStore.open(d);
    assert.deepEqual(await again.load('m'), acked);
    await again.close();
  });

  it('tolerates a torn journal tail, says so, and continues the sequence', async () => {
    const d = await dir();
    const s = await SqliteStore.open(d);
    for (let i = 0; i < 5; i++) await s.append('m', human(i));
    const journal = (await journalFiles(d)).at(-1) as string;
    await appendFile(journal, '{"meetingId":"m","seq":6,"type":"human_po');
    const lines: string[] = [];
    const again = await SqliteStore.open(d, { log: (l) => lines.push(l) });
    assert.equal((await again.load('m')).length, 5);
    assert.ok(
      lines.some((l) => /ignored a torn record at the end of journal\.\d+\.ndjson/.test(l)),
      lines.join('\n'),
    );
    assert.equal((await again.append('m', human(6))).seq, 6);
    await again.close();
    const third = await SqliteStore.open(d);
    assert.equal((await third.load('m')).length, 6);
    await third.close();
  });

  it('refuses a journal corrupt in the middle, naming the file and line', async () => {
    const d = await dir();
    await writeFile(
      path.join(d, 'journal.0.ndjson'),
      [1, 2].map((seq) => JSON.stringify({ ...human(seq), meetingId: 'm', seq, at: seq })).join('\nGARBAGE\n') + '\n',
    );
    await assert.rejects(SqliteStore.open(d), /journal\.0\.ndjson line 2 is corrupt/);
  });

  it('recovers from a corrupt snapshot through the fallback copy and the journal, with a clear log line', async () => {
    const d = await dir();
    const s = await SqliteStore.open(d);
    const acked: MeetingEvent[] = [];
    for (let i = 0; i < 30; i++) acked.push(await s.append('m', human(i)));
    await s.snapshot();
    for (let i = 30; i < 60; i++) acked.push(await s.append('m', human(i)));
    await s.snapshot();
    for (let i = 60; i < 70; i++) acked.push(await s.append('m', human(i)));
    await s.close();
    await writeFile(path.join(d, 'store.sqlite'), 'this is not a database');
    const lines: string[] = [];
    const again = await SqliteStore.open(d, { log: (l) => lines.push(l) });
    assert.deepEqual(await again.load('m'), acked);
    assert.ok(
      lines.some((l) => /snapshot store\.sqlite is corrupt/.test(l)),
      lines.join('\n'),
    );
    assert.ok(
      (await readdir(d)).some((f) => f.startsWith('store.sqlite.corrupt-')),
      'the corrupt file is kept for inspection',
    );
    await again.close();
  });

  it('loses no acknowledged event when the writing process is killed with SIGKILL', async () => {
    for (const delay of [80, 160, 260, 400, 650]) {
      const d = await dir();
      const writer = path.join(ROOT, 'test', 'fixtures', 'storeWriter.ts');
      const child = spawn(process.execPath, ['--import', 'tsx', writer, d], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      await new Promise<void>((resolve) => {
        const check = () => (/^ack /m.test(out) ? setTimeout(resolve, delay) : setTimeout(check, 10));
        check();
      });
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const acked = [...out.matchAll(/^ack (\d+)$/gm)].map((m) => Number(m[1]));
      assert.ok(acked.length > 0);
      const s = await SqliteStore.open(d);
      const seqs = (await s.load('m')).map((e) => e.seq);
      assert.deepEqual(
        seqs,
        seqs.map((_, i) => i + 1),
        `no gap after a kill at ${delay} ms`,
      );
      assert.ok(seqs.length >= Math.max(...acked), `every acknowledged event survived a kill at ${delay} ms`);
      await s.close();
    }
  });
});
