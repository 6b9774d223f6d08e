/**
 * The extension relays by the pass-through list (extension/src/relay.ts over RELAYED_UP and
 * RELAYED_DOWN): the room's real webview code (jsdom, test/fakes/roomView.ts) posts what the person
 * does, the relay turns it into the daemon request the list names, a real in-process daemon takes
 * it, and its notification comes back down to the view as it was sent. Every message the list names
 * reaches the daemon as its request; a view relays only its own messages; another meeting's
 * notification never reaches the room.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  DaemonMethod,
  FromWebviewMessage,
  MeetingEvent,
  ParamsOf,
  StartMeetingParams,
} from '@roundtable/protocol';
import { RELAYED_UP, checkFromWebview, checkParams, type RelayedUp } from '@roundtable/protocol';
import { isRelayedUp, relayDown, relayUp, type Requester } from '../../extension/src/relay';
import { suiteDaemon } from '../fakes/daemon';
import { panel } from '../fakes/meetings';
import { loadRoom, type RoomView } from '../fakes/roomView';

/** A meeting that stays running: the attached seat waits for its agent, who never comes. */
const slowMeeting: StartMeetingParams = {
  topic: 'Relayed by the list',
  mode: 'roundtable',
  participants: [...panel(['ada'], false), { name: 'ext', role: 'worker', provider: 'attached', model: 'agent' }],
  providers: { script: { defaultDelayMs: 200, replies: { ada: ['Hmm. [STANCE: NEUTRAL]'] } } },
  config: { maxRounds: 3, order: 'sequential', turnTimeoutMs: 60_000 },
};

/** A relayed message of each type the list names, as a webview would send it. */
const SAMPLES: { [K in RelayedUp]: Extract<FromWebviewMessage, { type: K }> } = {
  'room/post': { type: 'room/post', text: 'Mind the cost' },
  'room/cut': { type: 'room/cut', reason: 'enough' },
  'digest/resolve': { type: 'digest/resolve', action: 'pick', option: 'O2' },
};

/** Records each request; `then` answers it (by default, nothing). */
function recorder(then?: Requester): Requester & { seen: [string, unknown][] } {
  const seen: [string, unknown][] = [];
  return {
    seen,
    request: <M extends DaemonMethod>(method: M, params: ParamsOf<M>) => {
      seen.push([method, params]);
      return then ? then.request(method, params) : (Promise.resolve({}) as never);
    },
  };
}

function click(view: RoomView, id: string): void {
  const button = view.root.ownerDocument.getElementById(id);
  assert.ok(button, `the room shows #${id}`);
  button.click();
  view.flush();
}

describe('the relay by the pass-through list', () => {
  const daemon = suiteDaemon();

  it('every webview message the list names reaches the daemon as the request named beside it, with the meeting’s id', async () => {
    for (const [type, method] of Object.entries(RELAYED_UP) as [RelayedUp, DaemonMethod][]) {
      const daemonSide = recorder();
      const checked = checkFromWebview(SAMPLES[type]);
      assert.ok(checked.ok && isRelayedUp(checked.value, type.startsWith('room/') ? 'room' : 'digest'), type);
      assert.equal(await relayUp(daemonSide, checked.value, 'm-1'), true);
      const { type: _, ...fields } = SAMPLES[type];
      assert.deepEqual(daemonSide.seen, [[method, { ...fields, meetingId: 'm-1' }]]);
      assert.ok(checkParams(method, daemonSide.seen[0]?.[1]).ok, `the daemon accepts ${method} as relayed`);
    }
  });

  it('a view relays only its own messages, and a check may stop one before it goes', async () => {
    assert.equal(isRelayedUp(SAMPLES['room/cut'], 'digest'), false, 'the review cannot cut the meeting');
    assert.equal(isRelayedUp(SAMPLES['digest/resolve'], 'room'), false);
    assert.equal(isRelayedUp({ type: 'room/copy', text: 'x' }, 'room'), false, 'the room answers copy itself');
    const daemonSide = recorder();
    const asked: (string | undefined)[] = [];
    const declined = await relayUp(daemonSide, SAMPLES['room/cut'], 'm-1', {
      'room/cut': (id) => (asked.push(id), Promise.resolve(false)),
    });
    assert.equal(declined, false);
    assert.deepEqual(asked, ['m-1']);
    assert.deepEqual(daemonSide.seen, [], 'a cut the person declined is never sent');
  });

  it('the room’s post and cut go to the daemon, and what it logs comes back down to the room', async () => {
    const host = daemon.host();
    const { meetingId } = await host.conn.rpc.request('meeting/start', { ...slowMeeting, follow: true });
    await host.until((es) => es.some((e) => e.meetingId === meetingId && e.type === 'round_started'));
    const view = loadRoom();
    let shown = 0;
    /** What the daemon sent so far about any meeting goes down through the relay, as the link hands it on. */
    const down = (): void => {
      const events: MeetingEvent[] = host.events;
      view.send({ type: 'room/reset', meetingId });
      for (const event of events.slice(shown)) {
        const msg = relayDown({ method: 'room/event', params: { event } }, meetingId);
        if (event.meetingId === meetingId) assert.deepEqual(msg, { type: 'room/event', event });
        else assert.equal(msg, undefined, 'another meeting’s event stays out of the room');
        if (msg) view.send(msg);
      }
      shown = events.length;
      view.flush();
    };
    const up = async (): Promise<void> => {
      for (const raw of view.posted.splice(0)) {
        const checked = checkFromWebview(raw);
        assert.ok(checked.ok);
        if (isRelayedUp(checked.value, 'room')) await relayUp(daemonSide, checked.value, meetingId);
      }
    };
    const daemonSide = recorder(host.conn.rpc);
    down();

    const box = view.root.ownerDocument.getElementById('post-text') as HTMLTextAreaElement;
    box.value = 'Consider the CI cost.';
    click(view, 'post');
    await up();
    assert.deepEqual(daemonSide.seen, [['room/post', { text: 'Consider the CI cost.', meetingId }]]);
    await host.until((es) => es.some((e) => e.type === 'human_posted' && e.text === 'Consider the CI cost.'));
    down();
    assert.match(view.root.textContent ?? '', /Consider the CI cost\./, 'the room shows the person’s post');

    click(view, 'cut');
    click(view, 'cut-yes');
    await up();
    assert.deepEqual(daemonSide.seen.at(-1), ['meeting/cut', { meetingId }]);
    await host.until((es) => es.some((e) => e.meetingId === meetingId && e.type === 'meeting_closed'));
    down();
    assert.match(view.root.textContent ?? '', /Ended: /, 'the room shows the meeting cut');
  });
});
