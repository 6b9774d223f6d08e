import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { JSDOM } from 'jsdom';
import type { MeetingEvent } from '../../protocol/src';
import { fold } from '../../protocol/src';
import { renderDigestView } from '../../webview/src/digestRender';
import { phaseOf, renderRoom } from '../../webview/src/render';
import { loadPanel } from '../../daemon/src/panel';
import { panel, runMeeting, turns } from '../fakes/meetings';

const doc = () => new JSDOM('<!DOCTYPE html><body></body>').window.document;
const text = (n: Element | null | undefined) => n?.textContent ?? '';

let demo: MeetingEvent[];
before(async () => {
  // A recorded log: the shipped demo meeting, played on the scripted provider.
  const script = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'examples', 'demo-script.json'), 'utf8')) as {
    replies: Record<string, unknown>;
  };
  const { events } = await runMeeting({
    topic: 'Should we adopt a monorepo for our three services?',
    participants: loadPanel(path.join(__dirname, '..', '..', 'examples', 'demo-panel.json')),
    script: { replies: script.replies },
  });
  demo = events;
});

describe('room view rendering', () => {
  it('shows the topic, state, round, budget, participants and every message of a recorded meeting', () => {
    const d = doc();
    const room = renderRoom(d, fold(demo), new Map());
    assert.equal(text(room.querySelector('.topic')), 'Should we adopt a monorepo for our three services?');
    assert.equal(text(room.querySelector('[data-testid="state"]')), 'Closed: consensus_full');
    assert.equal(text(room.querySelector('[data-testid="round"]')), 'Round 3 of 10');
    const budget = room.querySelector('[data-testid="budget"]');
    assert.equal(budget?.getAttribute('aria-valuenow'), String(Math.round((fold(demo).spokenTokens / 15000) * 100)));
    assert.match(text(budget), /\/ 15,000 tokens/);
    assert.equal(room.querySelectorAll('.participant').length, 5);
    assert.match(text(room.querySelector('.participant.role-judge')), /jude judge · scripted:scripted/);
    const posted = demo.filter((e) => e.type === 'message_posted').length;
    assert.equal(room.querySelectorAll('[data-testid="messages"] .message').length, posted);
    assert.match(text(room.querySelector('[data-testid="judge"]')), /Round 1: @grace/);
    assert.match(text(room.querySelector('[data-testid="digest"]')), /^TOPIC: Should we adopt/);
  });

  it('fills the stance matrix agent × round from the log', () => {
    const table = renderRoom(doc(), fold(demo), new Map()).querySelector('[data-testid="stances"]');
    const rows = [...(table?.querySelectorAll('tbody tr') ?? [])].map((r) => [...r.children].map((c) => c.textContent));
    assert.deepEqual(rows, [
      ['ada', 'AGREE', 'AGREE', 'AGREE'],
      ['grace', 'DISAGREE', 'NEUTRAL', 'AGREE'],
      ['linus', 'NEUTRAL', 'NEUTRAL', 'AGREE'],
    ]);
    assert.ok(table?.querySelector('td.stance-DISAGREE'));
  });

  it('renders the log as of any cursor: a prefix shows a running meeting, with streaming text', () => {
    const upTo = demo.findIndex((e) => e.type === 'round_started') + 2;
    const s = fold(demo.slice(0, upTo));
    const live = new Map([['r1-grace', { from: 'grace', round: 1, text: 'My concern is rel' }]]);
    const room = renderRoom(doc(), s, live);
    assert.equal(phaseOf(s), 'running');
    assert.equal(text(room.querySelector('[data-testid="state"]')), 'Running');
    assert.equal(text(room.querySelector('.message.streaming .message-body')), 'My concern is rel');
    assert.equal(room.querySelector('[data-testid="closed"]'), null);
  });

  it('shows the final-round state once the budget passes 80%', async () => {
    const long = (st: string) => Array.from({ length: 10 }, (_, i) => `${'word '.repeat(60)}${i}\n[STANCE: ${st}]`);
    const { events } = await runMeeting({
      config: { tokenBudget: 1000 },
      participants: panel(['ada', 'grace'], false),
      script: { replies: { ada: long('AGREE'), grace: long('DISAGREE') } },
    });
    const warned = events.findIndex((e) => e.type === 'budget_warning');
    const s = fold(events.slice(0, warned + 2));
    assert.equal(phaseOf(s), 'final_round');
    const room = renderRoom(doc(), s, new Map());
    assert.ok(room.querySelector('.budget-final'));
    assert.match(text(room.querySelector('[data-testid="budget"]')), /final round/);
    assert.match(text(room.querySelector('[data-testid="messages"]')), /Final round — make it count/);
  });

  it('never turns agent text into markup', async () => {
    const hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script> [STANCE: AGREE]';
    const { events } = await runMeeting({
      config: { maxRounds: 1 },
      script: { replies: { ada: [hostile], grace: turns(1, 'AGREE'), linus: turns(1, 'AGREE') } },
    });
    const room = renderRoom(doc(), fold(events), new Map());
    assert.equal(room.querySelector('img'), null);
    assert.equal(room.querySelector('script'), null);
    assert.match(text(room), /<img src=x onerror="alert\(1\)">/);
  });

  it('shows an empty room before any meeting', () => {
    assert.match(text(renderRoom(doc(), fold([]), new Map())), /Start Roundtable/);
  });
});

