/**
 * Every reader of a model's reply after the split is linear in the reply too (issue 32): stance,
 * pass, judge, ballot and proposals, digest, the eval's answer, JSON extraction. A megabyte of the
 * shape worst for each (long runs a backtracking pattern or a rescan per line would chew on) costs
 * about what eight times an eighth of it costs (test/fakes/linear.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPass, parseStance } from '@roundtable/protocol/stance';
import { parseJudge } from '../../daemon/src/meeting/judge';
import { parseBallot, parseProposals } from '../../daemon/src/meeting/votes';
import { extractJson } from '../../daemon/src/meeting/jsonInReply';
import { parseDigestReply } from '../../daemon/src/meeting/digestReply';
import { parseAnswer } from '../../eval/src/questions';
import { readFindings } from '../../daemon/src/meeting/reviewReply';
import { LINEAR_RATIO, repeated, workRatio } from '../fakes/linear';

const options = [
  { id: 'O1', label: 'SQLite' },
  { id: 'O2', label: 'Postgres' },
];

const ctx = { changed: [{ file: 'a' }, { file: 'src/db.ts' }], decisions: ['0001', 'use-postgres'], root: '/repo' };
const parseFindings = (t: string) => readFindings(t, ctx);

const CASES: [string, (text: string) => unknown, (size: number) => string][] = [
  ['stance: unclosed [STANCE: openers on one line', parseStance, (n) => repeated('[STANCE:', n)],
  ['stance: white space then a word', parseStance, (n) => repeated(' ', n, 'x')],
  ['stance: label lines', parseStance, (n) => repeated('Stance: maybe\n', n)],
  ['stance: fences', parseStance, (n) => repeated('```\n[STANCE: AGREE]\n', n)],
  ['pass: the phrase over and over', isPass, (n) => repeated('nothing to add ', n)],
  ['pass: white space then a word', isPass, (n) => repeated(' ', n, 'x')],
  ['pass: CRLF line ends only', isPass, (n) => repeated('\r\n', n)],
  ['pass: indented blank lines', isPass, (n) => repeated('\n ', n)],
  ['judge: white space then a word', (t) => parseJudge(t, ['ada']), (n) => repeated(' ', n, 'x')],
  ['judge: a name list that never ends', (t) => parseJudge(t, ['ada']), (n) => repeated('ada, ', n)],
  ['judge: fence lines that never close', (t) => parseJudge(t, ['ada']), (n) => repeated('```\n', n)],
  ['judge: CONVERGED headings', (t) => parseJudge(t, ['ada']), (n) => repeated('## CONVERGED\n\n', n)],
  ['judge: @name corrections on one line', (t) => parseJudge(t, ['ada']), (n) => repeated('@ada: x. ', n)],
  ['ballot: open braces', (t) => parseBallot(t, options), (n) => repeated('{', n)],
  ['ballot: open brackets', (t) => parseBallot(t, options), (n) => repeated('[', n)],
  [
    'ballot: brackets closed at the end',
    (t) => parseBallot(t, options),
    (n) => repeated('[', n / 2, repeated(']', n / 2)),
  ],
  ['ballot: quotes in a value', (t) => parseBallot(t, options), (n) => `{"a": ${repeated('"', n)}`],
  ['ballot: single quotes', (t) => parseBallot(t, options), (n) => `{'a': ${repeated("' ", n)}`],
  ['ballot: trailing commas', (t) => parseBallot(t, options), (n) => `{"votes": [${repeated('1, ', n)}]}`],
  ['ballot: stray closers', (t) => parseBallot(t, options), (n) => `{${repeated('}]', n)}`],
  ['json: unclosed fences', (t) => extractJson(t), (n) => repeated('```', n)],
  ['json: unclosed [CONTENT] tags', (t) => extractJson(t), (n) => repeated('[CONTENT]', n)],
  ['proposals: numbers on one line', parseProposals, (n) => repeated('1. ', n)],
  ['proposals: commas between numbers', parseProposals, (n) => `1. a 2. ${repeated(', ', n)}x`],
  ['findings: open brackets', parseFindings, (n) => repeated('[', n)],
  [
    'findings: a list of findings that never ends',
    parseFindings,
    (n) => `{"findings": [${repeated('{"file": "a", "lines": "1-2", "claim": "x"}, ', n)}]}`,
  ],
  [
    'findings: lines as a list of numbers',
    parseFindings,
    (n) => `{"findings": [{"file": "a", "claim": "x", "lines": "${repeated('1, ', n)}2"}]}`,
  ],
  [
    'findings: spaces before a line number',
    parseFindings,
    (n) => `{"findings": [{"file": "a", "claim": "x", "line": "${repeated(' ', n)}x"}]}`,
  ],
  [
    'findings: a long list cut inside a string (the cap)',
    parseFindings,
    (n) =>
      `{"findings": [${repeated('{"file": "a", "lines": "1-2", "claim": "x}"}, ', n)}{"file": "a", "claim": "${repeated('}', n)}`,
  ],
  [
    'findings: grouped by file, many files',
    parseFindings,
    (n) => `{${repeated('"src/a.ts": [{"line": 1, "issue": "x"}], ', n)}"b.ts": []}`,
  ],
  [
    'findings: absolute paths ending in a changed file',
    parseFindings,
    (n) => `[{"path": "/${repeated('x/', n)}src/db.ts", "line": 1, "message": "x"}]`,
  ],
  ['findings: LGTM over and over', parseFindings, (n) => repeated('LGTM, ', n)],
  [
    'ballot: votes keyed by number',
    (t) => parseBallot(t, options),
    (n) => `{"votes": {${repeated('"1": {"accept": true, "score": 9, "reasoning": "r"}, ', n)}"2": {}}}`,
  ],
  ['digest: label lines', parseDigestReply, (n) => repeated('CONSENSUS_STATEMENT:\n', n)],
  ['answer: labels alone on their lines', parseAnswer, (n) => repeated('Answer:\n', n)],
  ['answer: question lines after an answer', parseAnswer, (n) => `ANSWER: 4\n${repeated('Question\n', n)}`],
  ['answer: unclosed boxes', parseAnswer, (n) => repeated('\\boxed{', n)],
  ['answer: the phrase over and over', parseAnswer, (n) => repeated('the answer is ', n)],
];

describe('the reply parsers are linear in the reply (1 MB against 128 KB)', () => {
  for (const [name, read, make] of CASES) {
    it(name, () => {
      const r = workRatio(read, make);
      assert.ok(r < LINEAR_RATIO, `${name}: 1 MB took ${r.toFixed(1)}x the work of 128 KB (linear 8x, quadratic 64x)`);
    });
  }
});
