/**
 * Retry-After from a hostile or broken server (issue 32): a wait past the cap fails the call at
 * once in one line instead of sleeping for days, an unreadable header falls back to the usual
 * backoff, and no wait outlives the call. The header forms are RFC 9110 §10.2.3 (delay-seconds
 * or an HTTP-date) and OpenAI's `retry-after-ms` (read by openai-node's `retryRequest`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { RETRY_AFTER_CAP_MS, retryAfterOf, waitText } from '../../daemon/src/providers/openaiErrors';
import { ProviderError, type ChatRequest } from '../../daemon/src/providers/types';
import { startFakeOpenAI, type Behaviour, type FakeOpenAI } from '../fakes/openaiServer';

function req(signal = new AbortController().signal): ChatRequest {
  return {
    model: 'fake-model',
    messages: [{ role: 'user', content: 'Should we adopt Postgres?' }],
    maxTokens: 64,
    signal,
    meta: { participant: 'ada', role: 'worker', purpose: 'turn', round: 1, topic: 'Postgres' },
  };
}

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ProviderError, String(e));
    assert.doesNotMatch(e.message, /\n/, 'one line');
    return e;
  }
  assert.fail('expected the call to fail');
}

describe('Retry-After is capped, validated and never outlives the call', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI(() => ({ text: 'fine' }));
  });
  after(() => fake.close());

  /** Requests made by one call that first meets `first` (then the server answers "fine"). */
  async function call(first: Behaviour, signal?: AbortSignal): Promise<{ made: number; result: Promise<unknown> }> {
    const before = fake.requests.length;
    fake.enqueue(first);
    const result = new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 2 }).chat(req(signal));
    await result.catch(() => undefined);
    return { made: fake.requests.length - before, result };
  }

  const tooLong: [string, Behaviour, RegExp][] = [
    ['Retry-After: 999999 (seconds)', { status: 429, retryAfter: 999_999 }, /^rate limited: .* asks to wait 11 days/],
    ['retry-after-ms: 99999999', { status: 429, retryAfterMs: 99_999_999 }, /asks to wait 27 h/],
    ['Retry-After: 61 (just past the cap)', { status: 429, retryAfter: 61 }, /asks to wait 61 s .* more than the 60 s/],
    [
      'Retry-After as an HTTP date in 2100',
      { status: 429, errorHeaders: { 'Retry-After': 'Fri, 01 Jan 2100 00:00:00 GMT' } },
      /asks to wait [\d,]+ days/,
    ],
    ['a 503 asking 999999 s', { status: 503, retryAfter: 999_999 }, /^unavailable \(503\): .* asks to wait 11 days/],
  ];
  for (const [name, first, message] of tooLong) {
    it(`${name}: fails at once in one line, without a retry`, async () => {
      const { made, result } = await call(first);
      const e = await failure(result);
      assert.match(e.message, message);
      assert.match(e.message, new RegExp(fake.baseURL.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      assert.equal(made, 1, 'no retry was sent');
    });
  }

  const ignored: [string, Record<string, string>][] = [
    ['retry-after-ms: -1', { 'retry-after-ms': '-1' }],
    ['Retry-After: -5', { 'Retry-After': '-5' }],
    ['Retry-After: NaN', { 'Retry-After': 'NaN' }],
    ['Retry-After: 1e9 (not delay-seconds)', { 'Retry-After': '1e9' }],
    ['Retry-After: Infinity', { 'Retry-After': 'Infinity' }],
    ['a 10 KB Retry-After', { 'Retry-After': '9'.repeat(10_000) }],
    ['Retry-After as a date in the past', { 'Retry-After': 'Wed, 21 Oct 2015 07:28:00 GMT' }],
  ];
  for (const [name, headers] of ignored) {
    it(`${name}: read as no wait asked (or none left), and the retry succeeds`, async () => {
      const { made, result } = await call({ status: 429, errorHeaders: headers });
      assert.equal(((await result) as { text: string }).text, 'fine');
      assert.equal(made, 2);
    });
  }

  it('x-should-retry: false on a 500 is not retried', async () => {
    const { made, result } = await call({ status: 500, errorHeaders: { 'x-should-retry': 'false' } });
    assert.equal((await failure(result)).kind, 'server');
    assert.equal(made, 1);
  });

  it('an abort during a wait the server asked ends the call at once, and its retry is never sent', async () => {
    const ac = new AbortController();
    const before = fake.requests.length;
    fake.enqueue({ status: 429, retryAfter: 30 });
    const pending = new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 2 }).chat(req(ac.signal));
    while (fake.requests.length === before || fake.requests.at(-1)?.status === undefined)
      await new Promise((r) => setImmediate(r));
    // Answered 429: the provider is reading it or already waiting the 30 s it asks; either way the abort ends the call now.
    ac.abort();
    assert.equal((await failure(pending)).kind, 'aborted');
    assert.equal(fake.requests.length - before, 1);
  });

  describe('the header as read', () => {
    const h = (o: Record<string, string>) => new Headers(o);
    const now = Date.parse('2026-01-01T00:00:00Z');
    const cases: [Record<string, string>, number | undefined][] = [
      [{ 'retry-after': '120' }, 120_000],
      [{ 'retry-after': ' 2.5 ' }, 2_500],
      [{ 'retry-after-ms': '250', 'retry-after': '999' }, 250],
      [{ 'retry-after-ms': 'abc', 'retry-after': '3' }, 3_000],
      [{ 'retry-after': 'Thu, 01 Jan 2026 00:01:00 GMT' }, 60_000],
      [{ 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }, 0],
      [{ 'retry-after': '+5' }, undefined],
      [{ 'retry-after': '0x10' }, undefined],
      [{ 'retry-after': '' }, undefined],
      [{ 'retry-after': 'soon' }, undefined],
      [{}, undefined],
    ];
    for (const [headers, want] of cases) {
      it(`${JSON.stringify(headers)} → ${String(want)}`, () => {
        assert.equal(retryAfterOf(h(headers), now), want);
      });
    }
    it('says a wait as a person reads it', () => {
      assert.equal(waitText(RETRY_AFTER_CAP_MS), '60 s');
      assert.equal(waitText(999_999_000), '11 days');
      assert.equal(waitText(45 * 60_000), '45 min');
    });
  });
});
