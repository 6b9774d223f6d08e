/** Given a meeting's log, when a command arrives, then these events (or this refusal). Pure. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventBody } from '@roundtable/protocol';
import { decide } from '../../daemon/src/meeting/commands';
import { RpcError } from '@roundtable/protocol';
import { given, opened, roundSaid } from '../fakes/given';

const closedWithDigest: EventBody[] = [
  ...opened(),
  { type: 'meeting_closed', reason: 'max_rounds' },
  {
    type: 'digest_ready',
    digest: {} as never,
    text: 'digest',
  },
];

function refused(f: () => unknown, code: string, message: RegExp): void {
  assert.throws(f, (e: unknown) => e instanceof RpcError && e.code === code && message.test(e.message));
}

describe('decide', () => {
  it('given a running meeting, when the human posts, then one human_posted with the given id', () => {
    const events = decide(
      { type: 'post', messageId: 'h-1', text: 'consider cost' },
      given(...opened(), ...roundSaid(1, { ada: 'AGREE' })),
    );
    assert.deepEqual(events, [
      {
        type: 'human_posted',
        messageId: 'h-1',
        from: 'human',
        text: 'consider cost',
        tokens: events[0]?.type === 'human_posted' ? events[0].tokens : -1,
        round: 1,
      },
    ]);
    assert.ok(events[0]?.type === 'human_posted' && events[0].tokens > 0);
  });

  it('given a closed meeting, when the human posts, then it is refused with what to do', () => {
    refused(
      () => decide({ type: 'post', messageId: 'h-1', text: 'x' }, given(...closedWithDigest)),
      'conflict',
      /another round/,
    );
  });

  it('given a running meeting, when it is cut, then close_requested not graceful with the reason', () => {
    assert.deepEqual(decide({ type: 'cut', reason: 'budget_exhausted', detail: '5000 of 5000' }, given(...opened())), [
      { type: 'close_requested', reason: 'budget_exhausted', detail: '5000 of 5000', graceful: false },
    ]);
  });

  it('given a running meeting, when it is closed, then a graceful close_requested; twice, then nothing more', () => {
    const ask = decide({ type: 'close' }, given(...opened()));
    assert.deepEqual(ask, [{ type: 'close_requested', reason: 'cut', detail: 'closed by the human', graceful: true }]);
    assert.deepEqual(decide({ type: 'close' }, given(...opened(), ...ask)), []);
    // A cut still overrides a graceful close that is waiting for the round to end.
    assert.equal(decide({ type: 'cut' }, given(...opened(), ...ask)).length, 1);
  });

  it('given a closed meeting, when it is cut or closed, then nothing is logged', () => {
    assert.deepEqual(decide({ type: 'cut' }, given(...closedWithDigest)), []);
    assert.deepEqual(decide({ type: 'close' }, given(...closedWithDigest)), []);
  });

  it('given a digest, when the human asks for another round, then the decision and the instruction as a post', () => {
    const events = decide(
      { type: 'decide', decision: 'another_round', instruction: 'cost it', messageId: 'h-2' },
      given(...closedWithDigest),
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ['decision_recorded', 'human_posted'],
    );
    refused(
      () => decide({ type: 'decide', decision: 'accepted', messageId: 'h-3' }, given(...opened())),
      'conflict',
      /once the meeting has closed/,
    );
  });

  it('given a digest with no decision, when anyone accepts or rejects it, then it is refused with the reason', () => {
    const none: EventBody[] = [
      ...opened(),
      { type: 'meeting_closed', reason: 'max_rounds' },
      {
        type: 'digest_ready',
        digest: { noDecision: 'No worker stated a stance — ada (gpt-5): refused (400)' } as never,
        text: 'digest',
      },
    ];
    for (const decision of ['accepted', 'rejected'] as const)
      refused(
        () => decide({ type: 'decide', decision, messageId: 'h-9' }, given(...none)),
        'conflict',
        /^No decision to accept: No worker stated a stance — ada \(gpt-5\): refused \(400\) Retry the meeting instead\.$/,
      );
    assert.equal(
      decide({ type: 'decide', decision: 'another_round', messageId: 'h-9' }, given(...none))[0]?.type,
      'decision_recorded',
      'another round is still allowed',
    );
  });

  it('given an escalation, when the human picks by label, then human_resolved with the option id', () => {
    const waiting = given(
      ...opened({ mode: 'consensus' }),
      {
        type: 'options_set',
        options: [
          { id: 'O1', label: 'Postgres' },
          { id: 'O2', label: 'SQLite' },
        ],
        source: 'user',
      },
      { type: 'escalated', reasons: ['close call'] },
    );
    assert.deepEqual(decide({ type: 'resolve', action: 'pick', option: 'sqlite', messageId: 'h' }, waiting), [
      { type: 'human_resolved', action: 'pick', option: 'O2' },
    ]);
    refused(
      () => decide({ type: 'resolve', action: 'pick', option: 'Mongo', messageId: 'h' }, waiting),
      'conflict',
      /O1 \(Postgres\)/,
    );
    refused(
      () => decide({ type: 'resolve', action: 'another_round', messageId: 'h' }, waiting),
      'conflict',
      /instruction/,
    );
    refused(
      () => decide({ type: 'resolve', action: 'defer', messageId: 'h' }, given(...opened())),
      'conflict',
      /not waiting/,
    );
  });

  it('given a seat taken, when another joins with that name in any case, then it is refused', () => {
    const joined = decide(
      { type: 'join', participant: { name: 'zoe', role: 'worker', provider: 'attached', model: 'attached' } },
      given(...opened()),
    );
    assert.equal(joined[0]?.type, 'participant_joined');
    refused(
      () =>
        decide(
          { type: 'join', participant: { name: 'ADA', role: 'worker', provider: 'attached', model: 'a' } },
          given(...opened()),
        ),
      'conflict',
      /already at the table/,
    );
  });

  it('given seats run by the daemon, when an agent speaks or leaves for one, then it is refused', () => {
    refused(
      () => decide({ type: 'speak', name: 'ada', text: 'hi' }, given(...opened())),
      'conflict',
      /run by the daemon/,
    );
    refused(() => decide({ type: 'leave', name: 'nobody' }, given(...opened())), 'not_found', /join it first/);
  });
});
