import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Stance } from '@roundtable/protocol';
import { isPass, parseStance } from '@roundtable/protocol/stance';

describe('stance parsing', () => {
  it('reads each valid marker, case-insensitively and with any spacing', () => {
    assert.equal(parseStance('I support it.\n[STANCE: AGREE]'), 'AGREE');
    assert.equal(parseStance('No.\n[stance:disagree]'), 'DISAGREE');
    assert.equal(parseStance('Hmm [Stance:   Neutral] for now'), 'NEUTRAL');
  });

  it('treats a missing marker as UNKNOWN', () => {
    assert.equal(parseStance('I think we should do it.'), 'UNKNOWN');
    assert.equal(parseStance(''), 'UNKNOWN');
  });

  it('treats malformed markers as UNKNOWN', () => {
    assert.equal(parseStance('[STANCE: MAYBE]'), 'UNKNOWN');
    assert.equal(parseStance('[STANCE AGREE]'), 'UNKNOWN');
    assert.equal(parseStance('(STANCE: AGREE)'), 'UNKNOWN');
    assert.equal(parseStance('Stance: probably'), 'UNKNOWN');
  });

  it('takes the last marker when the speaker revises', () => {
    assert.equal(parseStance('[STANCE: DISAGREE] at first, but after all\n[STANCE: AGREE]'), 'AGREE');
  });

  it('lets a trailing malformed marker make the final word unreadable', () => {
    assert.equal(parseStance('[STANCE: AGREE]\nactually [STANCE: SORT OF]'), 'UNKNOWN');
  });

  it('ignores markers inside quoted peer lines', () => {
    assert.equal(parseStance('As ada wrote:\n| [STANCE: AGREE]\nI do not.'), 'UNKNOWN');
    assert.equal(parseStance('| [STANCE: AGREE]\n[STANCE: DISAGREE]'), 'DISAGREE');
  });
});

/** Each reply read as the stance given beside it. */
function reads(cases: [reply: string, stance: Stance][]): void {
  for (const [reply, stance] of cases) assert.equal(parseStance(reply), stance, reply);
}

