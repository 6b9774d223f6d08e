/**
 * One decision record read as teams write them (MADR 2/3/4, Nygard/adr-tools) and as a hostile
 * file could be written: what a person sees in `roundtable decisions` and what the review will
 * count as an accepted rule.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRecord } from '../../daemon/src/decisions/record';
import { readRecord } from '../../daemon/src/decisions/recordRule';
import { normalizeStatus } from '../../daemon/src/decisions/status';

/** CPU time of `fn` in microseconds, best of three (the least disturbed by a loaded machine). */
function cpu(fn: () => void): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const t = process.cpuUsage();
    fn();
    const d = process.cpuUsage(t);
    best = Math.min(best, d.user + d.system);
  }
  return Math.max(best, 1);
}

describe('decision record: the three formats', () => {
  it('reads MADR 4 front matter: status, date, decision-makers, a scope list and supersession keys', () => {
    const r = parseRecord(
      'docs/decisions/0007-use-postgres.md',
      [
        '---',
        'status: "accepted"',
        'date: 2025-01-10',
        'decision-makers:',
        '  - "Ada"',
        '  - Grace # lead',
        'scope:',
        '  - "src/db/**"',
        "  - 'migrations/*.sql'",
        'supersedes: [0003-use-mysql.md, "ADR-0004"]',
        '---',
        '',
        '# Use Postgres for every service',
        '',
        '## Context and Problem Statement',
      ].join('\n'),
    );
    assert.equal(r.title, 'Use Postgres for every service');
    assert.equal(r.number, 7);
    assert.equal(r.state, 'accepted');
    assert.equal(r.date, '2025-01-10');
    assert.deepEqual(r.deciders, ['Ada', 'Grace']);
    assert.deepEqual(r.scope, ['src/db/**', 'migrations/*.sql']);
    assert.deepEqual(
      r.links.map((l) => [l.kind, l.target ?? l.label]),
      [
        ['supersedes', '0003-use-mysql.md'],
        ['supersedes', 'ADR-0004'],
      ],
    );
    assert.deepEqual(r.notes, []);
  });

  it('takes a single-string scope and a superseded-by key, which makes the record superseded whatever its status says', () => {
    const r = parseRecord(
      'a.md',
      '---\nstatus: accepted\nscope: "services/**"\nsuperseded-by: 0009-use-sqlite.md\n---\n# A\n',
    );
    assert.deepEqual(r.scope, ['services/**']);
    assert.equal(r.state, 'superseded');
    assert.deepEqual(r.links, [{ kind: 'superseded-by', target: '0009-use-sqlite.md', label: '0009-use-sqlite.md' }]);
  });

  it('reads MADR without front matter: bullets, bold fields, HTML comments and a scope line', () => {
    const r = parseRecord(
      'docs/decisions/0004-queue.md',
      [
        '# Use RabbitMQ for jobs',
        '',
        '* Status: superseded by [ADR-0005](0005-use-sqs.md) <!-- optional -->',
        '* Deciders: Ada, Grace <!-- optional -->',
        '* Date: 2024-05-01',
        '* Scope: src/jobs/**, deploy/queue.yaml',
      ].join('\n'),
    );
    assert.equal(r.state, 'superseded');
    assert.equal(r.status, 'superseded by [ADR-0005](0005-use-sqs.md)');
    assert.deepEqual(r.deciders, ['Ada', 'Grace']);
    assert.deepEqual(r.scope, ['src/jobs/**', 'deploy/queue.yaml']);
    assert.deepEqual(r.links, [{ kind: 'superseded-by', target: '0005-use-sqs.md', label: 'ADR-0005' }]);
    const bold = parseRecord('b.md', '# B\n\n**Status:** ✅ Accepted\n**Date:** 2026-02-12\n');
    assert.deepEqual([bold.state, bold.date], ['accepted', '2026-02-12']);
  });

  it("reads Nygard's status section: the first line is the status, Supersedes lines below are links, a bare 'Superseded by 5. …' too", () => {
    const accepted = parseRecord(
      'doc/adr/0002-second-record.md',
      '# 2. Second Record\n\nDate: 1992-01-12\n\n## Status\n\nAccepted\n\nSupercedes [1. First Record](0001-first-record.md)\n\n## Context\n\nStatus: this line is not the status\n',
    );
    assert.deepEqual([accepted.state, accepted.status, accepted.number], ['accepted', 'Accepted', 2]);
    assert.deepEqual(accepted.links, [
      { kind: 'supersedes', target: '0001-first-record.md', label: '1. First Record' },
    ]);
    const bare = parseRecord('doc/adr/0003-x.md', '# 3. X\n\n## Status\n\nSuperseded by 5. Use SQS\n');
    assert.equal(bare.state, 'superseded');
    assert.deepEqual(bare.links, [{ kind: 'superseded-by', label: '5. Use SQS' }]);
    // A status section that still says OPEN, with a "Superceded by" line under it: superseded.
    const open = parseRecord('c.md', '# C\n\n## Status\n\nOPEN\n\nSuperceded by [19. D](0019-d.md)\n');
    assert.equal(open.state, 'superseded');
  });

  it('normalises the statuses people write to six', () => {
    const cases: [string | undefined, string][] = [
      ['Accepted', 'accepted'],
      ['✅ Approved', 'accepted'],
      ['accepted, supersedes [ADR-3](0003-x.md)', 'accepted'],
      ['Draft', 'proposed'],
      ['{proposed | rejected | accepted | deprecated | … | superseded by [ADR-0005](0005-example.md)}', 'superseded'],
      ['Proposed', 'proposed'],
      ['Rejected', 'rejected'],
      ['Declined: too costly', 'rejected'],
      ['Deprecated', 'deprecated'],
      ['Superceded by [2. Second Record](0002-second-record.md)', 'superseded'],
      ['Dead, replaced by 0004', 'superseded'],
      ['Amended by [4. X](0004-x.md)', 'unknown'],
      ['', 'unknown'],
      [undefined, 'unknown'],
    ];
    assert.deepEqual(
      cases.map(([s]) => normalizeStatus(s)),
      cases.map(([, want]) => want),
    );
  });

  it('numbers records from the file name (0005-, ADR015-, adr-0007) or else from the title', () => {
    assert.deepEqual(
      [
        parseRecord('docs/adr/ADR015-aws-iam.md', '# ADR015: AWS IAM\n').number,
        parseRecord('docs/adr/adr-0007.md', '# Seven\n').number,
        parseRecord('docs/adr/use-postgres.md', '# ADR-0012: Use Postgres\n').number,
        parseRecord('docs/adr/use-postgres.md', '# 12. Use Postgres\n').number,
        parseRecord('docs/adr/use-postgres.md', '# Use Postgres 16\n').number,
      ],
      [15, 7, 12, 12, undefined],
    );
  });
});

