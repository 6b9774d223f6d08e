/**
 * Naming, rewriting and MANIFEST.jsonl through the one minutes writer (client/src/minutesFile.ts),
 * in real temp folders: what the CLI and MCP get (a roundtable's minutes never overwrite a file) and
 * what the extension gets (`rewrite`: one file per meeting, rewritten at each decision), and
 * consensus reports indexed by one MANIFEST line per meeting, whichever front door wrote them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkEvent, fold, type MeetingEvent, type MeetingState } from '@roundtable/protocol';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { ownMinutesFile, writeMinutes } from '@roundtable/client/minutesFile';

const LOGS = path.join(__dirname, '..', 'fixtures', 'minutes', 'logs');

function log(name: string): MeetingEvent[] {
  return (JSON.parse(readFileSync(path.join(LOGS, `recorded-${name}.json`), 'utf8')) as unknown[]).map((r) => {
    const c = checkEvent(r);
    assert.ok(c.ok);
    return c.value;
  });
}

const roundtable = fold(log('roundtable'));
const consensusLog = log('consensus');
const consensus = fold(consensusLog);
/** The same consensus meeting before its verdict: its report is partial, and rewritten when it is decided. */
const undecided = fold(
  consensusLog.slice(
    0,
    consensusLog.findIndex((e) => e.type === 'verdict_computed'),
  ),
);
/** Another meeting on the same topic the same day: the same file name, another file. */
const other = (s: MeetingState): MeetingState => ({ ...s, meetingId: `${s.meetingId}-other` });

const tmp = (): Promise<string> => mkdtemp(path.join(tmpdir(), 'rt-minutes-file-'));
const manifestIds = async (dir: string): Promise<string[]> =>
  (await readFile(path.join(dir, 'MANIFEST.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { id: string }).id);

describe('the one minutes writer', () => {
  it("gives a roundtable's minutes a new file each time from the terminal, and leaves no temp file", async () => {
    const dir = await tmp();
    const first = await writeMinutes(dir, roundtable);
    const second = await writeMinutes(dir, roundtable);
    assert.equal(path.basename(first), '2026-11-27-adopt-a-monorepo-for-3-services.md');
    assert.equal(path.basename(second), '2026-11-27-adopt-a-monorepo-for-3-services-2.md');
    assert.deepEqual((await readdir(dir)).sort(), [path.basename(second), path.basename(first)]);
  });

  it('rewrites the meeting’s own file for the extension, and gives another meeting of the same name its own', async () => {
    const dir = await tmp();
    const mine = await writeMinutes(dir, roundtable, { rewrite: true });
    const theirs = await writeMinutes(dir, other(roundtable), { rewrite: true });
    assert.equal(path.basename(theirs), path.basename(mine).replace('.md', '-2.md'));
    // Decided again (another window, after a reload): each finds its own file on disk.
    assert.equal(await writeMinutes(dir, other(roundtable), { rewrite: true }), theirs);
    assert.equal(await writeMinutes(dir, roundtable, { rewrite: true }), mine);
    assert.equal((await readdir(dir)).length, 2);
    assert.equal(await readFile(mine, 'utf8'), renderMinutes(roundtable));
    assert.equal(await ownMinutesFile(dir, other(roundtable)), theirs);
  });

  it('never writes through a symbolic link named like the meeting’s file', async () => {
    const dir = await tmp();
    const outside = path.join(await tmp(), 'bashrc');
    await writeFile(outside, `mine \`${roundtable.meetingId}\``);
    await symlink(outside, path.join(dir, '2026-11-27-adopt-a-monorepo-for-3-services.md'));
    const file = await writeMinutes(dir, roundtable, { rewrite: true });
    assert.equal(path.basename(file), '2026-11-27-adopt-a-monorepo-for-3-services-2.md');
    assert.equal(await readFile(outside, 'utf8'), `mine \`${roundtable.meetingId}\``);
  });

  it('keeps one report and one MANIFEST line per consensus meeting, replaced when it is decided', async () => {
    for (const opts of [{}, { rewrite: true }]) {
      const dir = await tmp();
      await writeFile(path.join(dir, 'MANIFEST.jsonl'), '{"id":"someone-else","file":"theirs.md"}\nnot json\n');
      const before = await writeMinutes(dir, undecided, opts);
      assert.match(await readFile(path.join(dir, 'MANIFEST.jsonl'), 'utf8'), /"status":"partial"/);
      const after = await writeMinutes(dir, consensus, opts);
      assert.equal(after, before, 'the same file, rewritten');
      assert.equal(await readFile(after, 'utf8'), renderMinutes(consensus));
      const text = await readFile(path.join(dir, 'MANIFEST.jsonl'), 'utf8');
      const lines = text.split('\n').filter(Boolean);
      assert.deepEqual(lines.slice(0, 2), ['{"id":"someone-else","file":"theirs.md"}', 'not json']);
      const mine = lines.slice(2).map((l) => JSON.parse(l) as { id: string; file: string; status: string });
      assert.deepEqual(
        mine.map((l) => [l.id, l.file, l.status]),
        [[consensus.meetingId, path.basename(after), 'complete']],
      );
    }
  });

  it('finds a consensus report through its MANIFEST line even when it was renamed', async () => {
    const dir = await tmp();
    await writeMinutes(dir, undecided);
    const renamed = path.join(dir, 'billing-database.md');
    await writeFile(renamed, 'the report, moved by hand');
    const text = await readFile(path.join(dir, 'MANIFEST.jsonl'), 'utf8');
    await writeFile(path.join(dir, 'MANIFEST.jsonl'), text.replace(/"file":"[^"]+"/, '"file":"billing-database.md"'));
    assert.equal(await writeMinutes(dir, consensus), renamed);
  });

  it('writes two meetings settling at once one after the other: no MANIFEST line is lost', async () => {
    const dir = await tmp();
    const meetings = Array.from({ length: 6 }, (_, i) => ({ ...consensus, meetingId: `${consensus.meetingId}-${i}` }));
    const files = await Promise.all(meetings.map((s) => writeMinutes(dir, s)));
    assert.equal(new Set(files).size, 6, 'six files');
    assert.deepEqual((await manifestIds(dir)).sort(), meetings.map((s) => s.meetingId).sort());
  });
});
