/**
 * `visibleText`, the one function every surface shows and parses model text through: bidi
 * controls become escapes, invisible characters inside names and markers go, and what scripts
 * and emoji need stays.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { visibleDeep, visibleText } from '@roundtable/protocol';
import { parseRecord } from '../../daemon/src/decisions/record';
import { rng } from '@roundtable/protocol/random';

const BIDI = [
  '\u061c',
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
];
const ANY_BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('visibleText', () => {
  it('shows each bidi control as its escape', () => {
    for (const c of BIDI) {
      const hex = c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
      assert.equal(visibleText(`a${c}b`), `a⟨U+${hex}⟩b`);
    }
  });

  it('keeps what scripts and emoji need: ZWJ sequences, Persian ZWNJ, Thai ZWSP, Hebrew and Arabic letters', () => {
    for (const s of [
      '👩\u200d💻',
      '👨\u200d👩\u200d👧\u200d👦',
      'می\u200cخواهم',
      'ภาษา\u200bไทย',
      'שלום עולם',
      'مرحبا',
    ]) {
      assert.equal(visibleText(s), s);
    }
  });

  it('drops invisible characters beside ASCII, wherever a name or a marker could hide one', () => {
    assert.equal(visibleText('[STANCE: AG\u200bREE]'), '[STANCE: AGREE]');
    assert.equal(visibleText('\ufeffada\u200d:'), 'ada:');
    assert.equal(visibleText('ok\u2063.'), 'ok.');
  });

  it('over 500 seeded random strings: idempotent and no bidi control left', () => {
    const rand = rng(25);
    const alphabet = ['a', 'Z', ' ', '[', ':', '\n', '👩', 'ש', '\u200b', '\u200d', '\ufeff', '\u00ad', ...BIDI];
    for (let i = 0; i < 500; i++) {
      let s = '';
      for (let n = Math.floor(rand() * 20); n > 0; n--) s += alphabet[Math.floor(rand() * alphabet.length)];
      const v = visibleText(s);
      assert.equal(visibleText(v), v, JSON.stringify(s));
      assert.doesNotMatch(v, ANY_BIDI, JSON.stringify(s));
    }
  });

  it('visibleDeep reaches every string of a nested value, leaving keys, numbers and booleans alone', () => {
    const v = visibleDeep({ a: [`x\u202ey`, 1, true, null], b: { c: 'q\u200bq' } });
    assert.deepEqual(v, { a: ['x⟨U+202E⟩y', 1, true, null], b: { c: 'qq' } });
  });

  it("a decision record's title reaches the prompts with its overrides as escapes", () => {
    assert.equal(parseRecord('x.md', '# Use \u202eLQSoP\u202c\n').title, 'Use ⟨U+202E⟩LQSoP⟨U+202C⟩');
  });
});
