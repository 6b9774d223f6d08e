/**
 * The one minutes writer writes, for recorded logs, the very bytes the two writers wrote before it
 * (test/fixtures/minutes, captured at 0fadedd): the CLI's and MCP's (state folded from the log) and
 * the extension's (the state its mirror keeps one event at a time, one file per meeting), minutes
 * and MANIFEST.jsonl line alike.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkEvent, fold, type MeetingEvent, type MeetingState } from '@roundtable/protocol';
import { MeetingMirror } from '@roundtable/client';
import { writeMinutes } from '@roundtable/client/minutesFile';

const FIXTURES = path.join(__dirname, '..', 'fixtures');
const GOLDEN = path.join(FIXTURES, 'minutes');

function checked(raw: unknown[]): MeetingEvent[] {
  return raw.map((r, i) => {
    const c = checkEvent(r);
    assert.ok(c.ok, `event ${i + 1}: ${c.ok ? '' : c.error}`);
    return c.value;
  });
}

const json = (file: string): unknown[] => JSON.parse(readFileSync(file, 'utf8')) as unknown[];

/** Every recorded log the golden files were rendered from, by golden name. */
function recordedLogs(): Record<string, MeetingEvent[]> {
  const logs: Record<string, MeetingEvent[]> = {};
  for (const n of ['v1-roundtable', 'v1-consensus']) logs[n] = checked(json(path.join(FIXTURES, 'logs', `${n}.json`)));
  for (const n of ['review', 'consensus', 'roundtable'])
    logs[`recorded-${n}`] = checked(json(path.join(GOLDEN, 'logs', `recorded-${n}.json`)));
  // The previous release's data folder: its journal holds the six meetings' events (and documents).
  const previous = path.join(FIXTURES, 'previousRelease');
  const expected = JSON.parse(readFileSync(path.join(previous, 'expected.json'), 'utf8')) as Record<
    string,
    { meetingId: string }
  >;
  const journal = readFileSync(path.join(previous, 'data', 'store', 'journal.0.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; meetingId?: string });
  for (const [name, m] of Object.entries(expected))
    logs[`previous-${name}`] = checked(journal.filter((e) => e.type !== 'doc' && e.meetingId === m.meetingId));
  return logs;
}

const LOGS = recordedLogs();

function golden(name: string): string | undefined {
  try {
    return readFileSync(path.join(GOLDEN, name), 'utf8');
  } catch {
    return undefined;
  }
}

/** What one front door leaves in a fresh folder: the minutes file and the MANIFEST, if any. */
async function written(
  s: MeetingState,
  opts: Parameters<typeof writeMinutes>[2],
): Promise<{ name: string; minutes: string; manifest?: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rt-golden-'));
  const file = await writeMinutes(dir, s, opts);
  const manifest = (await readdir(dir)).includes('MANIFEST.jsonl')
    ? await readFile(path.join(dir, 'MANIFEST.jsonl'), 'utf8')
    : undefined;
  return { name: path.basename(file), minutes: await readFile(file, 'utf8'), ...(manifest ? { manifest } : {}) };
}

describe('the one minutes writer, against the minutes written before it', () => {
  it('has a golden file for every recorded log, thinking and MANIFEST included', () => {
    assert.equal(Object.keys(LOGS).length, 11);
    assert.ok(golden('recorded-roundtable.thinking.md')?.includes('**Thinking of ada**'));
    assert.ok(golden('recorded-review.md')?.includes('breaks 0003'));
  });

  for (const [name, events] of Object.entries(LOGS)) {
    it(`writes ${name} byte for byte as before, from the CLI's fold and from the extension's mirror`, async () => {
      const cli = fold(events);
      const mirror = new MeetingMirror(cli.meetingId, { events }).state;
      const base = `${cli.openedAt ? new Date(cli.openedAt).toISOString().slice(0, 10) : ''}-`;
      for (const [door, s, opts] of [
        ['cli', cli, {}],
        ['extension', mirror, { rewrite: true }],
      ] as const) {
        const out = await written(s, opts);
        assert.ok(out.name.startsWith(base) && out.name.endsWith('.md'), `${door}: ${out.name}`);
        assert.equal(out.minutes, golden(`${name}.md`), `${door}: ${name} minutes`);
        assert.equal(out.manifest, golden(`${name}.manifest.jsonl`), `${door}: ${name} MANIFEST.jsonl`);
      }
      const thinking = golden(`${name}.thinking.md`) ?? golden(`${name}.md`);
      assert.equal((await written(cli, { thinking: true })).minutes, thinking, `${name} --thinking`);
    });
  }
});
