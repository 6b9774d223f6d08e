/**
 * Every reader of a model's reply after the split is linear in the reply too (issue 32): stance,
 * pass, judge, ballot and proposals, digest, the eval's answer, JSON extraction. A megabyte of the
 * shape worst for each (long runs a backtracking pattern or a rescan per line would chew on) costs
 * about what eight times an eighth of it costs (test/fakes/linearity.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPass, parseStance } from '../../daemon/src/meeting/stance';
import { parseJudge } from '../../daemon/src/meeting/judge';
import { parseBallot, parseProposals } from '../../daemon/src/meeting/votes';
import { extractJson } from '../../daemon/src/meeting/jsonInReply';
import { parseDigestReply } from '../../daemon/src/meeting/digestReply';
import { parseAnswer } from '../../daemon/src/eval/questions';
import { BOUND, LARGE, SMALL, shape, workRatio } from '../fakes/linearity';

const options = [
  { id: 'O1', label: 'SQLite' },
  { id: 'O2', label: 'Postgres' },
];

const CASES: [string, (text: string) => unknown, (size: number) => string][] = [
  ['stance: unclosed [STANCE: openers on one line', parseStance, (n) => shape('[STANCE:', n)],
  ['stance: white space then a word', parseStance, (n) => shape(' ', n, 'x')],
  ['stance: label lines', parseStance, (n) => shape('Stance: maybe\n', n)],
  ['stance: fences', parseStance, (n) => shape('```\n[STANCE: AGREE]\n', n)],
  ['pass: the phrase over and over', isPass, (n) => shape('nothing to add ', n)],
  ['pass: white space then a word', isPass, (n) => shape(' ', n, 'x')],
  ['judge: white space then a word', (t) => parseJudge(t, ['ada']), (n) => shape(' ', n, 'x')],
  ['judge: a name list that never ends', (t) => parseJudge(t, ['ada']), (n) => shape('ada, ', n)],
  ['judge: CONVERGED headings', (t) => parseJudge(t, ['ada']), (n) => shape('## CONVERGED\n\n', n)],
  ['judge: @name corrections on one line', (t) => parseJudge(t, ['ada']), (n) => shape('@ada: x. ', n)],
  ['ballot: open braces', (t) => parseBallot(t, options), (n) => shape('{', n)],
  ['ballot: open brackets', (t) => parseBallot(t, options), (n) => shape('[', n)],
  ['ballot: brackets closed at the end', (t) => parseBallot(t, options), (n) => shape('[', n / 2, shape(']', n / 2))],
  ['ballot: quotes in a value', (t) => parseBallot(t, options), (n) => `{"a": ${shape('"', n)}`],
  ['ballot: single quotes', (t) => parseBallot(t, options), (n) => `{'a': ${shape("' ", n)}`],
  ['ballot: trailing commas', (t) => parseBallot(t, options), (n) => `{"votes": [${shape('1, ', n)}]}`],
  ['ballot: stray closers', (t) => parseBallot(t, options), (n) => `{${shape('}]', n)}`],
  ['json: unclosed fences', (t) => extractJson(t), (n) => shape('```', n)],
  ['json: unclosed [CONTENT] tags', (t) => extractJson(t), (n) => shape('[CONTENT]', n)],
  ['proposals: numbers on one line', parseProposals, (n) => shape('1. ', n)],
  ['proposals: commas between numbers', parseProposals, (n) => `1. a 2. ${shape(', ', n)}x`],
  ['digest: label lines', parseDigestReply, (n) => shape('CONSENSUS_STATEMENT:\n', n)],
  ['answer: labels alone on their lines', parseAnswer, (n) => shape('Answer:\n', n)],
  ['answer: question lines after an answer', parseAnswer, (n) => `ANSWER: 4\n${shape('Question\n', n)}`],
  ['answer: unclosed boxes', parseAnswer, (n) => shape('\\boxed{', n)],
  ['answer: the phrase over and over', parseAnswer, (n) => shape('the answer is ', n)],
];

describe('the reply parsers are linear in the reply (1 MB against 8 x 128 KB)', () => {
  for (const [name, read, make] of CASES) {
    it(name, () => {
      const texts = new Map([SMALL, LARGE].map((n) => [n, make(n)]));
      const r = workRatio((n) => void read(texts.get(n) as string));
      assert.ok(r < BOUND, `${name}: ${r.toFixed(1)}x the work of 8 x 128 KB (linear 1x, quadratic 8x)`);
    });
  }
});
