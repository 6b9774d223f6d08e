import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConsensusOption } from '@roundtable/protocol';
import { dedupeOptions, parseBallot, parseProposals } from '../../daemon/src/meeting/votes';
import { extractJson, repairJson } from '../../daemon/src/meeting/jsonInReply';

const options: ConsensusOption[] = [
  { id: 'O1', label: 'PostgreSQL' },
  { id: 'O2', label: 'SQLite' },
];
const good = {
  votes: [
    {
      option: 'O1',
      vote: 'accept',
      confidence: 0.85,
      rationale: 'Concurrent writers.',
      evidence: [{ file: 'src/db.ts', section: 'pool', type: 'code' }],
    },
    { option: 'O2', vote: 'reject', confidence: 0.6, rationale: 'Single writer.', evidence: [] },
  ],
};

describe('ballot parsing and validation', () => {
  it('reads a bare JSON ballot', () => {
    const r = parseBallot(JSON.stringify(good), options);
    assert.ok(r.ok);
    assert.deepEqual(r.ok && r.votes.map((v) => [v.option, v.vote, v.confidence]), [
      ['O1', 'accept', 0.85],
      ['O2', 'reject', 0.6],
    ]);
    assert.deepEqual(r.ok && r.votes[0]?.evidence, [
      { file: 'src/db.ts', section: 'pool', type: 'code', status: 'unchecked' },
    ]);
  });

  it('reads a fenced ballot and one wrapped in prose', () => {
    const fenced = `Here is my ballot:\n\`\`\`json\n${JSON.stringify(good, null, 2)}\n\`\`\`\nThanks.`;
    assert.ok(parseBallot(fenced, options).ok);
    const prose = `I thought about it {carefully}. ${JSON.stringify(good)} That is all — {"not": "this"}`;
    assert.ok(parseBallot(prose, options).ok);
  });

  it('matches options by id or label, case-insensitively, and records missing options as abstentions', () => {
    const r = parseBallot(
      JSON.stringify({ votes: [{ option: 'postgresql', vote: 'ACCEPT', confidence: 1, rationale: 'yes' }] }),
      options,
    );
    assert.ok(r.ok);
    assert.equal(r.ok && r.votes[0]?.option, 'O1');
    assert.equal(r.ok && r.votes[0]?.vote, 'accept');
    assert.deepEqual(r.ok && [r.votes[1]?.vote, r.votes[1]?.rationale], ['abstain', 'no vote given']);
  });

  it('explains what is wrong with a broken or out-of-range ballot', () => {
    const cases: [string, RegExp][] = [
      ['I pick Postgres, obviously.', /no JSON object/],
      ['{"votes": [ {"option": "O1", "vote": "accept", ', /no JSON object/],
      [JSON.stringify({ ballot: [] }), /no "votes" list/],
      [JSON.stringify({ votes: [] }), /"votes" list is empty/],
      [
        JSON.stringify({ votes: [{ option: 'O9', vote: 'accept', confidence: 0.5, rationale: 'x' }] }),
        /"O9" is not one of O1, O2/,
      ],
      [
        JSON.stringify({ votes: [{ option: 'O1', vote: 'maybe', confidence: 0.5, rationale: 'x' }] }),
        /vote must be accept, reject or abstain/,
      ],
      [
        JSON.stringify({ votes: [{ option: 'O1', vote: 'accept', confidence: 1.5, rationale: 'x' }] }),
        /confidence must be a number from 0\.0 to 1\.0, got 1\.5/,
      ],
      [JSON.stringify({ votes: [{ option: 'O1', vote: 'accept', confidence: -0.1, rationale: 'x' }] }), /got -0\.1/],
      [JSON.stringify({ votes: [{ option: 'O1', vote: 'accept', confidence: '0.8', rationale: 'x' }] }), /got "0\.8"/],
      [JSON.stringify({ votes: [{ option: 'O1', vote: 'accept', confidence: 0.8 }] }), /rationale is missing/],
      [
        JSON.stringify({
          votes: [{ option: 'O1', vote: 'accept', confidence: 0.8, rationale: 'x', evidence: [{ section: 's' }] }],
        }),
        /evidence\[0\] needs a "file"/,
      ],
      [
        JSON.stringify({
          votes: [
            { option: 'O1', vote: 'accept', confidence: 0.8, rationale: 'x' },
            { option: 'PostgreSQL', vote: 'reject', confidence: 0.8, rationale: 'y' },
          ],
        }),
        /votes on O1 a second time/,
      ],
    ];
    for (const [reply, reason] of cases) {
      const r = parseBallot(reply, options);
      assert.ok(!r.ok, `should reject: ${reply}`);
      assert.match(r.ok ? '' : r.reason, reason);
    }
  });

  it('requires an uncertainty note on an accept or reject below confidence 0.5, and keeps the seed notes', () => {
    const vote = (extra: Record<string, unknown>) =>
      JSON.stringify({ votes: [{ option: 'O1', vote: 'accept', confidence: 0.3, rationale: 'Maybe.', ...extra }] });
    const bare = parseBallot(vote({}), options);
    assert.deepEqual(bare, {
      ok: false,
      reason: 'votes[0].uncertainty is missing: a confidence below 0.5 needs a note saying what you are unsure of',
    });
    assert.equal(parseBallot(vote({ uncertainty: '   ' }), options).ok, false, 'a blank note is no note');
    const noted = parseBallot(
      vote({ uncertainty: 'no load test yet', assumptions: ['writes stay under 1k/s', ' '], compromise: 'both' }),
      options,
    );
    assert.ok(noted.ok);
    assert.deepEqual(noted.ok && noted.votes[0], {
      option: 'O1',
      vote: 'accept',
      confidence: 0.3,
      rationale: 'Maybe.',
      evidence: [],
      assumptions: ['writes stay under 1k/s'],
      uncertainty: 'no load test yet',
      compromise: 'both',
    });
    const abstain = JSON.stringify({ votes: [{ option: 'O1', vote: 'abstain', confidence: 0 }] });
    assert.ok(parseBallot(abstain, options).ok, 'an abstention needs no note');
    assert.match(
      (parseBallot(vote({ uncertainty: 'x', assumptions: 'one' }), options) as { reason: string }).reason,
      /votes\[0\]\.assumptions must be a list of at most 10 strings/,
    );
  });

  it('extracts the first usable object even when braces appear inside strings', () => {
    assert.deepEqual(extractJson('note {"a": "a } brace", "b": 1} end'), { a: 'a } brace', b: 1 });
    assert.equal(extractJson('no json here'), undefined);
  });

  it('extracts the value a reply means, an array too: the last marked block, the whole text, or the first in prose', () => {
    const cases: [string, unknown, string][] = [
      [
        'Here they are:\n```json\n[{"id": 1}, {"id": 2}]\n```\nI hope this helps!',
        [{ id: 1 }, { id: 2 }],
        'a fenced array',
      ],
      ['Plan:\n```json\n["draft"]\n```\nPassage:\n```json\n["final"]\n```', ['final'], 'the last of two blocks'],
      ['[CONTENT]\n{"answer": "579"}\n[/CONTENT]', { answer: '579' }, 'MetaGPT content tags'],
      ['[{"id": 1}]', [{ id: 1 }], 'a bare array'],
      ['Steps: [{"id": 1}] as asked.', [{ id: 1 }], 'an array in prose'],
      ['As noted [1], the result is {"a": 1}.', { a: 1 }, 'a footnote is not the value'],
    ];
    for (const [reply, want, why] of cases) assert.deepEqual(extractJson(reply), want, why);
    // A bare list of votes is a ballot written without its object (issue 32): read, and checked as one.
    assert.match(
      (parseBallot('```json\n[{"option": "O1", "vote": "accept"}]\n```', options) as { reason: string }).reason,
      /votes\[0\]\.confidence must be a number/,
      'a bare list of votes is checked as a ballot',
    );
  });

  it('mends unescaped quotes inside a string and a bracket that closes the object before its next member', () => {
    const cases: [string, unknown][] = [
      [
        '{"notes": "Sent a message to the "dictator", waiting on response."}',
        { notes: 'Sent a message to the "dictator", waiting on response.' },
      ],
      ['{"a": "say "hi"", "b": 1}', { a: 'say "hi"', b: 1 }],
      [
        '{"a": {"x": 1}, "list": [{"y": 2}]}, "b": [3]}, "c": {"d": 4}}',
        { a: { x: 1 }, list: [{ y: 2 }], b: [3], c: { d: 4 } },
      ],
    ];
    for (const [loose, want] of cases) assert.deepEqual(JSON.parse(repairJson(loose) ?? 'null'), want, loose);
    assert.equal(repairJson('{"a": {"b": [1]}'), '{"a": {"b": [1]}}', 'a missing brace is still added at the end');
  });
});

