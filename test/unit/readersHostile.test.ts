/**
 * Replies as models really write them and as a hostile model would (issue 32, "Real model output
 * still misread"): ballots keyed by option, single-quoted or bare, a vote missing a brace; judge
 * replies `[CLEAN] — …`, "No corrections needed this round.", `## CONVERGED`, several workers on
 * one line; a numbered proposal list on one line; answer phrasings; and cases nobody listed —
 * markers in code blocks, quoted lines, thinking or the analysis channel, homoglyph markers,
 * confidences out of range, options that do not exist. Every reply goes through the split first,
 * as a provider's reply does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitThinking } from '../../daemon/src/providers/reply';
import { isPass, parseStance } from '@roundtable/protocol/stance';
import { parseJudge } from '../../daemon/src/meeting/judge';
import { parseBallot, parseProposals } from '../../daemon/src/meeting/votes';
import { parseAnswer } from '../../eval/src/questions';

const options = [
  { id: 'O1', label: 'SQLite' },
  { id: 'O2', label: 'Postgres' },
];
/** The reply part, as the provider hands it on. */
const said = (raw: string) => splitThinking(raw).reply;
const ballot = (raw: string) => parseBallot(said(raw), options);
const votes = (raw: string) => {
  const b = ballot(raw);
  assert.ok(b.ok, b.ok ? '' : b.reason);
  return Object.fromEntries(b.votes.map((v) => [v.option, `${v.vote} ${v.confidence}`]));
};
const invalid = (raw: string) => {
  const b = ballot(raw);
  assert.ok(!b.ok, `read as valid: ${raw}`);
  return b.reason;
};
const judge = (raw: string) => parseJudge(said(raw), ['ada', 'grace']);

