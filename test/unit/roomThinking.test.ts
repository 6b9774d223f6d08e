/**
 * What the room shows of a model's thinking, of a meeting that produced no decision and of the
 * scripted demo (rendered in jsdom from a recorded meeting, edited the way issue 24's engine writes
 * it): thinking folded under "Thought for N tokens", opened as text (never HTML), streamed into the
 * fold and never into the reply; a no-decision banner with Retry and no Accept; a Demo line.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { JSDOM } from 'jsdom';
import type { Digest, MeetingEvent, MeetingState, MessageDelta } from '@roundtable/protocol';
import { evolve, fold, decisionRefusal, needOf } from '@roundtable/protocol';
import { loadPanel } from '../../daemon/src/panel';
import { LiveMessages } from '../../protocol/src/live';
import { needOfSummary, outcomeOf } from '../../extension/src/meetingStatus';
import { runMeeting } from '../fakes/meetings';

// lit renders into the global document: one jsdom window for the whole file, set up before lit loads.
const dom = new JSDOM('<!DOCTYPE html><body></body>');
Object.assign(globalThis, { document: dom.window.document, window: dom.window });
type RenderModule = typeof import('../../webview/src/render');
let renderRoom: RenderModule['renderRoom'];
let QUIET_UI: RenderModule['QUIET_UI'];
let renderDigestView: typeof import('../../webview/src/digestRender').renderDigestView;

const text = (n: Element | null | undefined) => n?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const HOSTILE = 'Let me think. <img src=x onerror="alert(1)"> <script>alert(2)</script> **not bold**';
const REFUSED =
  'No worker stated a stance: ada (gpt-5) was refused by the server: 400 model not allowed; grace ended UNKNOWN';

function room(s: MeetingState, live: LiveMessages = new LiveMessages(), ui: Partial<RenderModule['QUIET_UI']> = {}) {
  const c = dom.window.document.createElement('div');
  dom.window.document.body.append(c);
  renderRoom(c, s, live.list(), { ...QUIET_UI, ...ui });
  return c;
}

let demo: MeetingEvent[];
before(async () => {
  ({ renderRoom, QUIET_UI } = await import('../../webview/src/render'));
  ({ renderDigestView } = await import('../../webview/src/digestRender'));
  const root = path.join(__dirname, '..', '..');
  const script = JSON.parse(readFileSync(path.join(root, 'examples', 'demo-script.json'), 'utf8')) as {
    replies: Record<string, unknown>;
  };
  ({ events: demo } = await runMeeting({
    topic: 'Should we adopt a monorepo for our three services?',
    participants: loadPanel(path.join(root, 'examples', 'demo-panel.json')),
    script: { replies: script.replies },
  }));
});

/** The same log as if the panel were real models (no scripted seat: not a demo). */
function real(events: MeetingEvent[]): MeetingEvent[] {
  return events.map((e) =>
    e.type === 'meeting_opened'
      ? {
          ...e,
          participants: e.participants.map((p) => ({ ...p, provider: 'openai' as const, model: `${p.name}-model` })),
        }
      : e.type === 'digest_ready'
        ? { ...e, digest: { ...e.digest, demo: undefined } }
        : e,
  );
}

/** Gives a posted message the model's thinking, as the engine writes it. */
function withThinking(events: MeetingEvent[], messageId: string, thinking: string, tokens?: number): MeetingEvent[] {
  return events.map((e) =>
    e.type === 'message_posted' && e.messageId === messageId
      ? { ...e, thinking, ...(tokens !== undefined ? { thinkingTokens: tokens } : {}) }
      : e,
  );
}

function withDigest(events: MeetingEvent[], patch: Partial<Digest>): MeetingEvent[] {
  return events.map((e) => (e.type === 'digest_ready' ? { ...e, digest: { ...e.digest, ...patch } } : e));
}

