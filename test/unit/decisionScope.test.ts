/**
 * The record's `scope:` on Accept (issue 33): proposed from the meeting's context paths, edited in
 * the review, checked with the rulebook's own glob check, written in the MADR front matter and read
 * back by the rulebook's parser as it was written — and a glob that would point outside the
 * workspace or carry control characters is refused in one line.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { ContextAttached, MeetingEvent, MeetingState } from '@roundtable/protocol';
import { fold, parseScopeInput, proposedScope } from '@roundtable/protocol';
import { digestMarkdown } from '@roundtable/protocol/digestMarkdown';
import { decisionRecord } from '../../extension/src/decisionRecord';
import { parseRecord } from '../../daemon/src/decisions/record';
import { JSDOM } from 'jsdom';
import { renderDigestView } from '../../webview/src/digestRender';
import { readScope } from '../../webview/src/digestScope';
import { loadPanel } from '../../daemon/src/panel';
import { runMeeting } from '../fakes/meetings';

const ROOT = path.join(__dirname, '..', '..');

const item = (kind: 'file' | 'selection' | 'decision' | 'note', p?: string): ContextAttached['items'][number] => ({
  kind,
  ...(p !== undefined ? { path: p } : {}),
  sha256: '0'.repeat(64),
  tokens: 1,
  text: 'x',
  truncated: false,
});

const withContext = (context: ContextAttached | undefined): MeetingState => ({
  ...fold([]),
  ...(context ? { context: { ...context, seq: 2 } } : {}),
});

describe('the scope Accept proposes', () => {
  it('is the files, folders and globs attached, and a selection’s file, as asked', () => {
    const s = withContext({
      items: [item('file', 'src/db/pool.ts'), item('selection', 'src/api/users.ts:10-20')],
      refused: [],
      budget: 8000,
      paths: ['src/db/**/*.ts', 'migrations', 'src/api/users.ts', 'src/db/**/*.ts'],
    });
    assert.deepEqual(proposedScope(s), ['src/db/**/*.ts', 'migrations', 'src/api/users.ts']);
  });

  it('falls back on the files read (a selection’s file, never a note or a decision) in logs without the paths', () => {
    const s = withContext({
      items: [
        item('note'),
        item('decision', 'docs/decisions/0001-x.md'),
        item('file', 'src/a.ts'),
        item('selection', 'src/b.ts:3-9'),
      ],
      refused: [],
      budget: 8000,
    });
    assert.deepEqual(proposedScope(s), ['src/a.ts', 'src/b.ts']);
  });

  it('is empty for a meeting with no context, or one whose only context is a note', () => {
    assert.deepEqual(proposedScope(withContext(undefined)), []);
    assert.deepEqual(proposedScope(withContext({ items: [item('note')], refused: [], budget: 8000 })), []);
  });

  it('leaves out a path the rulebook would not keep', () => {
    const s = withContext({
      items: [],
      refused: [],
      budget: 8000,
      paths: ['../outside/**', '/etc/passwd', 'src/\u001b[31mred', 'ok/**'],
    });
    assert.deepEqual(proposedScope(s), ['ok/**']);
  });
});

describe('the scope as the person edits it', () => {
  it('reads one glob a line (or comma-separated), trimmed, ./ dropped, duplicates once', () => {
    assert.deepEqual(parseScopeInput(' src/db/**\n\n./docs/schema.sql, src/db/**\n'), {
      ok: true,
      globs: ['src/db/**', 'docs/schema.sql'],
    });
    assert.deepEqual(parseScopeInput('   \n'), { ok: true, globs: [] });
  });

  for (const [glob, why] of [
    ['../secrets/**', 'points outside the workspace'],
    ['/etc/**', 'points outside the workspace'],
    ['C:/Windows/**', 'points outside the workspace'],
    ['~/.ssh/*', 'points outside the workspace'],
    ['src/..\\..\\x', 'points outside the workspace'],
    ['src/\u001b]8;;http://evil\u0007x', 'holds a control character'],
    ['src/\u0085x', 'holds a control character'],
    [`src/${'a'.repeat(300)}`, 'is longer than 200 characters'],
  ] as const)
    it(`refuses ${JSON.stringify(glob.slice(0, 30))} in one line`, () => {
      const r = parseScopeInput(`src/ok/**\n${glob}`);
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.match(r.error, new RegExp(why));
      // eslint-disable-next-line no-control-regex -- the control characters are what must not be there
      assert.doesNotMatch(r.error, /[\n\r\u0000-\u0008\u001b\u0085]/, 'one line, no control character');
    });

  it('refuses more than 50 globs', () => {
    const r = parseScopeInput(Array.from({ length: 51 }, (_, i) => `dir${i}/**`).join('\n'));
    assert.deepEqual(r, { ok: false, error: 'A scope lists at most 50 globs (this one 51).' });
  });
});

