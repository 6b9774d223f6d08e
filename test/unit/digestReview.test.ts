/**
 * The digest review as a person sees it (rendered in jsdom from a recorded meeting): progress
 * while the digest is written, the outcome in words, the digest as Markdown sections (model HTML
 * shown as text), read-only with who decided when after Accept, links to the files written, and
 * Accept offered again on the new digest after another round.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { JSDOM } from 'jsdom';
import type { MeetingEvent } from '@roundtable/protocol';
import { fold } from '@roundtable/protocol';
import { renderDigestView } from '../../webview/src/digestRender';
import { loadPanel } from '../../daemon/src/panel';
import { runMeeting } from '../fakes/meetings';

const doc = () => new JSDOM('<!DOCTYPE html><body></body>').window.document;
const text = (n: Element | null | undefined) => n?.textContent ?? '';

let demo: MeetingEvent[];
before(async () => {
  const root = path.join(__dirname, '..', '..');
  const script = JSON.parse(readFileSync(path.join(root, 'examples', 'demo-script.json'), 'utf8')) as {
    replies: Record<string, unknown>;
  };
  const { events } = await runMeeting({
    topic: 'Should we adopt a monorepo for our three services?',
    participants: loadPanel(path.join(root, 'examples', 'demo-panel.json')),
    script: { replies: script.replies },
  });
  demo = events;
});

function then(events: MeetingEvent[], body: Record<string, unknown>): MeetingEvent[] {
  const last = events.at(-1)!;
  return [
    ...events,
    { ...body, meetingId: last.meetingId, seq: last.seq + 1, at: Date.UTC(2026, 10, 23, 9) } as MeetingEvent,
  ];
}

describe('the digest review', () => {
  it('shows progress, not a blank panel, between the close and the digest', () => {
    const closedAt = demo.findIndex((e) => e.type === 'meeting_closed');
    assert.ok(
      closedAt > 0 && demo.findIndex((e) => e.type === 'digest_ready') > closedAt,
      'the digest follows the close',
    );
    const view = renderDigestView(doc(), fold(demo.slice(0, closedAt + 1)));
    assert.equal(text(view.querySelector('[data-testid="progress"]')), 'Writing the digest…');
    assert.equal(view.querySelector('[data-testid="progress"]')?.getAttribute('role'), 'status');
    assert.equal(view.querySelector('#accept'), null, 'nothing to accept yet');
  });

  it('names the outcome in words and renders the digest as sections, with Edit and the actions', () => {
    const view = renderDigestView(doc(), fold(demo));
    assert.equal(text(view.querySelector('[data-testid="outcome"]')), 'Full consensus after 3 rounds');
    assert.doesNotMatch(text(view), /consensus_full/);
    const rendered = view.querySelector('[data-testid="digest-rendered"]');
    assert.deepEqual(
      [...(rendered?.querySelectorAll('h2') ?? [])].map((h) => h.textContent),
      ['Outcome', 'Dissent', 'Contributions', 'Standing', 'Was the debate worth it?'],
    );
    assert.match(
      text(rendered),
      /Debate changed the outcome: yes .* changed position: grace DISAGREE → NEUTRAL in round 2/,
    );
    assert.match(text(rendered), /Full consensus · confidence 1\.00 · [\d,]+ \/ 15,000 tokens/);
    const area = view.querySelector('#digest-text') as HTMLTextAreaElement;
    assert.ok(area.hasAttribute('hidden'), 'the Markdown editor opens with Edit');
    assert.match(area.value, /^## Outcome\n\n/);
    for (const id of ['#edit-toggle', '#accept', '#reject', '#another', '#instruction'])
      assert.ok(view.querySelector(id), id);
    const editing = renderDigestView(doc(), fold(demo), { editing: true, draft: '## Outcome\n\nMy words' });
    assert.ok(!editing.querySelector('#digest-text')?.hasAttribute('hidden'));
    assert.equal((editing.querySelector('#digest-text') as HTMLTextAreaElement).value, '## Outcome\n\nMy words');
    assert.equal(text(editing.querySelector('#edit-toggle')), 'Preview');
  });

  it('shows a model’s HTML and headings in the digest as text', () => {
    const s = fold(demo);
    const hostile = '<img src=x onerror=alert(1)>\n## Injected\n<script>alert(1)</script>[x](javascript:alert(1))';
    s.digest = s.digest && { ...s.digest, digest: { ...s.digest.digest, consensusStatement: hostile } };
    const view = renderDigestView(doc(), s);
    const rendered = view.querySelector('[data-testid="digest-rendered"]');
    const markdown = (view.querySelector('#digest-text') as HTMLTextAreaElement).value;
    assert.ok(markdown.includes('<img src=x onerror=alert(1)>'), 'the Markdown shows the text as the model wrote it');
    assert.doesNotMatch(markdown, /^## Injected/m, 'but cannot add a section');
    assert.equal(rendered?.querySelectorAll('img, script, a').length, 0);
    assert.equal(rendered?.querySelectorAll('h2').length, 5, 'no section added');
    assert.match(text(rendered), /<img src=x onerror=alert\(1\)>/);
  });

  it('is read-only after Accept: who decided when, links to the minutes and the record, no actions', () => {
    const s = fold(
      then(demo, { type: 'decision_recorded', decision: 'accepted', digestText: '## Outcome\n\nAdopt it' }),
    );
    const view = renderDigestView(doc(), s, {
      decidedBy: 'Grace Hopper',
      files: { minutes: 'docs/roundtable/m.md', decision: 'docs/decisions/0001-m.md' },
    });
    assert.equal(
      text(view.querySelector('[data-testid="decided"]')),
      'Decided: accepted by Grace Hopper on 2026-11-23',
    );
    for (const id of ['#accept', '#reject', '#another', '#instruction', '#edit-toggle'])
      assert.equal(view.querySelector(id), null, `${id} is gone`);
    assert.ok(view.querySelector('#digest-text')?.hasAttribute('readonly'));
    assert.match(text(view.querySelector('[data-testid="digest-rendered"]')), /Adopt it/);
    const links = [...view.querySelectorAll('[data-testid="files"] a')].map((a) => [
      a.getAttribute('data-open'),
      a.textContent,
    ]);
    assert.deepEqual(links, [
      ['minutes', 'docs/roundtable/m.md'],
      ['decision', 'docs/decisions/0001-m.md'],
    ]);
  });

  it('offers Accept again on the new digest after another round', () => {
    const again = then(demo, {
      type: 'decision_recorded',
      decision: 'another_round',
      instruction: 'cost?',
      digestText: 'x',
    });
    const running = renderDigestView(doc(), fold(again));
    assert.equal(running.querySelector('#accept'), null);
    assert.match(text(running.querySelector('[data-testid="progress"]')), /Another round is running/);
    const digest = demo.find((e) => e.type === 'digest_ready')!;
    const reviewed = renderDigestView(doc(), fold(then(again, { ...digest, seq: undefined, meetingId: undefined })));
    assert.ok(reviewed.querySelector('#accept'), 'Accept is back');
    assert.equal(reviewed.querySelector('[data-testid="decided"]'), null);
    assert.match((reviewed.querySelector('#digest-text') as HTMLTextAreaElement).value, /^## Outcome/);
  });

  it('offers no Accept for a failed meeting', () => {
    const s = fold(demo);
    s.closed = { reason: 'error', detail: 'every worker failed: connection refused' };
    const view = renderDigestView(doc(), s);
    assert.equal(
      text(view.querySelector('[data-testid="outcome"]')),
      'Failed after 3 rounds — every worker failed: connection refused',
    );
    assert.equal(view.querySelector('#accept'), null);
    assert.match(text(view.querySelector('[data-testid="failed"]')), /no outcome to accept/);
    assert.ok(view.querySelector('#reject'));
  });
});
