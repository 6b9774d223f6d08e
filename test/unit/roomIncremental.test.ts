/**
 * The room webview renders incrementally: the real `webview/src/room.ts` in jsdom (test/fakes/roomView)
 * fed a long roundtable as the extension relays it. Counted, never timed: an event's DOM work,
 * the entries it rebuilds and the bytes it saves with `setState` do not grow with the room; a
 * reloaded view shows exactly what a full render of the same log shows; hostile text stays text.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { before, describe, it } from 'node:test';
import type { MeetingEvent } from '@roundtable/protocol';
import { fold } from '@roundtable/protocol';
import { panel, runMeeting } from '../fakes/meetings';
import { answerReady, loadRoom, longMeeting, type RoomView } from '../fakes/roomView';

const load = createRequire(__filename);
const text = (n: Element | null | undefined): string => n?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const ids = (root: Element): string[] =>
  [...root.querySelectorAll('[data-message-id]')].map((e) => e.getAttribute('data-message-id') ?? '');

interface RoundWork {
  dom: number;
  entries: number;
  stateBytes: number;
}

/**
 * Feeds the log to a fresh view, a frame per round while nothing is measured (the test stays fast)
 * and a frame per event in the rounds given, and returns each measured round's work.
 */
function play(log: readonly MeetingEvent[], measured: number[]): { view: RoomView; work: Map<number, RoundWork> } {
  const view = loadRoom();
  view.send({ type: 'room/reset', meetingId: log[0]?.meetingId ?? null });
  view.flush();
  const work = new Map<number, RoundWork>();
  let round = 0;
  for (const event of log) {
    if (event.type === 'round_started') {
      view.flush();
      view.takeWork();
      round = event.round;
    }
    const writes = view.stateWrites.length;
    view.send({ type: 'room/event', event });
    if (!measured.includes(round)) continue;
    view.flush();
    const w = view.takeWork();
    const r = work.get(round) ?? { dom: 0, entries: 0, stateBytes: 0 };
    r.dom += w.added + w.removed + w.changed;
    r.entries += w.entries;
    r.stateBytes += view.stateWrites.slice(writes).reduce((t, s) => t + s.length, 0);
    work.set(round, r);
  }
  view.flush();
  return { view, work };
}

let log: MeetingEvent[];
before(async () => {
  // 20 rounds of 5 workers: 100 contributions.
  log = await longMeeting(20);
});

describe('the room renders incrementally', () => {
  it('an event costs the same DOM work, rebuilt entries and saved bytes in a room of 100 messages as in one of 15', () => {
    const { work } = play(log, [3, 19]);
    const small = work.get(3);
    const large = work.get(19);
    assert.ok(small && large);
    // Each round adds the same things (5 messages, 5 stances, a column): what grows with the room is a defect.
    assert.ok(large.dom <= small.dom * 1.5 + 10, `DOM work per round: ${small.dom} at round 3, ${large.dom} at 19`);
    assert.ok(
      large.entries <= small.entries * 1.5 + 5,
      `entries rebuilt per round: ${small.entries} at round 3, ${large.entries} at 19`,
    );
    assert.ok(large.stateBytes <= 200, `setState bytes in round 19: ${large.stateBytes}`);
    assert.ok(small.stateBytes <= 200, `setState bytes in round 3: ${small.stateBytes}`);
  });

  it('a reloaded view shows exactly what a full render of the same log shows: nothing lost, nothing doubled', async () => {
    const { view: live } = play(log, []);
    const reloaded = loadRoom(live.state());
    // The view asks for its meeting again; the extension answers as roomView.ts does (reset, then the log).
    assert.deepEqual(reloaded.posted, [{ type: 'room/ready', sinceSeq: 0, meetingId: log[0]?.meetingId }]);
    answerReady(reloaded, log);
    // A replay sent twice (a show racing the ready) doubles nothing.
    answerReady(reloaded, log);
    reloaded.flush();

    const { renderRoom, QUIET_UI } = load('../../webview/src/render') as typeof import('../../webview/src/render');
    const full = document.createElement('div');
    renderRoom(full, fold(log), [], QUIET_UI);
    assert.equal(text(reloaded.root), text(full));
    assert.equal(text(live.root), text(full));
    assert.deepEqual(ids(reloaded.root), ids(full));
    assert.deepEqual(ids(live.root), ids(full));
    assert.equal(new Set(ids(full)).size, ids(full).length);
    await Promise.resolve();
  });

  it('a view saved by the previous release (the whole log in its state) asks for the log again and saves only its meeting', () => {
    const meetingId = log[0]?.meetingId ?? '';
    const view = loadRoom({ meetingId, events: log.slice(0, 40) });
    assert.deepEqual(view.posted, [{ type: 'room/ready', sinceSeq: 0, meetingId }]);
    assert.deepEqual(view.state(), { meetingId });
    answerReady(view, log);
    view.flush();
    assert.equal(ids(view.root).length, fold(log).messages.length);
  });

  it('hostile model text stays text on the incremental path, posted and while it is written', async () => {
    // Both agree in round 1: the meeting closes after it.
    const hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script> [STANCE: AGREE]';
    const { events } = await runMeeting({
      participants: panel(['ada', 'grace'], false),
      script: { replies: { ada: [hostile, hostile], grace: [hostile, hostile] } },
      config: { maxRounds: 2 },
    });
    const view = loadRoom();
    view.send({ type: 'room/reset', meetingId: events[0]?.meetingId ?? null });
    for (const event of events) {
      view.send({ type: 'room/event', event });
      if (event.type === 'round_started')
        view.send({
          type: 'room/delta',
          delta: {
            meetingId: event.meetingId,
            messageId: `live-${event.round}`,
            from: 'ada',
            round: event.round,
            purpose: 'turn',
            text: hostile,
          },
        });
      view.flush();
      assert.equal(view.root.querySelector('img, script'), null, `after ${event.type}`);
    }
    const bodies = [...view.root.querySelectorAll('.message-body')].map((b) => text(b));
    assert.ok(bodies.filter((b) => b.includes('<img src=x onerror="alert(1)"><script>alert(2)</script>')).length >= 2);
  });
});
