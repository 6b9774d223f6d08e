/**
 * When a roundtable stops, on a loopback OpenAI-compatible server (issue 35): no judge call after
 * a round that is the meeting's last for a reason known before the review, and the estimate plays
 * the same rule, so it predicts the calls the meeting makes; a panel whose stances stopped moving
 * ends "stable" two rounds after the last change, and not before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MeetingConfig, Participant, StartMeetingParams } from '@roundtable/protocol';
import { digestMarkdown } from '../../protocol/src/digestMarkdown';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { estimateMeeting } from '../../daemon/src/meeting/estimate';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { runMeeting } from '../fakes/meetings';
import { chatCalls, seatOf, startFakeOpenAI, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';

/** Each worker's stance in a round; the judge's reply to a round. */
interface Room {
  stance(me: string, round: number): string;
  judge(round: number): string;
}

/** Plays every seat from what its prompt says: who is asked, and which round it is. */
function responder(room: Room) {
  return (body: ChatBody) => {
    const { me, round, system } = seatOf(body);
    if (/the judge/.test(system)) return { text: room.judge(round) };
    if (/Update the rolling summary/.test(system)) return { text: `Summary: ${me} noted the positions.` };
    if (/closing digest/.test(system)) return { text: 'CONSENSUS_STATEMENT: none\nCONTRIBUTORS: everyone' };
    if (/chairs a structured roundtable/.test(system)) return { text: 'Welcome; let us begin.' };
    return { text: `${me} in round ${round}: my argument. [STANCE: ${room.stance(me, round)}]` };
  };
}

/** ada for, grace against, every round; the judge always has a correction for grace. */
const split: Room = {
  stance: (me) => (me === 'ada' ? 'AGREE' : 'DISAGREE'),
  judge: () => '@grace: cite a source for the cost figure.',
};

const seats: Participant[] = [
  { name: 'sam', role: 'assistant', provider: 'openai', model: 'm' },
  { name: 'jude', role: 'judge', provider: 'openai', model: 'm' },
  { name: 'ada', role: 'worker', provider: 'openai', model: 'm' },
  { name: 'grace', role: 'worker', provider: 'openai', model: 'm' },
];

/** The rounds the judge was asked to review, in order. */
function judgedRounds(fake: FakeOpenAI, from: number): number[] {
  return fake.requests
    .slice(from)
    .map((r) => seatOf(r.body))
    .filter((x) => /the judge/.test(x.system))
    .map((x) => x.round);
}

describe('when a roundtable stops', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI(responder(split));
  });
  after(() => fake.close());

  it('a meeting that ends by max rounds makes no judge call after its last round', async () => {
    const first = fake.requests.length;
    const { state } = await runMeeting({
      script: {},
      provider: new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 0 }),
      participants: seats,
      config: { maxRounds: 3 },
    });
    assert.equal(state.closed?.reason, 'max_rounds');
    assert.equal(state.rounds.length, 3);
    assert.deepEqual(judgedRounds(fake, first), [1, 2], 'rounds 1 and 2 reviewed, the last one not');
    assert.equal(state.rounds[2]?.judge, undefined, 'no review of round 3 in the log');
  });

  it('the estimate counts the calls the meeting makes', async () => {
    const params: StartMeetingParams = {
      topic: 'Should billing move from MySQL to PostgreSQL?',
      mode: 'roundtable',
      participants: seats,
      // No compaction: the filler's long replies would call for one where these short ones do not.
      config: { maxRounds: 3, compactAtTokens: 1_000_000 },
    };
    const estimate = await estimateMeeting(params);
    const first = chatCalls(fake);
    await runMeeting({
      script: {},
      provider: new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 0 }),
      participants: seats,
      config: params.config ?? {},
    });
    // The briefing, 3 rounds of 2 turns, reviews of rounds 1 and 2, the digest.
    assert.equal(chatCalls(fake) - first, 1 + 3 * 2 + 2 + 1);
    assert.equal(estimate.allRounds.calls, chatCalls(fake) - first);
  });

  describe('stop when stable', () => {
    /** ada moves in round 2 and then holds; grace holds from round 1. */
    const settling: Room = {
      stance: (me, round) => (me === 'grace' ? 'DISAGREE' : round === 1 ? 'NEUTRAL' : 'AGREE'),
      judge: () => 'CLEAN',
    };
    const meet = (room: Room, config: Partial<MeetingConfig> = {}) => {
      fake.setResponder(responder(room));
      return runMeeting({
        script: {},
        provider: new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 0 }),
        participants: seats,
        config: { maxRounds: 8, ...config },
      });
    };
    after(() => fake.setResponder(responder(split)));

    it('a panel that repeats its stances ends by "stable" two rounds after the last change, named in the digest and minutes', async () => {
      const { state } = await meet(settling);
      assert.equal(state.closed?.reason, 'stable');
      assert.equal(state.rounds.length, 4, 'the last change in round 2, repeated in rounds 3 and 4');
      assert.match(digestMarkdown(state), /ended: Positions stopped moving/);
      assert.match(renderMinutes(state), /Terminated by:\*\* `stable` \(positions unchanged since round 2\)/);
    });

    it('not before: a correction of the judge on the repeated round gets its answer first', async () => {
      const { state } = await meet({
        ...settling,
        judge: (round) => (round === 4 ? '@grace: cite a source for the cost figure.' : 'CLEAN'),
      });
      assert.equal(state.closed?.reason, 'stable');
      assert.equal(state.rounds.length, 5);
    });

    it('with --no-stop-when-stable it runs to max rounds', async () => {
      const { state } = await meet(settling, { maxRounds: 5, stopWhenStable: false });
      assert.equal(state.closed?.reason, 'max_rounds');
      assert.equal(state.rounds.length, 5);
    });
  });
});
