import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  answerKey,
  arithmeticSet,
  isCorrect,
  loadJsonlSet,
  majorityAnswer,
  parseAnswer,
} from '../../eval/src/questions';
import { wilson95 } from '../../eval/src/wilson';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 5e-5, `${a} ≈ ${b}`);

describe('eval: Wilson interval', () => {
  it('matches published 95% values', () => {
    // Textbook values (Newcombe 1998, Table I; Brown, Cai & DasGupta 2001).
    const [lo1, hi1] = wilson95(0, 10);
    close(lo1, 0);
    close(hi1, 0.2775);
    const [lo2, hi2] = wilson95(5, 10);
    close(lo2, 0.2366);
    close(hi2, 0.7634);
    const [lo3, hi3] = wilson95(81, 263);
    close(lo3, 0.2553);
    close(hi3, 0.3662);
    const [lo4, hi4] = wilson95(10, 10);
    close(lo4, 0.7225);
    close(hi4, 1);
  });
  it('is [0, 1] when nothing was asked', () => assert.deepEqual(wilson95(0, 0), [0, 1]));
});

describe('eval: question sets', () => {
  it('generates the same seeded a+b*c+d-e*f set every time, integers 0-29, exact answers', () => {
    const a = arithmeticSet(50, 42);
    assert.deepEqual(a, arithmeticSet(50, 42));
    assert.notDeepEqual(
      a.map((q) => q.question),
      arithmeticSet(50, 43).map((q) => q.question),
    );
    for (const q of a) {
      const m = /^(\d+)\+(\d+)\*(\d+)\+(\d+)-(\d+)\*(\d+)$/.exec(q.question);
      assert.ok(m, q.question);
      const [x1, x2, x3, x4, x5, x6] = m.slice(1).map(Number);
      for (const x of [x1, x2, x3, x4, x5, x6]) assert.ok(x !== undefined && x >= 0 && x <= 29);
      assert.equal(q.answer, String(x1! + x2! * x3! + x4! - x5! * x6!));
    }
    assert.equal(new Set(a.map((q) => q.id)).size, 50);
  });

  it('loads JSONL and names the bad line', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rt-evalq-'));
    const f = path.join(dir, 'set.jsonl');
    writeFileSync(
      f,
      '{"id":"a","question":"Capital of France?","answer":"Paris"}\n\n{"id":2,"question":"6*7","answer":42}\n',
    );
    assert.deepEqual(loadJsonlSet(f), [
      { id: 'a', question: 'Capital of France?', answer: 'Paris' },
      { id: '2', question: '6*7', answer: '42' },
    ]);
    writeFileSync(f, '{"id":"a","question":"q","answer":"1"}\nnot json\n');
    assert.throws(() => loadJsonlSet(f), /set\.jsonl:2 is not JSON/);
    writeFileSync(f, '{"id":"a","question":"q","answer":"1"}\n{"id":"a","question":"r","answer":"2"}\n');
    assert.throws(() => loadJsonlSet(f), /set\.jsonl:2 repeats the id "a"/);
  });
});