describe('stance as real models write it', () => {
  it('reads the marker in bold, Markdown-escaped, with trailing punctuation or full-width brackets', () =>
    reads([
      ['I back B.\n**[STANCE: AGREE]**', 'AGREE'],
      ['I back B.\n\\[STANCE: AGREE\\]', 'AGREE'],
      ['Not convinced.\n[STANCE: DISAGREE].', 'DISAGREE'],
      ['同意します。\n［STANCE：AGREE］', 'AGREE'],
      ['[**STANCE**: NEUTRAL]', 'NEUTRAL'],
    ]));

  it('reads a stance label on a line of its own', () =>
    reads([
      ['Option B fits.\n\nStance: AGREE', 'AGREE'],
      ['Option B is slower.\n**Stance:** DISAGREE', 'DISAGREE'],
      ['Weighing both...\nFinal stance: agree', 'AGREE'],
      ['- **My stance**: neutral.', 'NEUTRAL'],
      ['STANCE: AGREE', 'AGREE'],
      ['Stance: [DISAGREE]', 'DISAGREE'],
    ]));

  it('reads label synonyms when the value starts with the stance: Position, adverbs, yes/no, unsure, a table cell', () =>
    reads([
      ['Weighing it.\nSTANCE: unsure\nCONSENSUS: no', 'NEUTRAL'],
      ['**Proposal A**\n**Position: Disagree.**\n\nStrongest point: …', 'DISAGREE'],
      ['**Position: Strongly agree (closest to correct).**', 'AGREE'],
      [
        '- **Position**: Strongly disagree with the anti-LLM stance but agree on deterministic classification.',
        'DISAGREE',
      ],
      ['- **Position**: Mostly agree, but disagree on distributed recordings.', 'AGREE'],
      ['Stance: **Supportive** of B.', 'AGREE'],
      ['My stance: agree with caveats — the cache needs a TTL.', 'AGREE'],
      ['Stance: Disagree with integration completeness — a closure hole.', 'DISAGREE'],
      ['Stance: for', 'AGREE'],
      ['Stance: Yes, with one caveat.', 'AGREE'],
      ['Stance: No — too slow.', 'DISAGREE'],
      ['Stance: against.', 'DISAGREE'],
      ['Stance: oppose', 'DISAGREE'],
      ['Stance: Undecided', 'NEUTRAL'],
      ['Stance: mixed — fine on reads, not on writes', 'NEUTRAL'],
      ['Stance: abstain', 'NEUTRAL'],
      // STANCE as the last cell of a line that does not start with a pipe.
      ['**CLAIM: x** | **GROUND:** y | **STANCE:** Agree on classification. **Extend:** z', 'AGREE'],
      ['**CLAIM: x** | **STANCE:** Disagree with integration completeness — a **BLOCK**.', 'DISAGREE'],
    ]));

  it('never reads a label whose value only mentions a stance word later, and Position only when it says one', () =>
    reads([
      ['Stance: no strong view yet', 'UNKNOWN'],
      ['Stance: for now, undecided', 'UNKNOWN'],
      ['Stance: I cannot agree', 'UNKNOWN'],
      ['Stance: partially agree', 'UNKNOWN'],
      ['Position: we should ship B first.', 'UNKNOWN'],
      ['[STANCE: AGREE]\nPosition: the cache sits in front of the store.', 'AGREE'],
      ['[STANCE: AGREE]\nStance: somewhat', 'UNKNOWN'],
      ['[STANCE: SUPPORT]', 'UNKNOWN'],
      ['| **CLAIM: x** | **STANCE:** Agree |', 'UNKNOWN'],
    ]));

  it('reads the marker put first, as mistral does', () =>
    reads([['[STANCE: DISAGREE]\nThe benchmark ada cites measures reads, not writes.', 'DISAGREE']]));

  it('never reads a stance from prose', () =>
    reads([
      ['I cannot agree with grace; I disagree strongly.', 'UNKNOWN'],
      ['My stance is that we agree on the goal.', 'UNKNOWN'],
      ['The rule says to end with `[STANCE: AGREE]` when I agree.', 'UNKNOWN'],
    ]));

  it('never counts a blockquote, and a malformed final marker or label stays UNKNOWN', () =>
    reads([
      ['grace wrote:\n> [STANCE: AGREE]\nI am not sure.', 'UNKNOWN'],
      ['> Stance: AGREE\n**Stance:** DISAGREE', 'DISAGREE'],
      ['[STANCE: AGREE]\nStance: somewhere in between', 'UNKNOWN'],
      ['**[STANCE: AGREE-ISH]**', 'UNKNOWN'],
    ]));
});

describe('passing', () => {
  it('recognises the documented marker and phrase', () => {
    assert.equal(isPass('[PASS]'), true);
    assert.equal(isPass('I have nothing to add.'), true);
    assert.equal(isPass('I have nothing more to add. [STANCE: AGREE]'), true);
    assert.equal(isPass('i HAVE nothing to add'), true);
  });

  it('does not fire on ordinary text or on quoted passes', () => {
    assert.equal(isPass('We should pass the config explicitly. [STANCE: AGREE]'), false);
    assert.equal(isPass('| [PASS]\nMy view: ship it.'), false);
    assert.equal(isPass('> [PASS]\nMy view: ship it.'), false);
    assert.equal(isPass(''), false);
  });

  it('reads a whole-reply pass as real models write it', () => {
    for (const reply of [
      '**[PASS]**',
      '\\[PASS\\]',
      'I have nothing further to add.',
      'Nothing to add — [PASS]',
      '[PASS] I have left the meeting.',
    ])
      assert.equal(isPass(reply), true, reply);
  });

  it('never passes a reply that goes on to argue', () => {
    for (const reply of [
      "I have nothing further to add to ada's point, but grace's numbers are from 2019. [STANCE: DISAGREE]",
      'I agree with ada. Nothing to add beyond that, except the cost: it doubles.',
      '[PASS]\n\nOn second thought, the migration plan misses the rollback step.\nHere is why.',
      'I will not [PASS] on this: the rollback step is missing and it matters.',
    ])
      assert.equal(isPass(reply), false, reply);
  });
});
