import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedLimiter } from '../../daemon/src/daemon/limiter';

const tick = () => new Promise((r) => setTimeout(r, 2));

describe('per-endpoint concurrency limit', () => {
  it('never runs more than the limit at once per key, serves waiters in order, and leaves other keys alone', async () => {
    const limiter = new KeyedLimiter((k) => (k === 'busy' ? 2 : 0));
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const job = (i: number) =>
      limiter.run('busy', async () => {
        started.push(i);
        running++;
        peak = Math.max(peak, running);
        await tick();
        running--;
        return i;
      });
    const free = Array.from({ length: 10 }, () =>
      limiter.run('free', async () => (await tick(), limiter.inFlight('free'))),
    );
    const results = await Promise.all(Array.from({ length: 9 }, (_, i) => job(i)));
    assert.deepEqual(results, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(peak, 2);
    assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7, 8], 'first come, first served');
    assert.equal(limiter.inFlight('busy'), 0);
    assert.equal((await Promise.all(free)).length, 10);
  });

  it('releases the slot when a job fails', async () => {
    const limiter = new KeyedLimiter(() => 1);
    await assert.rejects(
      limiter.run('k', () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await limiter.run('k', () => Promise.resolve(7)), 7);
    assert.equal(limiter.inFlight('k'), 0);
  });
});