describe('thinking in the room', () => {
  it('folds a message’s thinking under "Thought for N tokens", closed, and opens it as text, never HTML', () => {
    const events = withThinking(real(demo), 'r1-ada', HOSTILE, 1234);
    const copied: string[] = [];
    const c = room(fold(events), undefined, { onCopy: (t) => copied.push(t) });
    const msg = c.querySelector('[data-message-id="r1-ada"]');
    const fold_ = msg?.querySelector('details[data-testid="thinking"]') as HTMLDetailsElement | null;
    assert.ok(fold_, 'the message has a thinking fold');
    assert.equal(fold_.open, false, 'closed until the person opens it');
    assert.equal(text(fold_.querySelector('summary')), 'Thought for 1,234 tokens');
    const body = fold_.querySelector('[data-testid="thinking-body"]');
    assert.equal(body?.textContent, HOSTILE, 'the thinking as written, as text');
    assert.equal(fold_.querySelector('img, script, strong'), null, 'no markup from the thinking');
    assert.equal(msg?.querySelector('img, script'), null);
    // Never the reply, nor its Copy, nor its stance.
    assert.doesNotMatch(text(msg?.querySelector('.message-body')), /Let me think|onerror/);
    (msg?.querySelector('button.copy') as HTMLButtonElement).click();
    assert.equal(copied.length, 1);
    assert.doesNotMatch(copied[0] ?? '', /Let me think/);
    assert.doesNotMatch(text(msg?.querySelector('.stance-badge')), /think/i);
    // Other messages have no fold.
    assert.equal(c.querySelectorAll('[data-testid="thinking"]').length, 1);
  });

  it('counts the thinking where the log does not say how long it was', () => {
    const c = room(fold(withThinking(real(demo), 'r1-ada', 'x'.repeat(400))));
    assert.equal(text(c.querySelector('[data-testid="thinking-summary"]')), 'Thought for about 100 tokens');
  });

  it('streams thinking into the fold, never into the reply; the posted message replaces both', () => {
    const events = withThinking(real(demo), 'r1-ada', 'Posted thinking.', 7);
    const at = events.findIndex((e) => e.type === 'message_posted' && e.messageId === 'r1-ada');
    let s = fold(events.slice(0, at));
    const live = new LiveMessages();
    const delta = (t: string, thinking: boolean): MessageDelta => ({
      meetingId: s.meetingId,
      messageId: 'r1-ada',
      purpose: 'turn',
      from: 'ada',
      round: 1,
      text: t,
      ...(thinking ? { thinking: true as const } : {}),
    });
    live.delta(delta('Weighing the options ', true), s);
    live.delta(delta('<b>carefully</b>', true), s);
    const c = dom.window.document.createElement('div');
    dom.window.document.body.append(c);
    renderRoom(c, s, live.list());
    const msg = () => c.querySelector('[data-message-id="r1-ada"]');
    assert.match(text(msg()?.querySelector('[data-testid="thinking-summary"]')), /^Thinking… \(about \d+ tokens?\)$/);
    assert.equal(text(msg()?.querySelector('.message-body')), '', 'no reply yet');
    live.delta(delta('A monorepo ', false), s);
    live.delta(delta('more thinking', true), s);
    live.delta(delta('helps.', false), s);
    renderRoom(c, s, live.list());
    assert.equal(text(msg()?.querySelector('.message-body')), 'A monorepo helps.');
    assert.equal(
      msg()?.querySelector('[data-testid="thinking-body"]')?.textContent,
      'Weighing the options <b>carefully</b>more thinking',
    );
    assert.equal(msg()?.querySelector('b'), null);
    // The person opens the fold while it streams; it stays open when the message is posted.
    (msg()?.querySelector('details') as HTMLDetailsElement).open = true;
    const posted = events[at]!;
    s = evolve(s, posted);
    live.settle(posted);
    renderRoom(c, s, live.list());
    assert.equal(text(msg()?.querySelector('[data-testid="thinking-summary"]')), 'Thought for 7 tokens');
    assert.equal(msg()?.querySelector('[data-testid="thinking-body"]')?.textContent, 'Posted thinking.');
    assert.equal((msg()?.querySelector('details') as HTMLDetailsElement).open, true, 'still open');
    assert.doesNotMatch(text(msg()?.querySelector('.message-body')), /thinking|Weighing/);
  });
});

