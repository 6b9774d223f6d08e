/**
 * One event costs the room's timeline what it touches, not the meeting's length: the real
 * `webview/src/room.ts` in jsdom (test/fakes/roomView) counts the timeline entries and keys it
 * visits (built, compared or keyed by the list) on each event. Counted, never timed. And the list
 * kept from event to event shows exactly what a full render of the same log shows, in the same
 * order, at every step: judge feedback, workspace tool calls and the person's posts included.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import type { MeetingEvent } from '@roundtable/protocol';
import { fold } from '@roundtable/protocol';
import { loadPanel } from '../../daemon/src/panel';
import { runMeeting } from '../fakes/meetings';
import { extendMeeting, loadRoom, longMeeting } from '../fakes/roomView';

const load = createRequire(__filename);
const text = (n: Element | null | undefined): string => n?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const ids = (root: Element): string[] =>
  [...root.querySelectorAll('[data-message-id]')].map((e) => e.getAttribute('data-message-id') ?? '');

/**
 * Entries and keys visited per event in each of `rounds` of `log`, played into one view: a frame
 * per event in those rounds (the worst case); the rounds between are applied without a frame, then
 * shown in one.
 */
function visitedPerEvent(log: readonly MeetingEvent[], rounds: number[]): { perEvent: number; messages: number }[] {
  const view = loadRoom();
  view.send({ type: 'room/reset', meetingId: log[0]?.meetingId ?? null });
  const out: { perEvent: number; messages: number }[] = [];
  let measuring = false;
  let visited = 0;
  let events = 0;
  const done = (): void => {
    out.push({ perEvent: visited / events, messages: view.root.querySelectorAll('[data-message-id]').length });
    measuring = false;
  };
  for (const event of log) {
    if (event.type === 'round_started' && measuring) done();
    if (out.length === rounds.length) break;
    if (event.type === 'round_started' && rounds.includes(event.round)) {
      view.flush();
      view.takeWork();
      [measuring, visited, events] = [true, 0, 0];
    }
    view.send({ type: 'room/event', event });
    if (!measuring) continue;
    view.flush();
    visited += view.takeWork().visited;
    events++;
  }
  if (measuring) done();
  assert.equal(out.length, rounds.length, 'every round measured was played');
  return out;
}

let long: MeetingEvent[];
before(async () => {
  // 200 rounds of 5 workers: about 1,000 contributions (the daemon plays 20, the rest repeat round 2).
  long = extendMeeting(await longMeeting(20), 200);
});

describe('an event costs the room what it touches', () => {
  it('visits as many timeline entries per event in a room of 1,000 messages as in one of 100', () => {
    const [small, large] = visitedPerEvent(long, [20, 200]);
    assert.ok(small && large);
    assert.ok(small.messages >= 95 && small.messages <= 105, `${small.messages} messages shown in round 20`);
    assert.ok(large.messages >= 995, `${large.messages} messages shown in round 200`);
    // Walking the whole timeline on each event makes this 10x; what an event touches does not grow.
    const ratio = large.perEvent / small.perEvent;
    assert.ok(
      ratio < 2,
      `entries visited per event: ${small.perEvent.toFixed(1)} at ${small.messages} messages, ` +
        `${large.perEvent.toFixed(1)} at ${large.messages} (${ratio.toFixed(2)}x)`,
    );
  });

  it('shows, event by event, exactly what a full render of the same log shows', async () => {
    const root = path.join(__dirname, '..', '..');
    const script = JSON.parse(readFileSync(path.join(root, 'examples', 'demo-script.json'), 'utf8')) as {
      replies: Record<string, unknown>;
    };
    const { events: demo } = await runMeeting({
      topic: 'Should we adopt a monorepo for our three services?',
      participants: loadPanel(path.join(root, 'examples', 'demo-panel.json')),
      script: { replies: script.replies },
    });
    assert.ok(
      demo.some((e) => e.type === 'judge_feedback'),
      'the demo meeting has judge feedback',
    );
    const meetingId = demo[0]?.meetingId ?? '';
    const ev = (body: Record<string, unknown>) => ({ meetingId, seq: 0, at: 0, ...body }) as unknown as MeetingEvent;
    const events = [...demo];
    // A tool call before a contribution, and the person posting after the judge spoke (both go in the middle).
    const adaAt = events.findIndex((e) => e.type === 'message_posted' && e.messageId === 'r2-ada');
    events.splice(adaAt, 0, {
      ...ev({ type: 'tool_called', round: 2, participant: 'ada', tool: 'read_file' }),
      ...({ args: '{"path":"src/app.ts"}', ok: true, result: 'src/app.ts\n1: export {}', tokens: 9 } as object),
    });
    const judged = events.findIndex((e) => e.type === 'judge_feedback');
    const round = (events[judged] as { round: number }).round;
    events.splice(
      judged + 1,
      0,
      ev({ type: 'human_posted', messageId: 'h-1', from: 'you', text: 'And CI?', tokens: 3, round }),
    );
    const log = events.map((e, i) => ({ ...e, seq: i + 1 }));

    // Loaded after a view: lit binds the document it first sees.
    loadRoom();
    const { renderRoom, QUIET_UI } = load('../../webview/src/render') as typeof import('../../webview/src/render');
    const fulls = new Map<number, { ids: string[]; text: string }>();
    const fullIds = (upTo: number): { ids: string[]; text: string } => {
      let f = fulls.get(upTo);
      if (f) return f;
      const full = document.createElement('div');
      renderRoom(full, fold(log.slice(0, upTo)), [], QUIET_UI);
      fulls.set(upTo, (f = { ids: ids(full), text: text(full.querySelector('.messages')) }));
      return f;
    };
    // A frame per event (each contribution first written live, then posted in the same element), and a frame per 4 events.
    let view = loadRoom();
    for (const every of [1, 4]) {
      view = loadRoom();
      view.send({ type: 'room/reset', meetingId });
      let written: { id: string; el: Element | null } | undefined;
      for (let i = 0; i < log.length; i++) {
        const e = log[i]!;
        if (every === 1 && e.type === 'message_posted' && e.kind === 'contribution') {
          const { messageId, from, round: r } = e;
          view.send({
            type: 'room/delta',
            delta: { meetingId, messageId, from, round: r, purpose: 'turn', text: 'So' },
          });
          view.flush();
          assert.deepEqual(ids(view.root), [...fullIds(i).ids, messageId], `${messageId} written live, last`);
          written = { id: messageId, el: view.root.querySelector(`[data-message-id="${messageId}"]`) };
        }
        view.send({ type: 'room/event', event: e });
        if ((i + 1) % every && i + 1 < log.length) continue;
        view.flush();
        const full = fullIds(i + 1);
        assert.deepEqual(ids(view.root), full.ids, `after event ${i + 1} (${e.type}), a frame per ${every}`);
        assert.equal(text(view.root.querySelector('.messages')), full.text);
        if (written)
          assert.equal(view.root.querySelector(`[data-message-id="${written.id}"]`), written.el, 'posted in place');
        written = undefined;
      }
    }
    const order = ids(view.root);
    // The tool call right before the contribution it informed; the person's post before the feedback on its round.
    assert.match(order[order.indexOf('r2-ada') - 1] ?? '', /^tool:/, order.join(' '));
    assert.ok(order.indexOf('h-1') < order.indexOf(`judge-jude@r${round}`), order.join(' '));
  });
});