describe('digest review rendering', () => {
  it('offers the editable digest with Accept, Reject and Another Round', () => {
    const view = renderDigestView(doc(), fold(demo));
    const area = view.querySelector('#digest-text') as HTMLTextAreaElement;
    assert.match(area.value, /^## Outcome\n/);
    for (const id of ['#accept', '#reject', '#another', '#instruction']) assert.ok(view.querySelector(id), id);
  });

  it('shows the decision instead of buttons once recorded', () => {
    const decided: MeetingEvent = {
      type: 'decision_recorded',
      decision: 'accepted',
      digestText: 'EDITED',
      meetingId: demo[0]?.meetingId ?? '',
      seq: demo.length + 1,
      at: Date.now(),
    };
    const view = renderDigestView(doc(), fold([...demo, decided]));
    assert.equal(view.querySelector('#accept'), null);
    assert.match(text(view.querySelector('[data-testid="decided"]')), /accepted/);
    assert.equal((view.querySelector('#digest-text') as HTMLTextAreaElement).value, 'EDITED');
  });

  it('shows the voting matrix, verdicts, conflicts and the escalation choices of a consensus meeting', async () => {
    const b = (o1: string, c1: number, o2: string, c2: number, file: string) =>
      JSON.stringify({
        votes: [
          { option: 'O1', vote: o1, confidence: c1, rationale: 'r', evidence: [{ file }] },
          { option: 'O2', vote: o2, confidence: c2, rationale: 'r' },
        ],
      });
    const { events } = await runMeeting({
      mode: 'consensus',
      options: ['Monorepo', 'Polyrepo'],
      participants: panel(['ada', 'grace'], false),
      deps: { checkEvidence: () => Promise.resolve('exists') },
      script: {
        replies: {
          ada: Array<string>(3).fill(b('accept', 0.95, 'reject', 0.5, 'a.ts')),
          grace: Array<string>(3).fill(b('reject', 0.95, 'accept', 0.5, 'a.ts')),
        },
      },
    });
    const s = fold(events);
    assert.equal(s.status, 'awaiting_human');
    const view = renderDigestView(doc(), s);
    const rows = [...(view.querySelector('[data-testid="matrix"] tbody')?.children ?? [])].map((r) => r.textContent);
    assert.deepEqual(rows, ['adaaccept (0.95)reject (0.50)', 'gracereject (0.95)accept (0.50)']);
    assert.match(text(view.querySelector('[data-testid="conflicts"]')), /C1 critical contradiction/);
    assert.match(text(view.querySelector('[data-testid="reasons"]')), /critical conflict/);
    assert.deepEqual(
      [...view.querySelectorAll('#option option')].map((o) => o.getAttribute('value')),
      ['O1', 'O2'],
    );
    for (const id of ['#pick', '#resolve-another', '#defer']) assert.ok(view.querySelector(id), id);
    const room = renderRoom(doc(), s, new Map());
    assert.equal(text(room.querySelector('[data-testid="state"]')), 'Awaiting your decision');
    assert.match(text(room.querySelector('[data-testid="escalation"]')), /Needs your decision/);
  });
});
