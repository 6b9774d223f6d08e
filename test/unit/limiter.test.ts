import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedLimiter } from '../../daemon/src/daemon/limiter';
import { endpointCeiling } from '../../daemon/src/daemon/daemon';
import { DAEMON_USAGE } from '../../cli/src/daemonCommand';

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

/** A call that runs until the test lets it end. */
function held(): { fn: () => Promise<void>; end: () => void } {
  let end: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (end = resolve));
  return { fn: () => done, end };
}

describe('the limit of an endpoint and its fair share', () => {
  const settle = () => new Promise((r) => setImmediate(r));

  it('takes as many calls at once as the largest round of the meetings on it, lowered by the server and the setting', async () => {
    const open = new KeyedLimiter(() => Infinity);
    const calls = Array.from({ length: 7 }, held);
    const runs = calls.map((c) => open.run('e', c.fn, undefined, { owner: 'six', demand: 6 }));
    await settle();
    assert.deepEqual([open.inFlight('e'), open.waiting('e'), open.limit('e')], [6, 1, 6]);
    open.setServerSlots('e', 2);
    for (const c of calls) c.end();
    await Promise.all(runs);

    // Two slots reported: a round of six goes two at a time.
    const slots = calls.map(() => held());
    const two = slots.map((c) => open.run('e', c.fn, undefined, { owner: 'six', demand: 6 }));
    await settle();
    assert.deepEqual([open.inFlight('e'), open.limit('e')], [2, 2]);
    for (const c of slots) c.end();
    await Promise.all(two);

    // The daemon's setting lowers it too.
    const capped = new KeyedLimiter(() => 3);
    const more = calls.map(() => held());
    const three = more.map((c) => capped.run('e', c.fn, undefined, { owner: 'six', demand: 6 }));
    await settle();
    assert.equal(capped.inFlight('e'), 3);
    for (const c of more) c.end();
    await Promise.all(three);
  });

  it('a meeting below its share starts at once although another holds every slot with calls that hang', async () => {
    const limiter = new KeyedLimiter(() => Infinity);
    const hog = Array.from({ length: 6 }, held);
    void Promise.all(hog.map((c) => limiter.run('e', c.fn, undefined, { owner: 'hog', demand: 6 })));
    await settle();
    assert.equal(limiter.inFlight('e', 'hog'), 6);
    // The newcomer's round of three: its share of six between two meetings is three.
    const healthy = Array.from({ length: 3 }, held);
    const runs = healthy.map((c) => limiter.run('e', c.fn, undefined, { owner: 'ok', demand: 3 }));
    await settle();
    assert.deepEqual([limiter.inFlight('e', 'ok'), limiter.waiting('e', 'ok')], [3, 0]);
    for (const c of healthy) c.end();
    await Promise.all(runs);
    // A fourth call is past its share while the hog is at its limit: it waits.
    const extra = Array.from({ length: 4 }, held);
    const later = extra.map((c) => limiter.run('e', c.fn, undefined, { owner: 'ok', demand: 3 }));
    await settle();
    assert.deepEqual([limiter.inFlight('e', 'ok'), limiter.waiting('e', 'ok')], [3, 1]);
    for (const c of [...extra, ...hog]) c.end();
    await Promise.all(later);
    assert.equal(limiter.inFlight('e'), 0);
  });

  it('shares freed slots between waiting meetings: the one with fewer calls under way goes first', async () => {
    const limiter = new KeyedLimiter(() => 4);
    const a = Array.from({ length: 6 }, held);
    const b = Array.from({ length: 6 }, held);
    const started: string[] = [];
    const run = (owner: string, c: ReturnType<typeof held>) =>
      limiter.run('e', () => (started.push(owner), c.fn()), undefined, { owner, demand: 6 });
    const runs = [...a.map((c) => run('a', c)), ...b.map((c) => run('b', c))];
    await settle();
    // a came first and took the four slots; b, below its share of two, took two more.
    assert.deepEqual(started, ['a', 'a', 'a', 'a', 'b', 'b']);
    // Slots freed by a go to whoever has fewer under way, until both hold their share.
    for (const c of a.slice(0, 4)) c.end();
    await settle();
    assert.deepEqual([limiter.inFlight('e', 'a'), limiter.inFlight('e', 'b')], [2, 2]);
    for (const c of [...a, ...b]) c.end();
    await Promise.all(runs);
    assert.deepEqual([limiter.inFlight('e'), limiter.waiting('e')], [0, 0]);
  });
});

describe('the setting', () => {
  it('is a whole number from 1 to 1,000, refused in one line otherwise, and said in `roundtable daemon --help`', () => {
    assert.equal(endpointCeiling({}), Infinity);
    assert.equal(endpointCeiling({ ROUNDTABLE_ENDPOINT_CONCURRENCY: ' 6 ' }), 6);
    assert.equal(endpointCeiling({ ROUNDTABLE_ENDPOINT_CONCURRENCY: '9' }, 2), 2, 'the option wins');
    for (const bad of ['0', '-1', '2.5', 'four', '1e3', '1001', '99999']) {
      assert.throws(
        () => endpointCeiling({ ROUNDTABLE_ENDPOINT_CONCURRENCY: bad }),
        /^Error: ROUNDTABLE_ENDPOINT_CONCURRENCY must be a whole number from 1 to 1000 \(got "[^\n]*"\); leave it unset/,
      );
    }
    assert.match(DAEMON_USAGE, /--endpoint-concurrency N/);
    assert.match(DAEMON_USAGE, /largest round of the meetings on it/);
    assert.match(DAEMON_USAGE, /total_slots/);
  });
});