let demoEvents: MeetingEvent[] = [];
/** The shipped demo's panel and script: a meeting that reaches a digest, as Accept sees it. */
async function decidedDemo(topic: string): Promise<MeetingState> {
  const script = JSON.parse(readFileSync(path.join(ROOT, 'examples', 'demo-script.json'), 'utf8')) as {
    replies: Record<string, unknown>;
  };
  const { events } = await runMeeting({
    topic,
    participants: loadPanel(path.join(ROOT, 'examples', 'demo-panel.json')),
    script: { replies: script.replies },
  });
  demoEvents = events;
  return fold(events);
}

describe('the scope in the written record', () => {
  const decided = decidedDemo;
  it('is read back by the rulebook’s parser as written, whatever characters the globs hold', async () => {
    const s = await decided('Which database for every service?');
    const scope = [
      'src/db/**',
      '*.sql',
      'docs/schema [v2]/**',
      'a "quoted" dir/*.ts',
      "it's/**",
      'x #not-a-comment/**',
      'src/<b>&amp;/**',
      '&anchor/**',
      '!tag/**',
      'ünïcödé/**',
    ];
    const doc = decisionRecord({
      state: s,
      digestText: digestMarkdown(s),
      minutesLink: 'm.md',
      decidedBy: 'Ada',
      scope,
    });
    const parsed = parseRecord('docs/decisions/0001-db.md', doc);
    assert.deepEqual(parsed.scope, scope);
    assert.deepEqual(parsed.notes, []);
    assert.equal(parsed.state, 'accepted');
    // No glob could add a key or end the front matter: the record's own fields are intact.
    assert.equal(parsed.title, 'Which database for every service?');
  });

  it('writes no scope key when there is none, and the record reads with an empty scope', async () => {
    const s = await decided('Which database?');
    const doc = decisionRecord({ state: s, digestText: digestMarkdown(s), minutesLink: 'm.md', decidedBy: 'Ada' });
    assert.doesNotMatch(doc, /^scope:/m);
    assert.deepEqual(parseRecord('docs/decisions/0001-db.md', doc).scope, []);
  });
});

describe('the scope box in the digest review', () => {
  let demo: MeetingState;
  const doc = () => new JSDOM('<!DOCTYPE html><body></body>').window.document;
  const box = (d: Document) => d.querySelector<HTMLTextAreaElement>('[data-testid="scope"]');

  it('shows the proposed globs, one a line, editable before Accept, and reads back what the person typed', async () => {
    demo = await decidedDemo('Which database?');
    const s: MeetingState = {
      ...demo,
      context: { items: [], refused: [], budget: 8000, paths: ['src/db/**', 'migrations'], seq: 2 },
    };
    const d = doc();
    d.body.append(renderDigestView(d, s));
    assert.equal(box(d)?.value, 'src/db/**\nmigrations');
    assert.ok(d.querySelector('#accept'), 'Accept beside it');
    box(d)!.value = 'src/db/**\n../../etc/passwd';
    assert.deepEqual(readScope(d), {
      ok: false,
      error: 'Scope "../../etc/passwd" points outside the workspace (scope globs are workspace-relative).',
    });
    box(d)!.value = 'src/db/**, docs/schema.sql';
    assert.deepEqual(readScope(d), { ok: true, globs: ['src/db/**', 'docs/schema.sql'] });
    // The person's edit survives a re-render (a new event).
    const again = doc();
    again.body.append(renderDigestView(again, s, { scopeDraft: 'mine/**' }));
    assert.equal(box(again)?.value, 'mine/**');
  });

  it('proposes nothing for a meeting without context, and is gone once decided', () => {
    const d = doc();
    d.body.append(renderDigestView(d, demo));
    assert.equal(box(d)?.value, '');
    assert.match(d.getElementById('scope-help')?.textContent ?? '', /none proposed/);
    const decided = fold([
      ...demoEvents,
      {
        type: 'decision_recorded',
        decision: 'accepted',
        meetingId: demoEvents.at(-1)!.meetingId,
        seq: demoEvents.at(-1)!.seq + 1,
        at: Date.UTC(2026, 10, 23),
      },
    ]);
    const after = doc();
    after.body.append(renderDigestView(after, decided));
    assert.equal(box(after), null);
  });
});
