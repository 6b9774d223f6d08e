/**
 * Unread is not clean: a review that found nothing but did not read a changed file an accepted
 * decision governs is exit 3, one line naming the file (invisible characters named); with
 * `unreadAllowed` it passes. And how a name is shown: escaped when it holds characters that show
 * as nothing or as something else, as it is otherwise.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MeetingState, ReviewScope } from '@roundtable/protocol';
import { initialState, invisibleNames, pathForPeople, reviewOutcome, shownPath } from '@roundtable/protocol';

/** A review that closed with its verdict and no finding, over `scope`. */
function cleanReview(scope: ReviewScope): MeetingState {
  const s = initialState();
  return {
    ...s,
    mode: 'consensus',
    status: 'closed',
    closed: { reason: 'verdict_reached' },
    optionsSeq: 4,
    config: { ...s.config, review: scope },
  };
}

const DECISIONS = [{ id: '0001', title: 'Postgres', path: 'docs/decisions/0001.md', status: 'accepted' }];

describe('a review that did not read a governed file', () => {
  it('is exit 3 with one line naming the file, what it holds and why it was not read', () => {
    const o = reviewOutcome(
      cleanReview({
        changed: [{ file: 'docs/a.md', ranges: [{ start: 1, end: 1 }] }],
        decisions: DECISIONS,
        unread: [
          { file: 'docs/b.md', reason: 'did not fit' },
          {
            file: 'services/db\u200b.ts',
            shown: 'services/db\\u200b.ts',
            reason: 'is a binary file; left out of the git diff',
            governedBy: ['0001'],
          },
        ],
      }),
      'blocking',
    );
    assert.equal(o.exit, 3);
    assert.equal(
      o.why,
      '1 changed file(s) under an accepted decision were not read (--allow-unread passes without them): services/db\\u200b.ts (holds U+200B ZERO WIDTH SPACE) (decision 0001: is a binary file; left out of the git diff)',
    );
  });

  it('passes when only ungoverned files were not read, or the review was asked to pass without them', () => {
    const unread = [{ file: 'services/db.ts', reason: 'did not fit', governedBy: ['0001'] }];
    assert.equal(
      reviewOutcome(
        cleanReview({ changed: [], decisions: DECISIONS, unread: [{ file: 'docs/b.md', reason: 'x' }] }),
        'blocking',
      ).exit,
      0,
    );
    const allowed = reviewOutcome(
      cleanReview({ changed: [], decisions: DECISIONS, unread, unreadAllowed: true }),
      'blocking',
    );
    assert.equal(allowed.exit, 0);
    assert.equal(allowed.why, undefined);
  });
});

describe('a name as reports show it', () => {
  it('escapes and names what shows as nothing or as something else, and leaves other names alone', () => {
    assert.equal(shownPath('services/orders/db.ts'), undefined);
    assert.equal(shownPath('docs/日本語.md'), undefined);
    assert.equal(shownPath('a\nb\rc\u2028d\u00ade\u202ef\\g'), 'a\\nb\\rc\\u2028d\\u00ade\\u202ef\\\\g');
    assert.equal(shownPath('tag\u{e0041}.ts'), 'tag\\u{e0041}.ts');
    assert.deepEqual(invisibleNames('x\u202ey\u202ez\u0007'), [
      'U+202E RIGHT-TO-LEFT OVERRIDE',
      'U+0007 (a control character)',
    ]);
    assert.equal(pathForPeople('services/new\nline.ts'), 'services/new\\nline.ts (holds U+000A LINE FEED)');
  });
});
