/**
 * A step that throws what no step expects (a bug, a stack overflow on hostile text) ends the
 * meeting as failed, in its log, with a digest: followers see it close instead of waiting for
 * ever on a meeting that stays "running".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventBody, MeetingEvent } from '@roundtable/protocol';
import { MemoryStore } from '../../daemon/src/store/memoryStore';
import { StoreWriteError } from '../../daemon/src/store/types';
import { eventsOfType, runMeeting, turns } from '../fakes/meetings';

/** A store that throws `error` once, on the first event `when` picks. */
class FaultyStore extends MemoryStore {
  thrown = false;
  constructor(
    private readonly when: (b: EventBody) => boolean,
    private readonly error: Error,
  ) {
    super();
  }
  override append(meetingId: string, body: EventBody): Promise<MeetingEvent> {
    if (!this.thrown && this.when(body)) {
      this.thrown = true;
      return Promise.reject(this.error);
    }
    return super.append(meetingId, body);
  }
}

const script = { replies: { ada: turns(3, 'NEUTRAL'), grace: turns(3, 'NEUTRAL'), linus: turns(3, 'NEUTRAL') } };

describe('an unexpected error in a meeting step', () => {
  it('in a turn: the meeting closes as failed, saying why, and still gets its digest', async () => {
    const store = new FaultyStore(
      (b) => b.type === 'message_posted' && b.kind === 'contribution',
      new RangeError('Maximum call stack size exceeded'),
    );
    const { state, events } = await runMeeting({ script, store, config: { maxRounds: 3 } });
    assert.equal(state.status, 'closed');
    assert.equal(state.closed?.reason, 'error');
    assert.match(state.closed?.detail ?? '', /internal error .*Maximum call stack size exceeded/);
    assert.equal(eventsOfType(events, 'digest_ready').length, 1);
  });

  it('in the digest: a digest computed from the log alone is recorded, naming the failure', async () => {
    const store = new FaultyStore((b) => b.type === 'digest_ready', new TypeError('boom in the digest'));
    const { state } = await runMeeting({ script, store, config: { maxRounds: 1 } });
    assert.ok(state.digest, 'a digest was recorded');
    assert.match(state.digest?.digest.noDecision ?? '', /boom in the digest/);
  });

  it('a store that cannot write is not a meeting failure: the run rejects for the daemon to retry', async () => {
    const store = new FaultyStore(
      (b) => b.type === 'message_posted' && b.kind === 'contribution',
      new StoreWriteError('the disk is full'),
    );
    await assert.rejects(runMeeting({ script, store, config: { maxRounds: 1 } }), /disk is full/);
    const log = await store.load((await store.meetings())[0] ?? '');
    assert.equal(
      log.some((e) => e.type === 'close_requested' || e.type === 'meeting_closed'),
      false,
    );
  });
});
