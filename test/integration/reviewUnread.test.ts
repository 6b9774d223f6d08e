/**
 * Unread is not clean, with the real CLI on real temporary repositories against a loopback server:
 * a change whose offending file under the accepted record "Postgres for every service" was not
 * read (too big for the budget, kept back by the gate, binary) never exits 0: it exits 3 with one
 * line naming the file; with --allow-unread it exits by its findings and every report says what
 * was not read. A file the change's own `.gitattributes` marks `-diff` is read as text, and thirty
 * changed docs do not push the governed source file out of the budget.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { ChatBody, Reply } from '../fakes/openaiServer';
import { MYSQL_POOL, reviewResponder, reviewSuite, type ReviewRepo } from '../fakes/reviewRepo';

const DB = 'services/orders/db.ts';

/** The pool, then enough ordinary lines that its diff alone is more than the 8,000-token context budget. */
const BIG_DB = `${MYSQL_POOL}${Array.from({ length: 1_500 }, (_, i) => `export const query${i} = 'SELECT id, status FROM orders WHERE id = $${i}';`).join('\n')}\n`;

/** Reviewers that report the pool in services/orders/db.ts whatever they were shown (a model that guesses). */
function guessingResponder(body: ChatBody): Reply {
  const text = (body.messages ?? []).map((m) => m.content).join('\n');
  if (!text.includes('"findings": [')) return reviewResponder(body);
  return JSON.stringify({
    findings: [
      {
        file: DB,
        lines: { start: 2, end: 2 },
        severity: 'blocking',
        decision: '0001',
        claim: 'The orders service gets a MySQL pool; decision 0001 says Postgres for every service.',
      },
    ],
  });
}

interface Report {
  exit: number;
  findings: { file: string; verdict: string; refuted?: string }[];
  scope: { unread?: { file: string; reason: string; governedBy?: string[] }[]; unreadAllowed?: boolean };
}

const commit = (r: ReviewRepo, message: string) => {
  r.git('add', '.');
  r.git('commit', '-qm', message);
};

/** The one `could not review` line of stderr. */
const whyLine = (stderr: string): string => {
  const lines = stderr.split('\n').filter((l) => l.startsWith('roundtable: could not review'));
  assert.equal(lines.length, 1, stderr);
  return lines[0] as string;
};

