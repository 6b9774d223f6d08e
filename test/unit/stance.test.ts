import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPass, parseStance } from '../../daemon/src/meeting/stance';

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
    assert.equal(parseStance('STANCE: AGREE'), 'UNKNOWN');
    assert.equal(parseStance('(STANCE: AGREE)'), 'UNKNOWN');
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
  });
});
