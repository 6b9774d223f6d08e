/**
 * The gate's content screen in a long process: secretlint 11 sets a performance mark on every lint
 * and rule, and its profiler keeps and rescans every one (secretlint/secretlint#1633, #1653), so a
 * daemon's screens got slower with every file (2,000 records took twelve minutes) and a path with
 * a line break broke a mark after the lint. No secretlint mark is recorded now: an observer of
 * marks sees none, however many texts are screened and whatever their names.
 */
import assert from 'node:assert/strict';
import { PerformanceObserver } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { screenContent } from '../../daemon/src/gate/content';

describe('screening content', () => {
  it('leaves no secretlint performance mark for its profiler to keep, whatever the file is named', async () => {
    const seen: string[] = [];
    const observer = new PerformanceObserver((items) => {
      for (const e of items.getEntries()) seen.push(e.name);
    });
    observer.observe({ entryTypes: ['mark'] });
    try {
      for (let i = 0; i < 50; i++) {
        const r = await screenContent(`# Record ${i}\n\nWhy: because.\n`, `docs/decisions/00${i}-a\nb "c".md`);
        assert.equal(r.ok, true);
      }
      performance.mark('ours'); // an ordinary mark still reaches observers
      await new Promise<void>((resolve) => setImmediate(resolve));
    } finally {
      observer.disconnect();
    }
    assert.deepEqual(
      seen.filter((n) => n.startsWith('@core>')),
      [],
    );
    assert.ok(seen.includes('ours'), seen.join(', '));
  });
});
