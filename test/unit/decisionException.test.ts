/**
 * `Decision-Exception: 0001 <reason>` as people write it: with or without a colon or a dash after
 * the id, a required reason, a length cap; and a pull request's body as templates shape it, where
 * a line inside an HTML comment or a fenced block is an instruction or an example, not an exception.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_EXCEPTION_CHARS, exceptionLines, parseException } from '@roundtable/protocol';

describe('an exception line', () => {
  it('reads the decision and the reason, however they are separated', () => {
    for (const line of [
      '0001 we move to MySQL',
      '0001: we move to MySQL',
      '0001:we move to MySQL',
      '0001 - we move to MySQL',
      '0001 — we move to MySQL',
      '  0001,  we move to MySQL  ',
    ])
      assert.deepEqual(parseException(line), { decision: '0001', reason: 'we move to MySQL' }, line);
    assert.deepEqual(parseException('ADR-0007 the old queue stays for the batch jobs'), {
      decision: 'ADR-0007',
      reason: 'the old queue stays for the batch jobs',
    });
  });

  it('a reason is required, and the line has a length cap', () => {
    assert.deepEqual(parseException('0001'), {
      decision: '0001',
      invalid: 'gives no reason: write "Decision-Exception: 0001 <reason>"',
    });
    assert.deepEqual(parseException('0001:  '), {
      decision: '0001',
      invalid: 'gives no reason: write "Decision-Exception: 0001 <reason>"',
    });
    assert.match((parseException('') as { invalid: string }).invalid, /^names no decision/);
    assert.match(
      (parseException(`0001 ${'x'.repeat(MAX_EXCEPTION_CHARS)}`) as { invalid: string }).invalid,
      /^is longer than 500 characters/,
    );
  });
});

describe("a pull request's exception lines", () => {
  it('takes the lines as written, in order (a bullet, any case, CRLF), not those in a comment or a fence', () => {
    const body = [
      'Moves orders to MySQL.',
      '<!--',
      'Decision-Exception: 0000 an instruction of the template',
      '-->',
      'Decision-Exception: 0001 orders moves this quarter',
      '~~~md',
      'Decision-Exception: 0099 an example',
      '~~~',
      '* decision-exception: 0002 reports stay\r',
      'Not an exception: Decision-Exception: 0003 inside prose',
      'Decision-Exception:',
    ].join('\n');
    assert.deepEqual(exceptionLines(body), ['0001 orders moves this quarter', '0002 reports stay', '']);
  });

  it('an unclosed comment hides the rest; an unclosed fence too', () => {
    assert.deepEqual(exceptionLines('Decision-Exception: 0001 a\n<!-- Decision-Exception: 0002 b'), ['0001 a']);
    assert.deepEqual(exceptionLines('Decision-Exception: 0001 a\n```\nDecision-Exception: 0002 b'), ['0001 a']);
  });
});
