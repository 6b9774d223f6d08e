/**
 * The decision record a person commits: MADR 4.0 sections, YAML front matter naming who decided
 * and who was consulted, a clean "Chosen option" line and a link to the minutes — and no model
 * text (topic, models, digest) can end the front matter, add a key, a heading or HTML.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import MarkdownIt from 'markdown-it';
import type { MeetingEvent, MeetingState } from '@roundtable/protocol';
import { fold } from '@roundtable/protocol';
import { digestMarkdown } from '@roundtable/protocol/digestMarkdown';
import { decisionRecord } from '../../extension/src/decisionRecord';
import { loadPanel } from '../../daemon/src/panel';
import { ballot, panel, runMeeting } from '../fakes/meetings';

const md = new MarkdownIt({ html: true });

/** The front matter as key -> values, checked line by line against the only grammar we write. */
function frontMatter(doc: string): { fields: Record<string, string[]>; body: string } {
  const lines = doc.split('\n');
  assert.equal(lines[0], '---', 'the record opens with front matter');
  const end = lines.indexOf('---', 1);
  assert.ok(end > 0, 'the front matter is closed');
  const fields: Record<string, string[]> = {};
  let key = '';
  for (const line of lines.slice(1, end)) {
    const scalar = /^([a-z-]+): ("(?:[^"\\]|\\.)*")$/.exec(line);
    const list = /^([a-z-]+):$/.exec(line);
    const item = /^ {2}- ("(?:[^"\\]|\\.)*")$/.exec(line);
    if (scalar) fields[scalar[1]!] = [JSON.parse(scalar[2]!) as string];
    else if (list) fields[(key = list[1]!)] = [];
    else if (item && key) fields[key]!.push(JSON.parse(item[1]!) as string);
    else assert.fail(`a front-matter line outside the grammar: ${JSON.stringify(line)}`);
  }
  return { fields, body: lines.slice(end + 1).join('\n') };
}

function headings(body: string): string[] {
  const tokens = md.parse(body, {});
  const out: string[] = [];
  tokens.forEach((t, i) => {
    if (t.type === 'heading_open') out.push(`${t.tag} ${tokens[i + 1]?.content ?? ''}`);
  });
  return out;
}

function htmlTokens(body: string): string[] {
  return md
    .parse(body, {})
    .flatMap((t) => [t, ...(t.children ?? [])])
    .filter((t) => t.type === 'html_block' || t.type === 'html_inline')
    .map((t) => t.content);
}

let demo: MeetingEvent[];
before(async () => {
  const root = path.join(__dirname, '..', '..');
  const script = JSON.parse(readFileSync(path.join(root, 'examples', 'demo-script.json'), 'utf8')) as {
    replies: Record<string, unknown>;
  };
  const { events } = await runMeeting({
    topic: 'Should we adopt a monorepo for our three services?',
    participants: loadPanel(path.join(root, 'examples', 'demo-panel.json')),
    script: { replies: script.replies },
  });
  const last = events.at(-1)!;
  demo = [
    ...events,
    {
      type: 'decision_recorded',
      decision: 'accepted',
      meetingId: last.meetingId,
      seq: last.seq + 1,
      at: Date.UTC(2026, 10, 23),
    },
  ] as MeetingEvent[];
});

const SECTIONS = [
  'h2 Context and Problem Statement',
  'h2 Considered Options',
  'h2 Decision Outcome',
  'h3 Consequences',
  'h2 More Information',
];