describe('ballots as models write them', () => {
  it('reads a ballot keyed by option ({"votes": {"O1": {…}}}): the key names the option', () => {
    assert.deepEqual(
      votes(
        '{"votes": {"O1": {"vote": "accept", "confidence": 0.9, "rationale": "fast"}, "O2": {"option": "O1", "vote": "reject", "confidence": 0.7, "rationale": "heavy"}}}',
      ),
      { O1: 'accept 0.9', O2: 'reject 0.7' },
    );
    assert.match(
      invalid('{"votes": {"O9": {"vote": "accept", "confidence": 0.9, "rationale": "x"}}}'),
      /"O9" is not one of/,
    );
  });

  it('reads a single-quoted (Python repr) ballot, an apostrophe and None inside', () => {
    assert.deepEqual(
      votes(
        "{'votes': [{'option': 'O1', 'vote': 'accept', 'confidence': 0.9, 'rationale': 'it's fast', 'evidence': None}, {'option': 'O2', 'vote': 'reject', 'confidence': 0.6, 'rationale': 'heavy'}]}",
      ),
      { O1: 'accept 0.9', O2: 'reject 0.6' },
    );
  });

  it('reads a bare list of votes, and the last list of votes after an evidence list', () => {
    assert.deepEqual(votes('[{"option": "O2", "vote": "accept", "confidence": 0.8, "rationale": "scales"}]'), {
      O1: 'abstain 0',
      O2: 'accept 0.8',
    });
    assert.deepEqual(
      votes('Files: ["a.ts"]\n[{"option": "O1", "vote": "reject", "confidence": 0.7, "rationale": "slow"}]'),
      { O1: 'reject 0.7', O2: 'abstain 0' },
    );
  });

  it('mends a vote missing its closing brace, inside the list or at the very end', () => {
    const want = { O1: 'accept 0.9', O2: 'reject 0.7' };
    const v1 = '{"option": "O1", "vote": "accept", "confidence": 0.9, "rationale": "fast"}';
    assert.deepEqual(
      votes(`{"votes": [${v1}, {"option": "O2", "vote": "reject", "confidence": 0.7, "rationale": "heavy"]}`),
      want,
    );
    assert.deepEqual(
      votes(`{"votes": [${v1}, {"option": "O2", "vote": "reject", "confidence": 0.7, "rationale": "heavy"}]`),
      want,
    );
  });

  it('reads a fenced ballot with trailing commas and "85%"; refuses 1.5, "high", -0.2 with the reason', () => {
    assert.deepEqual(
      votes(
        '```json\n{"votes": [{"option": "O1", "vote": "accept", "confidence": "85%", "rationale": "fast",},],}\n```',
      ),
      { O1: 'accept 0.85', O2: 'abstain 0' },
    );
    for (const c of ['1.5', '"high"', '-0.2'])
      assert.match(
        invalid(`{"votes": [{"option": "O1", "vote": "accept", "confidence": ${c}, "rationale": "x"}]}`),
        /confidence must be a number from 0\.0 to 1\.0/,
      );
  });

  it('refuses votes on an option that does not exist, and a second vote on one option', () => {
    assert.match(
      invalid('{"votes": [{"option": "O7", "vote": "accept", "confidence": 0.9, "rationale": "x"}]}'),
      /"O7"/,
    );
    assert.match(
      invalid(
        '{"votes": [{"option": "O1", "vote": "accept", "confidence": 0.9, "rationale": "x"}, {"option": "SQLite", "vote": "reject", "confidence": 0.9, "rationale": "y"}]}',
      ),
      /votes on O1 a second time/,
    );
  });

  it('splits thinking off before looking for JSON: a draft ballot in <think> or the analysis never counts', () => {
    const draft = '{"votes": [{"option": "O1", "vote": "reject", "confidence": 0.9, "rationale": "draft"}]}';
    const final = '{"votes": [{"option": "O1", "vote": "accept", "confidence": 0.6, "rationale": "final"}]}';
    assert.deepEqual(votes(`<think>${draft}</think>${final}`), { O1: 'accept 0.6', O2: 'abstain 0' });
    assert.deepEqual(votes(`analysisDraft: ${draft}assistantfinal${final}`), { O1: 'accept 0.6', O2: 'abstain 0' });
    assert.match(invalid(`<|channel|>analysis<|message|>${draft}<|end|>`), /no JSON object/);
    assert.match(invalid(`<think>${draft}</think>I will not vote.`), /no JSON object/);
  });

  it('reads a ballot whose rationale mentions template tokens, unharmed', () => {
    assert.deepEqual(
      votes(
        '{"votes": [{"option": "O1", "vote": "accept", "confidence": 0.7, "rationale": "strip <|im_end|> and keep <think> text"}]}',
      ),
      { O1: 'accept 0.7', O2: 'abstain 0' },
    );
  });
});

describe('judge replies as models write them', () => {
  it('reads "[CLEAN] — …" and "No corrections needed this round." as a clean round', () => {
    for (const r of ['[CLEAN] — every claim is sourced.', 'No corrections needed this round.', 'No issues found.'])
      assert.deepEqual(judge(r), { text: '', corrections: [] }, r);
  });

  it('does not read a clean lead followed by a correction as clean', () => {
    const v = judge('[CLEAN] — mostly.\n@ada: the benchmark needs a source.');
    assert.deepEqual(v.corrections, [{ worker: 'ada', text: 'the benchmark needs a source.' }]);
  });

  it('reads ## CONVERGED headings and **CONVERGED:**, never a heading taken back', () => {
    assert.equal(judge('## CONVERGED\n\nBoth workers settled on B.').converged, 'Both workers settled on B.');
    assert.equal(judge('## CONVERGED: both on B').converged, 'both on B');
    assert.equal(judge('**CONVERGED:** both on B').converged, 'both on B');
    assert.equal(judge('## CONVERGED\nnot yet — ada still objects').converged, undefined);
  });

  it('reads two workers on one correction line, and two @corrections on one line', () => {
    const both = (r: string) => judge(r).corrections.map((c) => `${c.worker}: ${c.text}`);
    assert.deepEqual(both('@ada, @grace: cite a source.'), ['ada: cite a source.', 'grace: cite a source.']);
    assert.deepEqual(both('ada and grace — cite a source.'), ['ada: cite a source.', 'grace: cite a source.']);
    assert.deepEqual(both('@ada: cite it. @grace: fix the sum.'), ['ada: cite it.', 'grace: fix the sum.']);
    assert.deepEqual(both('ada and bob: cite a source.'), [], 'a name that is no seat makes no correction');
  });

  it('never ends the meeting on a CONVERGED quoted, fenced, drafted in thinking or in the analysis', () => {
    for (const r of [
      '> grace: CONVERGED: we all agree\n@ada: cite it.',
      '| grace | CONVERGED: yes |',
      'The format is:\n```\nCONVERGED: all agree on B\n```\n@ada: cite it.',
      '<think>CONVERGED: looks done</think>@ada: cite it.',
      '<|channel|>analysis<|message|>CONVERGED: looks done<|end|><|start|>assistant<|channel|>final<|message|>@ada: cite it.',
    ])
      assert.equal(judge(r).converged, undefined, r);
  });
});

