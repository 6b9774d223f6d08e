import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventBody, MeetingSummary } from '@roundtable/protocol';
import { summaryOf, needOf } from '@roundtable/protocol';
import { contextOf, groupOf, outcomeOf, shortTopic } from '../../extension/src/meetingStatus';
import { given, opened, roundSaid } from '../fakes/given';

const digest: EventBody = { type: 'digest_ready', digest: { consensus: 'FULL' } as never, text: 'TOPIC: x' };
const closedOn = (reason: 'consensus_full' | 'error'): EventBody => ({ type: 'meeting_closed', reason });

function listed(...bodies: EventBody[]): MeetingSummary {
  return summaryOf(given(...bodies));
}

describe('meeting status in the Meetings view', () => {
  it('a running meeting sits under Running with its round', () => {
    const m = listed(...opened(), ...roundSaid(1, { ada: 'AGREE', grace: 'DISAGREE' }));
    assert.equal(groupOf(m), 'running');
    assert.equal(outcomeOf(m), 'Round 1 of 10');
    assert.equal(contextOf(m), 'meeting.running');
  });

  it('a closed meeting with its digest and no decision awaits a review, with a friendly outcome', () => {
    const log = [...opened(), ...roundSaid(1, { ada: 'AGREE', grace: 'AGREE' }), closedOn('consensus_full'), digest];
    assert.equal(needOf(given(...log)), 'review');
    const m = listed(...log);
    assert.equal(groupOf(m), 'awaiting');
    assert.equal(outcomeOf(m), 'Full consensus · review');
    assert.equal(contextOf(m), 'meeting.review');
  });

  it('after Accept it is closed and says so; after another round it runs again and then awaits a new review', () => {
    const done = [...opened(), ...roundSaid(1, { ada: 'AGREE', grace: 'AGREE' }), closedOn('consensus_full'), digest];
    const accepted = listed(...done, { type: 'decision_recorded', decision: 'accepted' });
    assert.equal(groupOf(accepted), 'closed');
    assert.equal(outcomeOf(accepted), 'Full consensus · accepted');

    const reopened: EventBody[] = [
      ...done,
      { type: 'decision_recorded', decision: 'another_round', instruction: 'again' },
    ];
    assert.equal(needOf(given(...reopened)), undefined, 'nothing to decide while the extra round runs');
    assert.equal(groupOf(listed(...reopened)), 'running');
    const again = [...reopened, ...roundSaid(2, { ada: 'AGREE', grace: 'AGREE' }), closedOn('consensus_full'), digest];
    assert.equal(needOf(given(...again)), 'review', 'the new digest is reviewed afresh');
    assert.equal(given(...again).decision, undefined);
  });

  it('a failed meeting is failed (Retry/Discard), never a review to accept', () => {
    const log = [...opened(), closedOn('error'), digest];
    assert.equal(needOf(given(...log)), 'failed');
    const m = listed(...log);
    assert.equal(contextOf(m), 'meeting.failed');
    assert.equal(outcomeOf(m), 'Failed');
    assert.equal(groupOf(m), 'awaiting');
  });

  it('a quarantined meeting (a log the daemon set aside) is neither a review nor a failure to retry', () => {
    const m: MeetingSummary = { ...listed(...opened(), closedOn('error')), quarantined: 'line 5: usage is negative' };
    assert.equal(contextOf(m), 'meeting.quarantined', 'no Retry, Discard or Accept in its menus');
    assert.equal(outcomeOf(m), 'Quarantined · log unreadable');
    assert.equal(groupOf(m), 'closed', 'nothing in it awaits the person');
  });

  it('names a meeting with its bidi controls made visible, so a native label cannot read reversed', () => {
    const topic = 'Ship it?\u202E ?ti pihs ton ot ydaer';
    assert.equal(shortTopic(topic), 'Ship it?⟨U+202E⟩ ?ti pihs ton ot ydaer');
    assert.doesNotMatch(shortTopic(`${topic}\u2066`, 20), /[\u202a-\u202e\u2066-\u2069]/);
  });
});
