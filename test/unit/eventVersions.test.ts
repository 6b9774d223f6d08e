import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { EVENT_SCHEMA_VERSION, checkEvent, fold, type MeetingEvent } from '@roundtable/protocol';

/** Logs written by main before events carried a version (generated with the v1 engine and kept as fixtures). */
function v1Log(name: string): unknown[] {
  return JSON.parse(readFileSync(path.join(__dirname, '..', 'fixtures', 'logs', name), 'utf8')) as unknown[];
}

function readBack(raw: unknown[]): MeetingEvent[] {
  return raw.map((r, i) => {
    const c = checkEvent(r);
    assert.ok(c.ok, `event ${i + 1}: ${c.ok ? '' : c.error}`);
    return c.value;
  });
}

describe('versioned events', () => {
  it('reads a roundtable log written before versioning and folds it to the same meeting', () => {
    const raw = v1Log('v1-roundtable.json');
    assert.ok(
      raw.every((e) => (e as { v?: number }).v === undefined),
      'the fixture is a version-1 log',
    );
    const events = readBack(raw);
    assert.ok(events.every((e) => e.v === EVENT_SCHEMA_VERSION));
    const s = fold(events);
    assert.equal(s.topic, 'Should we adopt a monorepo for our three services?');
    assert.equal(s.status, 'closed');
    assert.equal(s.closed?.reason, 'consensus_full');
    assert.equal(s.decision?.decision, 'accepted');
    assert.ok(s.rounds.length >= 1);
    assert.match(s.digest?.text ?? '', /CONSENSUS: FULL/);
  });

  it('reads a consensus log written before versioning', () => {
    const s = fold(readBack(v1Log('v1-consensus.json')));
    assert.equal(s.mode, 'consensus');
    assert.deepEqual(
      s.options.map((o) => o.label),
      ['PostgreSQL', 'SQLite'],
    );
    assert.equal(s.closed?.reason, 'verdict_reached');
    assert.ok(s.rounds[0]?.verdict);
  });

  it('names the event and field of a broken row, and refuses a log from a newer version', () => {
    const [first] = v1Log('v1-roundtable.json') as Record<string, unknown>[];
    const broken = checkEvent({ ...first, topic: 42 });
    assert.equal(broken.ok, false);
    assert.match(broken.ok ? '' : broken.error, /event 1 \(meeting_opened\): topic/);
    const unknownType = checkEvent({ ...first, type: 'meeting_exploded' });
    assert.match(unknownType.ok ? '' : unknownType.error, /unknown type "meeting_exploded"/);
    const future = checkEvent({ ...first, v: EVENT_SCHEMA_VERSION + 1 });
    assert.match(future.ok ? '' : future.error, /newer than this Roundtable reads/);
  });
});
