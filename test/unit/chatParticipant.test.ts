/**
 * The `@roundtable` chat participant's pure parts: how a request is read (`/vote` syntax, bad input
 * refused with one line), and that the per-round table keeps its structure whatever the models wrote (parsed with markdown-it, `html: true`, as a chat renderer might).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import MarkdownIt from 'markdown-it';
import { rng } from '@roundtable/protocol/random';
import { parseAsk, VOTE_SYNTAX, withoutReferences } from '../../extension/src/chat/ask';
import { roundTable } from '../../extension/src/chat/render';
import { hostileText } from '../fakes/hostileText';

describe('chat: reading a request', () => {
  it('a question is a roundtable on it', () => {
    assert.deepEqual(parseAsk(undefined, '  Should we split billing?  '), {
      topic: 'Should we split billing?',
      mode: 'roundtable',
    });
  });

  it('/vote reads options before the dash and the question after it', () => {
    assert.deepEqual(parseAsk('vote', 'Postgres | MySQL | SQLite — which database for billing?'), {
      topic: 'which database for billing?',
      mode: 'consensus',
      options: ['Postgres', 'MySQL', 'SQLite'],
    });
    // ` -- ` where no dash is at hand; a dash inside the question stays in it.
    assert.deepEqual(parseAsk('vote', 'A|B -- keep the read-only — or not?'), {
      topic: 'keep the read-only — or not?',
      mode: 'consensus',
      options: ['A', 'B'],
    });
  });

  it('/vote without options lets the workers propose them', () => {
    assert.deepEqual(parseAsk('vote', 'which queue should we use?'), {
      topic: 'which queue should we use?',
      mode: 'consensus',
    });
  });

  it('refuses an empty question, one option, an empty option or a missing question with one line', () => {
    for (const [command, prompt] of [
      [undefined, '   '],
      ['vote', ''],
      ['vote', 'Postgres — which database?'],
      ['vote', 'Postgres | | SQLite — which?'],
      ['vote', 'Postgres | SQLite'],
    ] as const) {
      const r = parseAsk(command, prompt);
      assert.equal(typeof r, 'string', `${command ?? ''} ${prompt} is refused`);
      assert.doesNotMatch(r as string, /\n/, 'one line');
    }
    assert.match(parseAsk('vote', 'Postgres — which database?') as string, /at least two options/);
    assert.ok((parseAsk('vote', 'Postgres | SQLite') as string).includes(VOTE_SYNTAX));
  });

  it('drops the #file reference spans from the question', () => {
    const prompt = 'Should #file:billing.ts be split from #file:db.ts now?';
    const a = prompt.indexOf('#file:billing.ts');
    const b = prompt.indexOf('#file:db.ts');
    assert.equal(
      withoutReferences(prompt, [
        [a, a + '#file:billing.ts'.length],
        [b, b + '#file:db.ts'.length],
      ]),
      'Should be split from now?',
    );
  });
});

const md = new MarkdownIt({ html: true });
/**
 * The structure a reader sees: every block but paragraphs (a model may write several), with its
 * nesting, and the text of every heading and table header.
 */
const shape = (text: string): string[] => {
  const tokens = md.parse(text, {});
  return tokens.flatMap((t, i) => {
    if (t.type.startsWith('paragraph_')) return [];
    if (t.type !== 'inline') return [`${t.type}:${t.level}`];
    const opener = tokens[i - 1]?.type;
    return opener === 'heading_open' || opener === 'th_open' ? [`text:${t.content}`] : [];
  });
};

describe('chat: the Markdown it streams', () => {
  it('a round is one table: a row per speaker with name, model, stance and gist, then the judge', () => {
    const out = roundTable({
      round: 2,
      posts: [
        { speaker: 'ada', model: 'gpt-4o', stance: 'AGREE', gist: 'Split billing | keep one DB' },
        { speaker: 'grace', stance: 'DISAGREE', gist: 'Too early\nwait a quarter' },
      ],
      judge: 'Converging on the split.',
    });
    const tokens = md.parse(out, {});
    const cells = tokens.filter((t) => t.type === 'inline' && tokens[tokens.indexOf(t) - 1]?.type === 'td_open');
    assert.deepEqual(
      cells.map((c) => c.content),
      ['ada', 'gpt-4o', 'AGREE', 'Split billing | keep one DB', 'grace', '', 'DISAGREE', 'Too early wait a quarter'],
    );
    assert.match(out, /^\*\*Round 2\*\*/);
    assert.match(out, /^> Judge: Converging on the split\.$/m);
  });

  it('hostile model text cannot change the table: no row, cell, heading, link or HTML added', () => {
    const benignRound = roundTable({
      round: 1,
      posts: [
        { speaker: 'ada', model: 'm', stance: 'AGREE', gist: 'word' },
        { speaker: 'grace', model: 'm', stance: 'AGREE', gist: 'word' },
      ],
      judge: 'word',
    });
    for (let seed = 1; seed <= 200; seed++) {
      const rand = rng(seed);
      const h = (): string => hostileText(rand);
      const round = roundTable({
        round: 1,
        posts: [
          { speaker: h(), model: h(), stance: h(), gist: h() },
          { speaker: h(), model: h(), stance: h(), gist: h() },
        ],
        judge: `word ${h()}`,
      });
      assert.deepEqual(shape(round), shape(benignRound), `seed ${seed}: round table\n${round}`);
      assert.doesNotMatch(round, /<(img|script|div|details)/i, 'no HTML element reaches the chat');
    }
  });
});
