/**
 * The prepared starts a connection keeps between its estimate and its Start: a few, for a few
 * minutes, none too large, each good for one meeting; what is gone answers in one line.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RpcError } from '@roundtable/protocol';
import {
  MAX_PREPARED_BYTES,
  MAX_PREPARED_PER_CONNECTION,
  PREPARED_GONE,
  PREPARED_TTL_MS,
  PreparedStarts,
} from '../../daemon/src/daemon/preparedStarts';
import type { PreparedStart } from '../../daemon/src/meeting/prepared';

const prepared = (topic: string, text = ''): PreparedStart => ({
  params: { topic, mode: 'roundtable', participants: [] },
  context: text
    ? { items: [{ kind: 'note', sha256: 'x', text, tokens: 1, truncated: false }], refused: [], budget: 8000 }
    : null,
});
const gone = (e: unknown) => e instanceof RpcError && e.code === 'not_found' && e.message === PREPARED_GONE;

describe('prepared starts', () => {
  it('are good until their time is up, then gone in one line', () => {
    let now = 1_000;
    const kept = new PreparedStarts(() => now);
    const early = kept.keep(prepared('a')) ?? '';
    const late = kept.keep(prepared('b')) ?? '';
    assert.match(early, /^[0-9a-f]{64}$/);
    now += PREPARED_TTL_MS - 1;
    assert.equal(kept.take(early).params.topic, 'a');
    now += 1;
    assert.throws(() => kept.take(late), gone);
  });

  it('are taken once: a token starts one meeting', () => {
    const kept = new PreparedStarts();
    const token = kept.keep(prepared('a')) ?? '';
    assert.ok(kept.holds(token));
    kept.take(token);
    assert.ok(!kept.holds(token));
    assert.throws(() => kept.take(token), gone);
  });

  it(`are at most ${MAX_PREPARED_PER_CONNECTION} per connection: a new one drops the oldest`, () => {
    const kept = new PreparedStarts();
    const tokens = Array.from(
      { length: MAX_PREPARED_PER_CONNECTION + 1 },
      (_, i) => kept.keep(prepared(`t${i}`)) ?? '',
    );
    assert.ok(!kept.holds(tokens[0] ?? ''));
    for (const t of tokens.slice(1)) assert.ok(kept.holds(t));
  });

  it('are not kept past their size limit (the start then reads again)', () => {
    const kept = new PreparedStarts();
    assert.equal(kept.keep(prepared('big', 'x'.repeat(MAX_PREPARED_BYTES))), undefined);
    assert.ok(kept.keep(prepared('small', 'x'.repeat(1000))));
  });
});