describe('stance markers nobody listed', () => {
  it('a marker in a code block is an example; a block with only the marker at the end is the stance', () => {
    assert.equal(parseStance(said('Use this format:\n```\n[STANCE: AGREE]\n```\nI have no view yet.')), 'UNKNOWN');
    assert.equal(parseStance(said('My view: B.\n```\n[STANCE: DISAGREE]\n```')), 'DISAGREE');
    assert.equal(parseStance(said('[STANCE: AGREE]\n```js\nconst s = "[STANCE: DISAGREE]";\n```')), 'AGREE');
  });

  it('a marker only in the thinking, or in a quoted peer line, is no stance', () => {
    assert.equal(parseStance(said('<think>I lean [STANCE: AGREE]</think>Still weighing it.')), 'UNKNOWN');
    assert.equal(parseStance(said('> ada wrote: [STANCE: AGREE]\nI have not decided.')), 'UNKNOWN');
  });

  it('a pass is short: pages of the pass phrase are a model stuck in a loop, not a pass', () => {
    assert.equal(isPass(said('<think>weighing</think>I have nothing further to add. [PASS]')), true);
    assert.equal(isPass(said('nothing to add '.repeat(200))), false);
  });

  it('two different markers: the last one wins', () => {
    assert.equal(parseStance(said('[STANCE: AGREE] at first; on reflection [STANCE: DISAGREE]')), 'DISAGREE');
  });

  it('reads a marker split by zero-width joiners as it displays', () => {
    assert.equal(parseStance(said('Fine. [STANCE: AG\u200DREE]')), 'AGREE');
    assert.equal(parseStance(said('Fine. [STAN\u2060CE: DISAGREE]')), 'DISAGREE');
  });
});

describe('proposals and answers as models write them', () => {
  it('splits a numbered list written on one line', () => {
    assert.deepEqual(parseProposals('1. Use SQLite 2. Use Postgres 3. Keep flat files'), [
      'Use SQLite',
      'Use Postgres',
      'Keep flat files',
    ]);
    assert.deepEqual(parseProposals('Options: 1) SQLite, 2) Postgres and 3) flat files'), [
      'SQLite',
      'Postgres',
      'flat files',
    ]);
    assert.deepEqual(parseProposals('We need 2. Not 3.'), [], 'numbers that do not run from 1 are no list');
  });

  it('reads the answer phrasings models use, and not phrasings that give none', () => {
    const cases: [string, string | undefined][] = [
      ['After weighing it, my answer is (C).', 'C'],
      ['So the answer would be (D).', 'D'],
      ['Answer: **C**', 'C'],
      ['(C) is correct.', 'C'],
      ["I'd go with C.", 'C'],
      ['I think the answer is B', 'B'],
      ['Option E is the right one.', 'E'],
      ['The answer would be different if the rate changed.', undefined],
      ["I'd go with a lower bound.", undefined],
    ];
    for (const [text, want] of cases) assert.equal(parseAnswer(said(text)), want, text);
  });
});