describe('ballots as real models write them', () => {
  const table = (reply: string) => {
    const r = parseBallot(reply, options);
    assert.ok(r.ok, r.ok ? '' : r.reason);
    return r.votes.map((v) => [v.option, v.vote, v.confidence]);
  };
  const one = (vote: Record<string, unknown>) => JSON.stringify({ votes: [vote] });

  it('takes the last object holding votes: after a tool call, a draft, or nested in a wrapper', () => {
    const final = one({ option: 'O1', vote: 'accept', confidence: 0.9, rationale: 'Final.' });
    const draft = one({ option: 'O1', vote: 'reject', confidence: 0.9, rationale: 'Draft.' });
    const tool = JSON.stringify({ name: 'cast_ballot', arguments: draft });
    assert.deepEqual(table(`${tool}\nOn reflection:\n\`\`\`json\n${final}\n\`\`\``)[0], ['O1', 'accept', 0.9]);
    assert.deepEqual(table(`Draft: ${draft}\nFinal: ${final}`)[0], ['O1', 'accept', 0.9]);
    assert.deepEqual(table(tool)[0], ['O1', 'reject', 0.9], 'a tool call whose arguments are a JSON string');
    assert.deepEqual(table(JSON.stringify({ ballot: JSON.parse(final) as unknown }))[0], ['O1', 'accept', 0.9]);
  });

  it('mends trailing commas, a missing closing brace, smart quotes and comments', () => {
    const loose = [
      '```json',
      '{',
      '  // my ballot',
      '  “votes”: [',
      '    {“option”: “O2”, “vote”: “reject”, “confidence”: 0.8, “rationale”: “He said "small".”,}, /* done */',
      '  ]',
    ].join('\n');
    assert.deepEqual(table(loose), [
      ['O1', 'abstain', 0],
      ['O2', 'reject', 0.8],
    ]);
    const r = parseBallot(loose, options);
    assert.equal(r.ok && r.votes[1]?.rationale, 'He said "small".');
    assert.deepEqual(table('{"votes":[{"option":"O1","vote":"accept","confidence":0.7,"rationale":"a"},],}')[0], [
      'O1',
      'accept',
      0.7,
    ]);
  });

  it('never mends a ballot cut off mid-list into a shorter one', () => {
    const cut = '{"votes":[{"option":"O1","vote":"accept","confidence":0.7,"rationale":"a"},';
    assert.match((parseBallot(cut, options) as { reason: string }).reason, /no JSON object/);
  });

  it('reads confidence as 0-1, a whole percentage or "80%"', () => {
    const at = (confidence: unknown) =>
      table(one({ option: 'O1', vote: 'accept', confidence, rationale: 'a' }))[0]?.[2];
    assert.equal(at(0.85), 0.85);
    assert.equal(at(85), 0.85);
    assert.equal(at('80%'), 0.8);
    assert.equal(at(100), 1);
    for (const bad of [101, -5, '80', 'high'])
      assert.match(
        (
          parseBallot(one({ option: 'O1', vote: 'accept', confidence: bad, rationale: 'a' }), options) as {
            reason: string;
          }
        ).reason,
        /confidence must be a number from 0\.0 to 1\.0/,
      );
  });

  it('reads vote synonyms and still refuses a word it does not know', () => {
    const voteOf = (vote: string) => table(one({ option: 'O1', vote, confidence: 0.9, rationale: 'a' }))[0]?.[1];
    for (const w of ['yes', 'Approve', 'support', 'for', 'agree']) assert.equal(voteOf(w), 'accept', w);
    for (const w of ['no', 'oppose', 'against', 'DISAGREE']) assert.equal(voteOf(w), 'reject', w);
    for (const w of ['neutral', 'skip', 'pass']) assert.equal(voteOf(w), 'abstain', w);
    for (const w of ['maybe', 'constructor', 'toString'])
      assert.match(
        (parseBallot(one({ option: 'O1', vote: w, confidence: 0.9, rationale: 'a' }), options) as { reason: string })
          .reason,
        /vote must be accept, reject or abstain/,
      );
  });

  it('reads an option named with its label, and evidence given as plain paths', () => {
    const optionOf = (option: string) =>
      table(one({ option, vote: 'accept', confidence: 1, rationale: 'a' })).find((v) => v[1] === 'accept')?.[0];
    assert.equal(optionOf('O2: SQLite'), 'O2');
    assert.equal(optionOf('O2 - SQLite'), 'O2');
    assert.equal(optionOf('O2 (SQLite)'), 'O2');
    assert.equal(optionOf('sqlite'), 'O2');
    assert.match(
      (
        parseBallot(one({ option: 'O12: x', vote: 'accept', confidence: 1, rationale: 'a' }), options) as {
          reason: string;
        }
      ).reason,
      /"O12: x" is not one of/,
    );
    const r = parseBallot(
      one({
        option: 'O1',
        vote: 'accept',
        confidence: 1,
        rationale: 'a',
        evidence: ['src/a.ts', { file: 'b.md', section: 'x' }],
      }),
      options,
    );
    assert.deepEqual(r.ok && r.votes[0]?.evidence, [
      { file: 'src/a.ts', status: 'unchecked' },
      { file: 'b.md', section: 'x', status: 'unchecked' },
    ]);
  });
});

