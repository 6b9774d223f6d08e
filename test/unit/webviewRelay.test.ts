/**
 * What the extension relays between its webviews and the daemon is named once in the protocol
 * (RELAYED_UP, RELAYED_DOWN) and declared once: a message the room or the review accepts is the
 * request the daemon accepts, with the meeting's id; and the rule of a human's extra round (an
 * instruction, never a blank one) is the same at every door.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DAEMON_EVENTS,
  DAEMON_REQUESTS,
  FROM_WEBVIEW,
  INSTRUCTION_NEEDED,
  RELAYED_DOWN,
  RELAYED_UP,
  TO_WEBVIEW,
  checkFromWebview,
  checkParams,
  type DaemonMethod,
} from '@roundtable/protocol';

const meetingId = 'm-1';

/** Each relayed message with payloads the webview may or may not send. */
const SAMPLES: Record<keyof typeof RELAYED_UP, Record<string, unknown>[]> = {
  'room/post': [{ text: 'Mind the cost' }, { text: '' }, { text: 'x'.repeat(20_001) }, { text: 7 }],
  'room/cut': [{}, { reason: 'enough' }, { reason: 'x'.repeat(501) }],
  'digest/resolve': [
    { action: 'pick', option: 'O2' },
    { action: 'pick' },
    { action: 'defer' },
    { action: 'another_round', instruction: 'dig into cost' },
    { action: 'another_round', instruction: '   ' },
    { action: 'another_round' },
    { action: 'vote' },
  ],
};

describe('the pass-through list', () => {
  it('a relayed webview message declares no field the daemon request does not have', () => {
    for (const [msg, method] of Object.entries(RELAYED_UP)) {
      const up = Object.keys(FROM_WEBVIEW[msg as keyof typeof RELAYED_UP].shape);
      const request = Object.keys(DAEMON_REQUESTS[method].params.shape);
      assert.deepEqual(
        up.filter((k) => !request.includes(k)),
        [],
        `${msg} -> ${method}`,
      );
    }
  });

  it('the room and the daemon accept and refuse the same relayed messages, with the same line', () => {
    for (const [msg, method] of Object.entries(RELAYED_UP) as [keyof typeof RELAYED_UP, DaemonMethod][]) {
      for (const sample of SAMPLES[msg]) {
        const fromView = checkFromWebview({ type: msg, ...sample });
        const toDaemon = checkParams(method, { meetingId, ...sample });
        assert.equal(fromView.ok, toDaemon.ok, `${msg} ${JSON.stringify(sample).slice(0, 80)}`);
        if (!fromView.ok && !toDaemon.ok && fromView.error.includes('needs'))
          assert.equal(fromView.error.split(': ').at(-1), toDaemon.error.split(': ').at(-1));
      }
    }
  });

  it('the daemon’s notifications relayed down are the daemon’s own schemas', () => {
    for (const m of Object.keys(RELAYED_DOWN) as (keyof typeof RELAYED_DOWN)[])
      assert.equal(TO_WEBVIEW[m], DAEMON_EVENTS[m]);
  });
});

describe('another round needs an instruction: one rule at every door', () => {
  const blank = ['', '   ', '\n\t'];
  it('a blank instruction is refused by the review, the escalation and both daemon requests, in one line', () => {
    for (const instruction of blank) {
      const refusals = [
        checkFromWebview({ type: 'digest/decide', decision: 'another_round', digestText: 'd', instruction }),
        checkFromWebview({ type: 'digest/resolve', action: 'another_round', instruction }),
        checkParams('meeting/decide', { meetingId, decision: 'another_round', instruction }),
        checkParams('meeting/resolve', { meetingId, action: 'another_round', instruction }),
      ];
      for (const r of refusals) {
        assert.equal(r.ok, false, JSON.stringify(instruction));
        if (r.ok) continue;
        assert.ok(!r.error.includes('\n'), r.error);
        // Refused by the rule, or first by the field's own bound (a text that is only blanks is empty).
        assert.match(r.error, new RegExp(`(${INSTRUCTION_NEEDED}|instruction must not be empty)$`));
      }
    }
  });
});