describe('roundtable review: what was not read is never a clean pass', () => {
  const s = reviewSuite();

  it('a governed file too big for the budget: exit 3 naming it; with --allow-unread, by its findings, and said', async () => {
    const r = await s.repo();
    await r.write(DB, BIG_DB);
    commit(r, 'orders: a MySQL pool and many queries');
    const res = await s.review(r);
    assert.equal(res.code, 3, res.stderr);
    assert.match(
      whyLine(res.stderr),
      /^roundtable: could not review: 1 changed file\(s\) under an accepted decision were not read \(--allow-unread passes without them\): services\/orders\/db\.ts \(decision 0001: its diff \(\d+ tokens\) did not fit the 8000-token review budget\)$/,
    );
    assert.match(res.stdout, /^not read: services\/orders\/db\.ts — its diff .* \(under decision 0001\)$/m);

    // Allowed: nobody found anything, so it passes, and every report says what was not read.
    const out = path.join(r.root, '..', 'out');
    const sarifFile = path.join(out, 'r.sarif');
    const mdFile = path.join(out, 'r.md');
    const allowed = await s.review(r, ['--allow-unread', '--sarif', sarifFile, '--markdown', mdFile]);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(allowed.stdout, /1 file\(s\) not read \(passed without them: --allow-unread\)/);
    const sarif = JSON.parse(await readFile(sarifFile, 'utf8')) as {
      runs: { properties: { unreadAllowed: boolean; unread: { file: string; governedBy: string[] }[] } }[];
    };
    assert.equal(sarif.runs[0]?.properties.unreadAllowed, true);
    assert.deepEqual(
      sarif.runs[0]?.properties.unread.map((u) => [u.file, u.governedBy]),
      [[DB, ['0001']]],
    );
    const md = await readFile(mdFile, 'utf8');
    assert.match(md, /### Not read\n\nThe review was asked to pass without these files \(`--allow-unread`\)/);
    assert.match(md, /^- `services\/orders\/db\.ts`: its diff .* \(under decision 0001\)$/m);

    // A reviewer's finding on the file it could not read is voted on, not refuted as "not in the change".
    s.fake().setResponder(guessingResponder);
    try {
      const voted = await s.review(r, ['--allow-unread', '--json']);
      assert.equal(voted.code, 1, voted.stderr);
      const report = JSON.parse(voted.stdout) as Report;
      assert.deepEqual(
        report.findings.map((f) => [f.file, f.verdict, f.refuted]),
        [[DB, 'PROVEN', undefined]],
      );
      assert.equal(report.scope.unreadAllowed, true);
    } finally {
      s.fake().setResponder(reviewResponder);
    }
  });

  it('a governed file the gate keeps back, or a binary one: exit 3 naming it and why', async () => {
    const r = await s.repo();
    await r.write('services/orders/.env', 'DATABASE_URL=mysql://orders:hunter2@db/orders\n');
    await r.write('services/orders/schema.bin', Buffer.from([0x4d, 0x59, 0x53, 0x51, 0x4c, 0, 0, 1, 2]));
    await r.write('docs/notes.md', 'Nothing to see.\n');
    commit(r, 'orders: move to MySQL by config');
    const res = await s.review(r, ['--json']);
    assert.equal(res.code, 3, res.stderr);
    const why = whyLine(res.stderr);
    assert.match(why, /^roundtable: could not review: 2 changed file\(s\) under an accepted decision were not read/);
    assert.match(why, /services\/orders\/\.env \(decision 0001: has a secret-looking name \(an environment file\)/);
    assert.match(why, /services\/orders\/schema\.bin \(decision 0001: is a binary file; left out of the git diff\)/);
    const report = JSON.parse(res.stdout) as Report;
    assert.equal(report.exit, 3);
    assert.deepEqual(report.scope.unread?.map((u) => u.file).sort(), [
      'services/orders/.env',
      'services/orders/schema.bin',
    ]);
  });

  it('a file its own .gitattributes marks -diff is read as text: the breach is found (exit 1)', async () => {
    const r = await s.repo();
    await r.write('.gitattributes', 'services/** -diff\n');
    await r.write(DB, MYSQL_POOL);
    commit(r, 'orders: a MySQL pool, hidden from diffs');
    const res = await s.review(r, ['--json']);
    assert.equal(res.code, 1, res.stderr);
    const report = JSON.parse(res.stdout) as Report;
    assert.deepEqual(
      report.findings.filter((f) => f.verdict === 'PROVEN').map((f) => f.file),
      [DB],
    );
  });

  it('thirty changed docs do not push the governed source file out of the budget', async () => {
    const r = await s.repo();
    const prose = 'The orders service keeps its configuration in one place; read this guide before you change it. ';
    for (let i = 0; i < 30; i++)
      await r.write(`docs/guide-${String(i).padStart(2, '0')}.md`, `# Guide ${i}\n\n${prose.repeat(20)}\n`);
    // The pool and forty queries: bigger than what the docs leave of the budget.
    await r.write(DB, BIG_DB.split('\n').slice(0, 42).join('\n'));
    commit(r, 'docs and a MySQL pool');
    const res = await s.review(r, ['--json']);
    assert.equal(res.code, 1, res.stderr);
    const report = JSON.parse(res.stdout) as Report;
    assert.ok((report.scope.unread ?? []).length > 0, 'the docs do not all fit');
    assert.ok(
      (report.scope.unread ?? []).every((u) => u.file.startsWith('docs/')),
      JSON.stringify(report.scope.unread),
    );
    assert.deepEqual(
      report.findings.filter((f) => f.verdict === 'PROVEN').map((f) => f.file),
      [DB],
    );
  });
});
