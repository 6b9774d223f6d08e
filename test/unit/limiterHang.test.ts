/**
 * A hanging model must not hold the endpoint's slots (issue 32): a call gives its slot up when
 * its turn times out or its meeting is cut, even when the provider never settles, and a call
 * that times out while it waits in line leaves the line at once. Time is a fake clock: nothing
 * sleeps, every wait is for the event itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Participant } from '@roundtable/protocol';
import { KeyedLimiter } from '../../daemon/src/daemon/limiter';
import { callModel, type CallOutcome } from '../../daemon/src/meeting/modelCall';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import type { ChatProvider, ChatRequest } from '../../daemon/src/providers/types';
import { FakeClock } from '../fakes/clock';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);
const turn = () => new Promise((r) => setImmediate(r));

describe('the limiter releases a slot on every path', () => {
  it('a running call whose signal aborts gives its slot up although it never settles', async () => {
    const limiter = new KeyedLimiter(() => 1);
    const ac = new AbortController();
    void limiter.run('k', never, ac.signal).catch(() => undefined);
    const second = limiter.run('k', () => Promise.resolve('second ran'));
    await turn();
    assert.equal(limiter.waiting('k'), 1);
    ac.abort(new Error('turn timed out'));
    assert.equal(await second, 'second ran');
    assert.equal(limiter.inFlight('k'), 0);
  });

  it('a waiting call whose signal aborts leaves the line with its reason, and the line moves on', async () => {
    const limiter = new KeyedLimiter(() => 1);
    let release: () => void = () => undefined;
    const first = limiter.run('k', () => new Promise<void>((r) => (release = r)));
    const ac = new AbortController();
    const waiting = limiter.run('k', () => Promise.resolve('never runs'), ac.signal);
    const third = limiter.run('k', () => Promise.resolve('third ran'));
    await turn();
    assert.equal(limiter.waiting('k'), 2);
    ac.abort(new Error('cut'));
    await assert.rejects(waiting, /^Error: cut$/);
    assert.equal(limiter.waiting('k'), 1);
    release();
    await first;
    assert.equal(await third, 'third ran');
    assert.equal(limiter.inFlight('k'), 0);
  });

  it('an abort after the call settled releases nothing twice', async () => {
    const limiter = new KeyedLimiter(() => 2);
    const ac = new AbortController();
    await limiter.run('k', () => Promise.resolve(1), ac.signal);
    ac.abort();
    assert.equal(limiter.inFlight('k'), 0);
    await Promise.all([limiter.run('k', turn), limiter.run('k', turn)]);
    assert.equal(limiter.inFlight('k'), 0);
  });

  it('an already aborted call never takes a slot', async () => {
    const limiter = new KeyedLimiter(() => 1);
    let ran = false;
    await assert.rejects(
      limiter.run('k', () => ((ran = true), Promise.resolve()), AbortSignal.abort(new Error('gone'))),
      /gone/,
    );
    assert.equal(ran, false);
    assert.equal(limiter.inFlight('k'), 0);
  });

  it('a failing call and a throwing call each release their slot', async () => {
    const limiter = new KeyedLimiter(() => 1);
    const ac = new AbortController();
    await assert.rejects(
      limiter.run('k', () => Promise.reject(new Error('boom')), ac.signal),
      /boom/,
    );
    await assert.rejects(
      limiter.run('k', () => {
        throw new Error('sync');
      }),
      /sync/,
    );
    assert.equal(await limiter.run('k', () => Promise.resolve(7)), 7);
    assert.equal(limiter.inFlight('k'), 0);
  });
});

describe('a hanging model on a shared endpoint', () => {
  const hanging: Participant = { name: 'ada', role: 'worker', provider: 'openai', model: 'hang' };
  const healthy: Participant = { name: 'bob', role: 'worker', provider: 'openai', model: 'fake-model' };
  let fake: FakeOpenAI;
  before(async () => {
    // The hanging model's server accepts the request and never answers; the other answers.
    fake = await startFakeOpenAI((body) =>
      body.model === 'hang' ? never<{ text: string }>() : { text: 'healthy reply' },
    );
  });
  after(() => fake.close());

  function call(
    p: Participant,
    provider: ChatProvider,
    limiter: KeyedLimiter,
    clock: FakeClock,
    signal = new AbortController().signal,
  ): Promise<CallOutcome> {
    return callModel(
      {
        providerFor: () => provider,
        clock,
        schedule: (_p, f, s) => limiter.run('openai@endpoint', f, s),
      },
      {
        participant: p,
        purpose: 'turn',
        round: 1,
        messages: [{ role: 'user', content: 'Pick a queue' }],
        maxTokens: 32,
        signal,
        timeoutMs: 60_000,
        meetingId: p.name,
        topic: 'Pick a queue',
      },
    );
  }

  it('four hanging calls take every slot; at their turn timeout another meeting on the endpoint proceeds', async () => {
    const limiter = new KeyedLimiter(() => 4);
    const clock = new FakeClock();
    const provider = new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 0 });
    const hung = Array.from({ length: 4 }, () => call(hanging, provider, limiter, clock));
    while (fake.requests.filter((r) => r.body.model === 'hang').length < 4) await turn();
    // The other meeting's call starts later (its own timer), queued behind the four.
    const otherClock = new FakeClock();
    const other = call(healthy, provider, limiter, otherClock);
    await turn();
    assert.equal(limiter.waiting('openai@endpoint'), 1);
    clock.advance(60_000);
    for (const h of await Promise.all(hung))
      assert.deepEqual(h, { ok: false, reason: 'timeout', error: 'ada did not answer within 60 s' });
    const o = await other;
    assert.ok(o.ok && o.result.text === 'healthy reply', JSON.stringify(o));
    assert.equal(limiter.inFlight('openai@endpoint'), 0);
  });

  it('a provider that ignores the abort (a window that never answers) still frees its slot at the timeout', async () => {
    const limiter = new KeyedLimiter(() => 1);
    const clock = new FakeClock();
    const deaf: ChatProvider = { id: 'deaf', chat: (_r: ChatRequest) => never() };
    const stuck = call(hanging, deaf, limiter, clock);
    const otherClock = new FakeClock();
    const other = call(healthy, new OpenAIProvider({ baseURL: fake.baseURL }), limiter, otherClock);
    await turn();
    clock.advance(60_000);
    assert.equal((await stuck).ok, false);
    const o = await other;
    assert.ok(o.ok && o.result.text === 'healthy reply', JSON.stringify(o));
  });

  it('a queued call whose turn times out answers TIMEOUT at once, without waiting for a slot', async () => {
    const limiter = new KeyedLimiter(() => 1);
    const deaf: ChatProvider = { id: 'deaf', chat: () => never() };
    const holder = call(hanging, deaf, limiter, new FakeClock());
    const clock = new FakeClock();
    const queued = call(healthy, deaf, limiter, clock);
    await turn();
    clock.advance(60_000);
    assert.deepEqual(await queued, { ok: false, reason: 'timeout', error: 'bob did not answer within 60 s' });
    assert.equal(limiter.waiting('openai@endpoint'), 0);
    void holder;
  });

  it('a cut meeting frees the slots of its calls under way', async () => {
    const limiter = new KeyedLimiter(() => 1);
    const deaf: ChatProvider = { id: 'deaf', chat: () => never() };
    const meeting = new AbortController();
    const cutCall = call(hanging, deaf, limiter, new FakeClock(), meeting.signal);
    const other = call(healthy, new OpenAIProvider({ baseURL: fake.baseURL }), limiter, new FakeClock());
    await turn();
    meeting.abort(new Error('meeting ended: cut'));
    assert.equal((await cutCall).ok, false);
    assert.ok((await other).ok);
  });
});