describe('the MADR decision record', () => {
  it('has front matter, the MADR sections, a clean outcome and a link to the minutes', () => {
    const s = fold(demo);
    const doc = decisionRecord({
      state: s,
      digestText: digestMarkdown(s),
      minutesLink: '../roundtable/2026-11-23-monorepo.md',
      decidedBy: 'Grace Hopper',
    });
    const { fields, body } = frontMatter(doc);
    assert.deepEqual(fields.status, ['accepted']);
    assert.deepEqual(fields.date, ['2026-11-23']);
    assert.equal(fields['decision-makers']?.[0], 'Grace Hopper', 'the human who accepted comes first');
    for (const p of s.participants) {
      assert.ok(fields['decision-makers']?.includes(p.model), `the panel's model ${p.model} decided too`);
      assert.ok(
        fields.consulted?.some((c) => c.startsWith(`${p.name} (`)),
        `${p.name} is among the consulted`,
      );
    }
    assert.deepEqual(fields.minutes, ['../roundtable/2026-11-23-monorepo.md']);
    assert.deepEqual(headings(body), ['h1 Should we adopt a monorepo for our three services?', ...SECTIONS]);
    const statement = s.digest?.digest.consensusStatement ?? '';
    assert.ok(statement.length > 0);
    assert.match(
      body,
      /^Chosen option: ".+", because the panel reached full consensus \(confidence \d\.\d\d\) after 3 rounds/m,
    );
    assert.ok(body.includes(`Chosen option: "${statement.slice(0, 20)}`), 'the outcome is the room’s statement');
    assert.doesNotMatch(doc, /Decision Outcome: FULL|Deciders: the team|consensus_full/);
    assert.match(body, /\[minutes\]\(<\.\.\/roundtable\/2026-11-23-monorepo\.md>\)/);
  });

  it('takes the outcome the person edited in the review', () => {
    const s = fold(demo);
    const edited = digestMarkdown(s).replace(
      /## Outcome\n\n[^\n]*/,
      '## Outcome\n\nAdopt a monorepo for the **two** web services',
    );
    const doc = decisionRecord({ state: s, digestText: edited, minutesLink: 'm.md', decidedBy: 'G' });
    assert.match(doc, /^Chosen option: "Adopt a monorepo for the \*\*two\*\* web services", because /m);
    assert.ok(doc.includes('Adopt a monorepo for the **two** web services'), 'the accepted digest is kept verbatim');
  });

  it('keeps its front matter and sections whatever the models and the person’s name hold', () => {
    const hostile = [
      'x"\n---\nstatus: rejected\n# Injected',
      '\' ]\n- injected: \\"',
      '\u2028---\u0085status: "rejected"',
      '<script>alert(1)</script><img src=x onerror=alert(1)>',
      '\n## Decision Outcome\n\nChosen option: "evil"',
      '\n```\n---\n',
      '\nTitle\n===\n',
    ];
    for (const h of hostile) {
      const base = fold(demo);
      const s: MeetingState = {
        ...base,
        topic: `Topic ${h}`,
        participants: base.participants.map((p) => ({ ...p, model: `${p.model}${h}` })),
        digest: base.digest && {
          ...base.digest,
          digest: { ...base.digest.digest, consensusStatement: h, dissent: h, contributors: h },
        },
      };
      const doc = decisionRecord({
        state: s,
        digestText: digestMarkdown(s),
        minutesLink: `m${h}.md`,
        decidedBy: `Eve ${h}`,
      });
      const { fields, body } = frontMatter(doc);
      assert.deepEqual(
        Object.keys(fields),
        ['status', 'date', 'decision-makers', 'consulted', 'minutes'],
        JSON.stringify(h),
      );
      assert.deepEqual(fields.status, ['accepted']);
      assert.equal(fields['decision-makers']?.[0]?.startsWith('Eve '), true);
      assert.ok(!fields['decision-makers']?.[0]?.includes('\n'), 'a value stays on one line');
      const hs = headings(body);
      assert.equal(hs.length, SECTIONS.length + 1, `no heading added by ${JSON.stringify(h)}: ${hs.join(' | ')}`);
      assert.deepEqual(hs.slice(1), SECTIONS);
      assert.deepEqual(htmlTokens(body), [], `no HTML from ${JSON.stringify(h)}`);
      assert.deepEqual(htmlTokens(doc), [], `no HTML in the front matter either, from ${JSON.stringify(h)}`);
      const tokens = md.parse(body, {});
      const at = tokens.findIndex((t) => t.type === 'inline' && t.content === 'Decision Outcome');
      const outcome = tokens.slice(at + 1).find((t) => t.type === 'inline');
      assert.match(
        outcome?.content ?? '',
        /^Chosen option: ".*", because the panel reached /s,
        'the outcome follows its heading',
      );
    }
  });

  it('names the option a consensus meeting settled on, with the votes as decision drivers', async () => {
    const split = {
      replies: {
        ada: Array<string>(3).fill(ballot(['O1', 'accept', 0.7, ['src/db.ts']], ['O2', 'reject', 0.7])),
        grace: Array<string>(3).fill(ballot(['O1', 'reject', 0.7, ['BENCH.md']], ['O2', 'accept', 0.7])),
        linus: Array<string>(3).fill(ballot(['O1', 'abstain', 0], ['O2', 'abstain', 0])),
      },
    };
    const c = await runMeeting({
      mode: 'consensus',
      options: ['PostgreSQL', 'SQLite'],
      participants: panel(['ada', 'grace', 'linus'], false),
      script: split,
    });
    assert.equal(c.state.status, 'awaiting_human', 'the split vote escalates');
    await c.meeting.resolve('pick', { option: 'O2' });
    await c.meeting.run();
    const s = fold(await c.store.load(c.meeting.id));
    const doc = decisionRecord({
      state: s,
      digestText: digestMarkdown(s),
      minutesLink: 'm.md',
      decidedBy: 'Grace Hopper',
    });
    const { body } = frontMatter(doc);
    assert.match(
      body,
      /^Chosen option: "SQLite", because Grace Hopper picked it when the panel's vote could not settle the question \(best weighted agreement \d+%, threshold \d+%\)/m,
    );
    assert.match(body, /## Considered Options\n\n\* PostgreSQL\n\* SQLite\n/);
    assert.deepEqual(headings(body).slice(1, 3), ['h2 Context and Problem Statement', 'h2 Decision Drivers']);
  });
});
