/**
 * The digest review is sent the meeting's log once and then each event once (not the whole log again
 * on seven kinds of event): the real `webview/src/digest.ts` in jsdom (test/fakes/roomView) shows
 * the same review as one sent the whole log at the end, and keeps the log out of its saved state.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { MeetingEvent } from '@roundtable/protocol';
import { loadDigest, longMeeting } from '../fakes/roomView';

const text = (n: Element | null | undefined): string => n?.textContent?.replace(/\s+/g, ' ').trim() ?? '';

let log: MeetingEvent[];
before(async () => {
  log = await longMeeting(3);
});

describe('the digest review follows the meeting event by event', () => {
  it('shows what a review sent the whole log shows, folding each event once, and saves no log', () => {
    const cut = log.findIndex((e) => e.type === 'meeting_closed');
    assert.ok(cut > 0 && log.some((e) => e.type === 'digest_ready'));
    const review = loadDigest();
    assert.deepEqual(review.posted, [{ type: 'digest/ready' }]);
    review.send({ type: 'digest/show', events: log.slice(0, cut) });
    const running = text(review.root);
    for (const event of log.slice(cut)) review.send({ type: 'digest/event', event });
    // Sent again (a reconnect replaying what it had): nothing is folded twice.
    for (const event of log.slice(cut - 3)) review.send({ type: 'digest/event', event });

    const whole = loadDigest();
    whole.send({ type: 'digest/show', events: log });
    assert.notEqual(running, text(whole.root));
    assert.equal(text(review.root), text(whole.root));
    assert.ok(review.root.querySelector('#accept'), 'the review offers Accept once the digest is written');
    const saved = review.stateWrites.reduce((max, s) => Math.max(max, s.length), 0);
    assert.ok(saved < 200, `largest setState: ${saved} bytes`);
  });

  it('asks for the whole log again when an event is missing, and folds nothing past the gap', () => {
    const cut = log.findIndex((e) => e.type === 'meeting_closed');
    const review = loadDigest();
    review.send({ type: 'digest/show', events: log.slice(0, cut) });
    const before = text(review.root);
    review.send({ type: 'digest/event', event: log[cut + 1] });
    assert.deepEqual(review.posted, [{ type: 'digest/ready' }, { type: 'digest/ready' }]);
    assert.equal(text(review.root), before);
  });

  it('says nothing about the meeting until its log comes: links sent first do not read as a meeting still running', () => {
    const closed = log.findIndex((e) => e.type === 'meeting_closed');
    const review = loadDigest();
    review.send({ type: 'digest/files', minutes: 'docs/roundtable/x.md' });
    assert.doesNotMatch(text(review.root), /still running/);
    review.send({ type: 'digest/show', events: log.slice(0, closed + 1) });
    assert.equal(text(review.root.querySelector('[data-testid="progress"]')), 'Writing the digest…');
  });
});
