/**
 * Degraded, said plainly (issue 35), on a loopback OpenAI-compatible server: a worker whose server
 * answers every request with HTTP 429 (after the provider's retries) leaves the meeting with one
 * line in the room and is no voice in any tally; the digest, the review and the minutes say
 * "decided by 3 of 4 workers"; two of three failing end with no decision; a synthesis that fails
 * is shown as failed beside the computed fallback.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Participant } from '@roundtable/protocol';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { digestMarkdown } from '../../protocol/src/digestMarkdown';
import { eventsOfType, runMeeting } from '../fakes/meetings';
import { seatOf, startFakeOpenAI, type Behaviour, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';

/**
 * OpenAI's rate-limit answer: HTTP 429 with `{ error: { message, type: 'requests', code:
 * 'rate_limit_exceeded' } }` (https://platform.openai.com/docs/guides/error-codes; the fake's
 * default error body for 429). retry-after-ms keeps the provider's retries fast.
 */
const RATE_LIMITED: Behaviour = { status: 429, retryAfterMs: 1 };

/** Every seat plays its part; the seats in `failing` get a 429 on every request. */
function responder(failing: ReadonlySet<string>, digestFails = false) {
  return (body: ChatBody): Behaviour => {
    const { me, round, system } = seatOf(body);
    if (failing.has(me)) return RATE_LIMITED;
    if (/the judge/.test(system)) return { text: 'CLEAN' };
    if (/closing digest/.test(system)) {
      return digestFails ? { status: 500 } : { text: 'CONSENSUS_STATEMENT: adopt it\nCONTRIBUTORS: all' };
    }
    if (/chairs a structured roundtable/.test(system)) return { text: 'Welcome.' };
    return { text: `${me} in round ${round}: adopt it. [STANCE: AGREE]` };
  };
}

const seat = (name: string, role: Participant['role']): Participant => ({
  name,
  role,
  provider: 'openai',
  model: 'm',
});
const panelOf = (workers: string[]): Participant[] => [
  seat('sam', 'assistant'),
  seat('jude', 'judge'),
  ...workers.map((w) => seat(w, 'worker')),
];

describe('a worker whose server fails for good', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI(() => ({}));
  });
  after(() => fake.close());

  const meet = (workers: string[], failing: string[], digestFails = false) => {
    fake.setResponder(responder(new Set(failing), digestFails));
    return runMeeting({
      script: {},
      provider: new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 1 }),
      participants: panelOf(workers),
      config: { maxRounds: 4 },
    });
  };

  it('leaves with one line in the room, is no voice in the tally, and the digest says "3 of 4"', async () => {
    const first = fake.requests.length;
    const { state, events } = await meet(['ada', 'grace', 'linus', 'barbara'], ['grace']);
    const asked = fake.requests.slice(first).filter((r) => seatOf(r.body).me === 'grace');
    assert.equal(asked.length, 2, 'one request and its retry, then never again');
    assert.deepEqual(
      eventsOfType(events, 'seat_left').map((e) => [e.participant, e.round]),
      [['grace', 1]],
    );
    const lines = state.messages.filter((m) => /grace/.test(m.text) && m.kind === 'announcement');
    assert.equal(lines.length, 1, 'one line in the room');
    assert.match(
      lines[0]?.text ?? '',
      /grace leaves the meeting: its server failed \(.*429.*\)\. 3 of 4 workers remain/,
    );
    // Three agree, nobody else votes: full consensus of the remaining three, no neutral.
    const c = state.rounds[0]?.consensus;
    assert.deepEqual([c?.level, c?.agree, c?.neutral, c?.voters], ['FULL', 3, 0, 3]);
    const d = state.digest?.digest;
    assert.match(d?.seats ?? '', /^decided by 3 of 4 workers: grace's server failed \(.*429.*\)$/);
    assert.doesNotMatch(d?.dissent ?? '', /grace/, 'a failure is no dissent');
    assert.equal(d?.confidence, 1);
    assert.match(state.digest?.text ?? '', /^SEATS: decided by 3 of 4 workers: grace's server failed/m);
    assert.match(digestMarkdown(state), /decided by 3 of 4 workers: grace's server failed/);
    assert.match(renderMinutes(state), /SEATS: decided by 3 of 4 workers/);
  });

  it('two of three failing end the meeting with no decision', async () => {
    const { state } = await meet(['ada', 'grace', 'linus'], ['grace', 'linus']);
    assert.equal(state.closed?.reason, 'error');
    assert.match(
      state.closed?.detail ?? '',
      /only 1 of 3 workers remain: grace's server failed .*; linus's server failed/,
    );
    assert.equal(state.rounds[0]?.consensus, undefined, 'no tally of one voice');
    assert.match(state.digest?.digest.noDecision ?? '', /Only 1 of 3 workers remained/);
  });

  it('a synthesis that fails is shown as failed, with its reason, beside the computed fallback', async () => {
    const { state } = await meet(['ada', 'linus'], [], true);
    const d = state.digest?.digest;
    assert.match(
      d?.consensusStatement ?? '',
      /^No statement was produced \(the synthesis failed: sam \(m\) failed: .*500.*\); see/,
    );
    assert.match(digestMarkdown(state), /the synthesis failed/);
  });
});