describe('decision record: what a file can do to the reader', () => {
  it('reads CRLF line endings and a byte-order mark exactly as LF', () => {
    const lf = '---\nstatus: accepted\ndate: 2025-01-10\nscope: ["src/**"]\n---\n# Use Postgres\n\n* Deciders: Ada\n';
    const crlf = `\uFEFF${lf.replace(/\n/g, '\r\n')}`;
    const a = parseRecord('a.md', lf);
    const b = parseRecord('a.md', crlf);
    assert.deepEqual([b.title, b.state, b.date, b.scope, b.deciders], [a.title, a.state, a.date, a.scope, a.deciders]);
    assert.equal(b.title, 'Use Postgres');
  });

  it('reads a front matter that is never closed as none, says so, and takes no status from it', () => {
    const r = parseRecord('x.md', '---\nstatus: accepted\nscope: "**"\n# Forged\n');
    assert.equal(r.state, 'unknown');
    assert.deepEqual(r.scope, []);
    assert.match(r.notes.join('\n'), /front matter is never closed: none of its fields is read/);
  });

  it('skips a front matter longer than 200 lines whole (a huge front matter is not parsed), and reads the body after it', () => {
    const huge = `---\n${'filler: x\n'.repeat(5000)}status: accepted\nscope: "**"\n---\n# Huge\n\n* Date: 2025-01-01\n`;
    const r = parseRecord('x.md', huge);
    assert.deepEqual([r.state, r.scope, r.title, r.date], ['unknown', [], 'Huge', '2025-01-01']);
    assert.match(r.notes.join('\n'), /longer than 200 lines or 16000 characters: none of its fields is read/);
  });

  it('never expands a YAML bomb: anchors and aliases stay strings, an alias in scope is left out with a note', () => {
    const bomb = [
      '---',
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      ...Array.from(
        { length: 8 },
        (_, i) => `${'bcdefghi'[i]}: &${'bcdefghi'[i]} [*${'abcdefgh'[i]},*${'abcdefgh'[i]},*${'abcdefgh'[i]}]`,
      ),
      'status: accepted',
      'scope: [*i, "src/**"]',
      '---',
      '# Bomb',
    ].join('\n');
    const r = parseRecord('x.md', bomb);
    assert.equal(r.state, 'accepted');
    assert.deepEqual(r.scope, ['src/**'], 'the alias is no glob');
    assert.match(r.notes.join('\n'), /\*i starts with \*, which YAML reads as an alias/);
  });

  it('asks for quotes around an unquoted glob that YAML would read as an alias', () => {
    const r = parseRecord('x.md', '---\nstatus: accepted\nscope: **/*.sql\n---\n# Q\n');
    assert.deepEqual(r.scope, []);
    assert.match(r.notes.join('\n'), /\(quote it\)/);
    assert.deepEqual(parseRecord('x.md', '---\nscope: "**/*.sql"\n---\n# Q\n').scope, ['**/*.sql']);
  });

  it('leaves out scope globs that point outside the workspace, each with a note', () => {
    const r = parseRecord(
      'x.md',
      `---\nscope:\n  - "../other/**"\n  - "/etc/**"\n  - "C:/Windows/**"\n  - "./src/ok/**"\n  - "a/../../b"\n  - "${'*'.repeat(201)}"\n  - "src/\\u001b[2J/**"\n---\n# S\n`,
    );
    assert.deepEqual(r.scope, ['src/ok/**']);
    assert.equal(r.notes.filter((n) => /points outside the workspace/.test(n)).length, 4);
    assert.equal(r.notes.filter((n) => /longer than 200 characters|holds a control character/.test(n)).length, 2);
  });

  it('reads no field from a fenced code block (MADR shows front matter examples in fences)', () => {
    const r = parseRecord(
      'x.md',
      '---\nparent: Decisions\n---\n# Use YAML front matter\n\n```markdown\n---\nstatus: accepted\n---\n* Status: accepted\n## Status\n\nAccepted\n```\n',
      { unstatused: 'ignore' },
    );
    assert.equal(r.state, 'unknown', 'no status of its own');
    assert.equal(r.status, undefined);
    assert.equal(r.unstatused, true);
  });

  it("takes no title from a front matter comment, and the front matter's title when there is no heading", () => {
    const madr3 = parseRecord('x.md', '---\n# These are optional elements.\nstatus: accepted\n---\n# Real title\n');
    assert.equal(madr3.title, 'Real title');
    const hugo = parseRecord('x.md', '---\ntitle: "1. Introduce an accounts service"\n---\n\n* Status: accepted\n');
    assert.equal(hugo.title, '1. Introduce an accounts service');
  });

  it('keeps every field one short visible line: control characters and bidi in a status or decider cannot ride along', () => {
    const r = parseRecord(
      'x.md',
      `# T\n\n* Status: accepted \u202e${'x'.repeat(5000)}\n* Deciders: ${'Ada, '.repeat(500)}\n`,
    );
    assert.equal(r.state, 'accepted');
    assert.ok((r.status ?? '').length <= 200);
    assert.ok(!(r.status ?? '').includes('\u202e'), 'bidi shown as an escape');
    assert.equal(r.deciders.length, 50, 'deciders capped');
    // A YAML escape cannot make a title or status two lines (a forged line in the listing).
    const forged = parseRecord(
      'x.md',
      '---\ntitle: "Real\\n0009  accepted  Forged"\nstatus: "accepted\\r\\nscope: x"\n---\n',
    );
    assert.equal(forged.title, 'Real 0009  accepted  Forged');
    assert.equal(forged.status, 'accepted  scope: x');
  });
});

