/**
 * Model faults against a real OpenAI-compatible server on loopback: every fault ends in a
 * recorded, explained outcome and the meeting still finishes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Participant } from '@roundtable/protocol';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { eventsOfType, runMeeting } from '../fakes/meetings';
import { instructionsOf, startFakeOpenAI, type Behaviour, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';

const panel: Participant[] = [
  { name: 'sam', role: 'assistant', provider: 'openai', model: 'm' },
  { name: 'ada', role: 'worker', provider: 'openai', model: 'm' },
  { name: 'grace', role: 'worker', provider: 'openai', model: 'm' },
];

/** ada misbehaves as told; grace and the assistant answer normally. */
function faulty(fault: Behaviour) {
  return (body: ChatBody): Behaviour => {
    const system = instructionsOf(body);
    if (/^You are ada, a worker/.test(system)) return fault;
    if (/^You are grace/.test(system)) return { text: 'I agree with the plan. [STANCE: AGREE]' };
    return { text: 'Summary: positions noted.' };
  };
}

describe('model faults on a loopback OpenAI-compatible server', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI();
  });
  after(() => fake.close());

  async function meetingWith(fault: Behaviour, opts: { timeoutMs?: number } = {}) {
    fake.setResponder(faulty(fault));
    return runMeeting({
      participants: panel,
      config: { maxRounds: 1, turnTimeoutMs: opts.timeoutMs ?? 10_000 },
      script: { replies: {} },
      provider: new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 2, timeoutMs: 5_000 }),
    });
  }

  it('a 429 with Retry-After is retried and the turn succeeds', async () => {
    let first = true;
    fake.setResponder((body) => {
      const system = instructionsOf(body);
      if (/^You are ada, a worker/.test(system) && first) {
        first = false;
        return { status: 429, retryAfterMs: 200 };
      }
      return faulty({ text: 'After the wait: yes. [STANCE: AGREE]' })(body);
    });
    const { state } = await runMeeting({
      participants: panel,
      config: { maxRounds: 1 },
      script: { replies: {} },
      provider: new OpenAIProvider({ baseURL: fake.baseURL }),
    });
    assert.equal(state.rounds[0]?.contributions.ada?.text, 'After the wait: yes. [STANCE: AGREE]');
    assert.equal(state.closed?.reason, 'consensus_full');
  });

  const cases: [string, Behaviour, (r: Awaited<ReturnType<typeof meetingWith>>) => void][] = [
    [
      'a persistent 500 is a failed turn with the reason',
      { status: 500 },
      ({ state }) => {
        assert.match(state.rounds[0]?.failures.ada?.detail ?? '', /failed \(500\) after retries/);
        assert.equal(state.rounds[0]?.stances.ada?.stance, 'UNKNOWN');
      },
    ],
    [
      'a connection reset mid-stream is a failed turn, not a short reply',
      { text: 'x'.repeat(300), chunkSize: 4, resetAfterChunks: 3 },
      ({ state }) => {
        assert.ok(state.rounds[0]?.failures.ada, 'recorded as a failure');
        assert.equal(state.rounds[0]?.contributions.ada, undefined);
      },
    ],
    [
      'a stream without the usage chunk is counted with the tokenizer',
      { text: 'Fine. [STANCE: AGREE]', usage: false },
      ({ state, events }) => {
        assert.equal(state.rounds[0]?.stances.ada?.stance, 'AGREE');
        assert.equal(
          eventsOfType(events, 'usage_recorded').find((e) => e.participant === 'ada')?.usage.source,
          'estimate',
        );
      },
    ],
    [
      'an empty reply is posted as such and counts as UNKNOWN',
      { text: '' },
      ({ state }) => {
        assert.equal(state.rounds[0]?.contributions.ada?.text, '(empty reply)');
        assert.equal(state.rounds[0]?.stances.ada?.stance, 'UNKNOWN');
      },
    ],
    [
      'a reply with no stance is UNKNOWN, counted neutral',
      { text: 'I have thoughts but no marker.' },
      ({ state }) => {
        assert.equal(state.rounds[0]?.stances.ada?.stance, 'UNKNOWN');
        assert.equal(state.rounds[0]?.consensus?.neutral, 1);
      },
    ],
    [
      'a 1 MB reply is truncated, keeping its stance, and says so',
      { text: `${'very long reasoning '.repeat(52_000)}\n[STANCE: AGREE]`, chunkSize: 65_536 },
      ({ state }) => {
        const text = state.rounds[0]?.contributions.ada?.text ?? '';
        assert.ok(text.length < 20_000, `cut to ${text.length} characters`);
        assert.match(text, /truncated by Roundtable: the reply was \d+ tokens/);
        assert.equal(state.rounds[0]?.stances.ada?.stance, 'AGREE');
        assert.ok(state.spokenTokens < 15_000, 'the budget survives');
      },
    ],
    [
      'invalid UTF-8 bytes in the stream are replaced, not fatal',
      { text: 'caf<INVALID-UTF8> ok [STANCE: NEUTRAL]', chunkSize: 64, invalidUtf8: true },
      ({ state }) => {
        assert.equal(state.rounds[0]?.stances.ada?.stance, 'NEUTRAL');
        assert.match(state.rounds[0]?.contributions.ada?.text ?? '', /^caf\uFFFD\( ok/);
      },
    ],
  ];
  for (const [what, fault, check] of cases) {
    it(what, async () => {
      const r = await meetingWith(fault);
      check(r);
      assert.ok(r.state.digest, 'the meeting still finishes with a digest');
    });
  }

  it('a reply slower than the per-agent timeout is TIMEOUT', async () => {
    const r = await meetingWith({ text: 'late [STANCE: AGREE]', delayMs: 1_500 }, { timeoutMs: 300 });
    assert.equal(r.state.rounds[0]?.stances.ada?.stance, 'TIMEOUT');
    assert.match(r.state.rounds[0]?.failures.ada?.detail ?? '', /did not answer within/);
    assert.ok(r.state.digest);
  });
});