describe('a meeting without a decision, and the demo', () => {
  it('the room says there is no decision first, names the refusal, and offers Retry', () => {
    let retried = 0;
    const c = room(fold(withDigest(real(demo), { noDecision: REFUSED })), undefined, { onRetry: () => retried++ });
    const banner = c.querySelector('[data-testid="no-decision"]');
    assert.equal(text(banner?.querySelector('p')), `No decision to accept. ${REFUSED}`);
    assert.equal(banner?.getAttribute('role'), 'alert');
    // First thing after the header: before the budget, the messages and the digest.
    assert.equal(c.querySelector('.room-header')?.nextElementSibling, banner);
    (banner?.querySelector('#retry') as HTMLButtonElement).click();
    assert.equal(retried, 1);
    assert.equal(c.querySelector('#accept'), null);
  });

  it('the review has the banner and Retry, and neither Accept nor Reject', () => {
    const doc = new JSDOM('<!DOCTYPE html><body></body>').window.document;
    const view = renderDigestView(doc, fold(withDigest(real(demo), { noDecision: REFUSED })));
    const banner = view.querySelector('[data-testid="no-decision"]');
    assert.match(text(banner), new RegExp(`^No decision to accept\\. ${REFUSED.replace(/[()]/g, '\\$&')}`));
    assert.equal(view.querySelector('h2')?.nextElementSibling, banner, 'right under the title');
    assert.ok(view.querySelector('#retry'));
    for (const id of ['#accept', '#reject', '#another', '#pick', '#edit-toggle'])
      assert.equal(view.querySelector(id), null, id);
  });

  it('a meeting without a decision waits for a Retry like a failed one, in the Meetings view too', () => {
    const s = fold(withDigest(real(demo), { noDecision: REFUSED }));
    assert.equal(needOf(s), 'failed');
    const summary = {
      meetingId: 'm',
      topic: 't',
      mode: 'roundtable' as const,
      status: 'closed' as const,
      round: 3,
      maxRounds: 10,
      tokensSpoken: 1,
      tokenBudget: 10,
      createdAt: 0,
      lastSeq: 9,
      terminatedBy: 'max_rounds' as const,
      digestReady: true,
      noDecision: true,
    };
    assert.equal(needOfSummary(summary), 'failed');
    assert.equal(outcomeOf(summary), 'No decision · retry');
    assert.equal(needOf(fold(real(demo))), 'review');
    // Accept (or Reject) invoked directly is refused in one line naming why.
    for (const d of ['accepted', 'rejected'] as const) {
      const why = decisionRefusal(s, d) ?? '';
      assert.equal(why, `No decision to accept: ${REFUSED} Retry the meeting instead.`);
      assert.doesNotMatch(why, /\n/);
    }
    assert.equal(decisionRefusal(fold(real(demo)), 'accepted'), undefined);
  });

  it('says "Demo" under the topic in the room and the review when the replies were scripted', () => {
    const c = room(fold(demo));
    const line = c.querySelector('.room-header [data-testid="demo"]');
    assert.match(text(line), /^Demo Scripted replies/);
    const doc = new JSDOM('<!DOCTYPE html><body></body>').window.document;
    const view = renderDigestView(doc, fold(withDigest(real(demo), { demo: true })));
    assert.equal(text(view.querySelector('[data-testid="demo"]')), 'Demo Scripted replies that ignore your topic');
    assert.equal(room(fold(real(demo))).querySelector('[data-testid="demo"]'), null, 'a real panel is no demo');
  });
});