describe('decision record: linear in its size, whatever it holds', () => {
  const shapes: [string, (n: number) => string][] = [
    ['one line of link openers', (n) => `# T\n\n* Status: superseded by ${'[a]('.repeat(n / 4)}\n`],
    ['a Supersedes line of link openers', (n) => `# T\n\nSupersedes ${'[a]('.repeat(n / 4)}\n`],
    [
      'status and supersession lines',
      (n) => `# T\n${'* Supersedes [x](0001-x.md)\n* Status: accepted\n'.repeat(n / 48)}`,
    ],
    ['an unclosed front matter of keys', (n) => `---\n${'status: accepted\n'.repeat(n / 17)}`],
    ['fences opened and never closed', (n) => `# T\n${'```\n~~~~\n'.repeat(n / 9)}`],
    ['a flow list that never closes', (n) => `---\nscope: [${'"a,'.repeat(n / 3)}\n---\n# T\n`],
  ];
  for (const [name, make] of shapes)
    it(`${name}: 1 MB costs about 8 times 128 KB, not 64`, () => {
      const small = make(128 * 1024);
      const big = make(1024 * 1024);
      const ratio = cpu(() => parseRecord('x.md', big)) / cpu(() => parseRecord('x.md', small));
      assert.ok(ratio < 24, `ratio ${ratio.toFixed(1)}`);
    });
});

describe('decision record: linear in the length of a line, whatever it holds', () => {
  // Lines are cut at 4,000 characters, so a pattern that backtracks on one line costs the square
  // (or cube) of 4,000 on each: 64 lines of 4,000 must cost about 8 times 64 lines of 500, not 64.
  const lineOf = (head: string, fill: string, n: number) => `${head}${fill.repeat((n - head.length) / fill.length)}y`;
  const shapes: [string, string, string][] = [
    ['a status heading, then spaces', '## Status: x', ' '],
    ['a status heading and closing hashes', '## Status', '#'],
    ['a table row of empty cells', '| Status ', '| '],
    ['fields split by middle dots', 'Status: x', ' · '],
    ['a French supersession line, then spaces', 'remplace', ' '],
    ['a field name, then spaces and no colon', '**Status**', ' '],
    ['an unchecked box, then spaces', '- [ ]', ' '],
  ];
  for (const [name, head, fill] of shapes)
    it(`${name}: a 4,000-character line costs about 8 times a 500-character one`, () => {
      const text = (n: number) => `# T\n\n${`${lineOf(head, fill, n)}\n`.repeat(64)}`;
      const short = text(512);
      const long = text(4096);
      const ratio =
        cpu(() => readRecord('docs/decisions/0001-x.md', long)) /
        cpu(() => readRecord('docs/decisions/0001-x.md', short));
      assert.ok(ratio < 24, `ratio ${ratio.toFixed(1)}`);
    });
});