describe('eval: answers', () => {
  it('reads the last ANSWER marker', () => {
    assert.equal(parseAnswer('ANSWER: 3\nwait, no.\n**ANSWER:** 42.\n[STANCE: AGREE]'), '42');
    assert.equal(parseAnswer('answer: Paris [STANCE: AGREE]'), 'Paris');
    assert.equal(parseAnswer('I think it is 42'), undefined);
    assert.equal(parseAnswer('ANSWER:   '), undefined);
  });
  it('checks numbers as numbers and text exactly (case-insensitive)', () => {
    assert.ok(isCorrect('1,234', '1234'));
    assert.ok(isCorrect('-5.0', '-5'));
    assert.ok(!isCorrect('-4', '-5'));
    assert.ok(!isCorrect('5 or 6', '5'));
    assert.ok(isCorrect(' paris ', 'Paris'));
    assert.ok(!isCorrect('Paris, France', 'Paris'));
    assert.ok(!isCorrect(undefined, '1'));
    assert.equal(answerKey('42.0'), answerKey('42'));
  });
  it('reads answers as real models write them', () => {
    assert.equal(parseAnswer('Adding up: 40 + 2.\nANSWER: \\boxed{42}'), '42');
    assert.equal(parseAnswer('Working...\n### Final Answer:\n$$\\boxed{-\\frac{1}{2}}$$'), '-1/2');
    assert.equal(parseAnswer('**Final Answer:** 42'), '42');
    assert.equal(parseAnswer('**Final Answer:**\n\n42'), '42', 'the value on the line after an empty label');
    assert.equal(parseAnswer('The final answer is: $7$'), '7');
    assert.equal(parseAnswer('ANSWER: −17'), '-17', 'U+2212 is a minus');
    assert.equal(parseAnswer('ANSWER: \\text{Paris}'), 'Paris');
    assert.equal(parseAnswer('ANSWER: 1\\,234'), '1234');
    assert.equal(parseAnswer('So the result is \\boxed{7}.'), '7', 'a boxed value answers when no label does');
  });
  it('reads an answer only at a line start, never from a quoted line, and the last one wins', () => {
    assert.equal(parseAnswer('I think the answer: is unclear'), undefined);
    assert.equal(parseAnswer('| ANSWER: 5\nI have not worked it out.'), undefined);
    assert.equal(parseAnswer('> ANSWER: 5\nANSWER: 6'), '6');
    assert.equal(parseAnswer('ANSWER: \\boxed{3}\nWait, I slipped.\n**Final Answer:** 4'), '4');
  });
  it('reads <answer> tags, #### lines, "the answer is N" at a line start, and a reply that is only a number', () => {
    assert.equal(parseAnswer('The answer to 1 plus 1 is 2.\n<answer> 2 </answer>'), '2');
    assert.equal(parseAnswer('<answer>\n\\boxed{7}\n</answer>'), '7');
    assert.equal(parseAnswer('Half of 84 is 42.\n#### 42'), '42');
    assert.equal(parseAnswer('Adding up the parts.\n\nSo the answer is 4.'), '4');
    assert.equal(parseAnswer('Books = 256.\n\nThus the unique whole-number answer is 235.'), '235');
    assert.equal(parseAnswer('The answer is **12 apples**.'), '12 apples');
    assert.equal(parseAnswer('Answer is \\boxed{3}'), '3');
    assert.equal(parseAnswer('140'), '140');
    assert.equal(parseAnswer('**42 km**'), '42 km');
    assert.equal(parseAnswer('### Final Answer:\nThe first rumor holds.\n\\boxed{\\text{Every bird}}'), 'Every bird');
  });
  it('never reads a number from prose, a hedged "answer is", or a quoted tag', () => {
    assert.equal(parseAnswer('I think the answer is 4, not 5'), undefined);
    assert.equal(parseAnswer('The answer is unclear until we know x.'), undefined);
    assert.equal(parseAnswer('The answer is 4, but only if we round.'), undefined);
    assert.equal(parseAnswer('The wrong answer is 5.'), undefined);
    assert.equal(parseAnswer('Ruby has 16 gloves.\n\n16'), undefined, 'a number after prose is not the whole reply');
    assert.equal(parseAnswer('> <answer>5</answer>\nStill working.'), undefined);
    assert.equal(parseAnswer('| #### 5\nStill working.'), undefined);
    assert.equal(parseAnswer('ANSWER: 6\nThe answer is 7 if we round.'), '6');
    assert.equal(parseAnswer('ANSWER: 6\nSo the answer is 7.'), '6', 'a label outranks a sentence');
    assert.equal(parseAnswer('So the answer is 4.\nWait: \\boxed{5}'), '5', 'a box outranks a sentence');
  });
  it('reads the option letter a multiple-choice reply picks, at a line or sentence start', () => {
    const cases: [string, string | undefined, string][] = [
      ['The tallies add up. The answer is (B).', 'B', 'mid-line, after a sentence'],
      ['The answer is (B) 20 rolls.', 'B', 'the option text after the letter'],
      ['So, the correct answer is (A).', 'A', 'an affirming adjective'],
      ['Therefore, the correct statement is (B).', 'B', 'a pick without "answer"'],
      ['The answer is not listed, but the closest option is (F) 9.8 m/s', 'F', 'the clause after ", but"'],
      ['The answer is (D), but note that the options differ.', 'D', 'a reservation after the letter'],
      ['The answer is (B).\n\nFinal Answer: The answer is (F).', 'F', 'a later Final Answer overrides'],
      ['Final Answer:\nThe answer is **C. 22.3%, 1.85**.', 'C', 'a lone letter with its option text'],
      ['ANSWER: (E) 4 mm', 'E', 'a parenthesised letter beside a label'],
      ['The answer is (J).\n\nQuestion: Which is larger?\nThe answer is (A).', 'J', 'the next few-shot question'],
      ['The answer is (None).', undefined, 'no option picked'],
      ['The answer is (Cannot be determined).', undefined, 'prose in parentheses'],
      ['The answer is I think unclear.', undefined, 'a capital followed by a word'],
      ['So (A) is not correct, and (C) is not correct.', undefined, 'letters named, none picked'],
      ['The first option is (A).', undefined, 'no affirming word'],
      ['G. Not binomial.\nH', undefined, 'a bare letter is no answer'],
      ['| The answer is (C).\nStill deciding.', undefined, 'a quoted line'],
    ];
    for (const [reply, want, why] of cases) assert.equal(parseAnswer(reply), want, why);
  });
  it('compares option letters ignoring case, parentheses and the option text', () => {
    const cases: [string, string, boolean][] = [
      ['C', 'C', true],
      ['(c)', 'C', true],
      ['C. 22.3%, 1.85', '(C)', true],
      ['c) 22.3%', 'C', true],
      ['D', 'C', false],
      ['Carbon', 'C', false],
      ['C or D', 'C', false],
    ];
    for (const [given, expected, ok] of cases) assert.equal(isCorrect(given, expected), ok, `${given} vs ${expected}`);
  });
  it('compares numbers ignoring a trailing unit, currency, a minus sign and fractions', () => {
    assert.ok(isCorrect('42 km', '42'));
    assert.ok(isCorrect('$12', '12'));
    assert.ok(isCorrect('42%', '42'));
    assert.ok(isCorrect('5 apples', '5'));
    assert.ok(isCorrect('−5', '-5'));
    assert.ok(isCorrect('1/2', '0.5'));
    assert.ok(isCorrect(parseAnswer('ANSWER: \\boxed{\\frac{1}{2}}'), '0.5'));
    assert.ok(!isCorrect('5 million', '5'), 'a scale word is not a unit');
    assert.ok(!isCorrect('12 is my best guess', '12'));
    assert.equal(answerKey('−7'), answerKey('-7 apples'));
  });
  it('majority needs more than half of the voters; a tie or a spread is no majority', () => {
    assert.equal(majorityAnswer(['7', '7.0', '8']), '7');
    assert.equal(majorityAnswer(['7', '8', '9']), undefined);
    assert.equal(majorityAnswer(['7', '8']), undefined);
    assert.equal(majorityAnswer(['7', undefined, undefined]), undefined, 'a voter without an answer still counts');
    assert.equal(majorityAnswer(['7', '7', undefined]), '7');
  });
});