describe('option proposals', () => {
  it('reads JSON or bullet lists', () => {
    assert.deepEqual(parseProposals('{"options": ["Use Kafka", " Use SQS ", 3]}'), ['Use Kafka', 'Use SQS']);
    assert.deepEqual(parseProposals('Options:\n- Use Kafka\n2) Use SQS\nsome prose'), ['Use Kafka', 'Use SQS']);
  });

  it('reads bare arrays, objects with a label, fenced JSON and bold list items', () => {
    assert.deepEqual(parseProposals('My options: ["Use Kafka", "Use SQS"]'), ['Use Kafka', 'Use SQS']);
    assert.deepEqual(parseProposals('[{"label": "Use Kafka"}, {"option": "Use SQS"}, {"title": "Use NATS"}]'), [
      'Use Kafka',
      'Use SQS',
      'Use NATS',
    ]);
    assert.deepEqual(parseProposals('```json\n{"options": [{"id": 1, "label": "Use Kafka"}]}\n```'), ['Use Kafka']);
    assert.deepEqual(parseProposals('1. **Use Kafka**\n2. Use SQS\n+ Use NATS'), ['Use Kafka', 'Use SQS', 'Use NATS']);
  });

  it('reads candidates as labelled lines (one label numbered from 1, or only quoted side lines), never a lone one or prose', () => {
    const cases: [reply: string, options: string[]][] = [
      [
        'Translation candidate 1: "Until now, no room."\n\nTranslation candidate 2: "No room yet."',
        ['Until now, no room.', 'No room yet.'],
      ],
      [
        'Candidate 1: "Gave him a white eye."\nCandidate 2: "Gave him a glance."',
        ['Gave him a white eye.', 'Gave him a glance.'],
      ],
      [
        '- **Option 1:** Use Kafka\n- **Option 2:** Use SQS\n- **Option 3** — Use NATS',
        ['Use Kafka', 'Use SQS', 'Use NATS'],
      ],
      [
        'Affirmative side: "Scrapped" or "Aborted".\nNegative side: "Carried out"',
        ['"Scrapped" or "Aborted".', 'Carried out'],
      ],
      ['Affirmative: "He wanted to go."\nNegative: "He wanted to stay."', ['He wanted to go.', 'He wanted to stay.']],
      // Never a lone labelled line, a numbering that skips, or prose mentioning candidates.
      ['We have two translation candidates: Candidate A and Candidate B.', []],
      ['Option 1: Use Kafka\nThat is all I can think of.', []],
      ['Option 2: Use Kafka\nOption 3: Use SQS', []],
      ['Affirmative: "He wanted to go."\nThe negative side had nothing.', []],
    ];
    for (const [reply, options] of cases) assert.deepEqual(parseProposals(reply), options, reply);
  });

  it('merges duplicates and near-duplicates, most proposed first, capped', () => {
    const merged = dedupeOptions(
      [
        ['Use PostgreSQL for everything', 'Keep SQLite'],
        ['use postgresql for everything!', 'Adopt DynamoDB'],
        ['Keep SQLite', 'Use PostgreSQL for everything.', 'Write our own store'],
      ],
      3,
    );
    assert.deepEqual(merged, ['Use PostgreSQL for everything', 'Keep SQLite', 'Adopt DynamoDB']);
  });
});
