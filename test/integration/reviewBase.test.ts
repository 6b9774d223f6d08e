/**
 * The rules a review holds a change to are the base's (issue 40): the real CLI on real temporary
 * repositories against the loopback reviewers. A change that adds a MySQL pool where accepted
 * decision 0001 says Postgres, and rewrites the rules on the way as a contributor who wants it
 * through would (marks 0001 superseded, adds an accepted record superseding it, deletes it, adds
 * 500 records sorting before it, edits its scope), still fails (exit 1) on 0001, and the report
 * names the change's edits and says it is a decision change. A `--worktree` review reads the rules
 * from HEAD.
 */
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { MYSQL_POOL, POSTGRES_RECORD, reviewSuite, type ReviewRepo } from '../fakes/reviewRepo';

interface Report {
  exit: number;
  findings: { decision?: string; verdict: string; refuted?: string }[];
  scope: {
    decisions: { id: string; status: string }[];
    rules: {
      commit: string;
      label: string;
      folder: string;
      edits?: { path: string; what: string }[];
      moreEdits?: number;
    };
  };
}

const MYSQL_RECORD = (extra: string) =>
  `---\nstatus: accepted\ndate: 2026-11-01\n${extra}---\n\n# MySQL for the orders service\n\nThe orders service moves to MySQL.\n`;

/** Each way a change can rewrite the rule it breaks, and the edit the report must name. */
const REWRITES: { name: string; rewrite: (r: ReviewRepo) => Promise<void>; edit: RegExp }[] = [
  {
    name: 'marks 0001 superseded',
    rewrite: async (r) => {
      const text = await readFile(path.join(r.root, POSTGRES_RECORD), 'utf8');
      await r.write(POSTGRES_RECORD, text.replace('status: accepted', 'status: superseded'));
    },
    edit: /^marks 0001 superseded \(accepted at the base\)$/,
  },
  {
    name: 'adds an accepted record that supersedes 0001',
    rewrite: (r) =>
      r.write(
        'docs/decisions/0003-mysql-for-orders.md',
        MYSQL_RECORD('supersedes: 0001-postgres-for-every-service.md\n'),
      ),
    edit: /^adds 0003 "MySQL for the orders service" \(accepted\), superseding 0001$/,
  },
  {
    name: 'deletes 0001',
    rewrite: (r) => {
      r.git('rm', '-q', POSTGRES_RECORD);
      return Promise.resolve();
    },
    edit: /^deletes 0001 \(accepted at the base\)$/,
  },
  {
    name: 'adds 500 one-line records that sort before 0001',
    rewrite: async (r) => {
      for (let i = 0; i < 500; i++)
        await r.write(`docs/decisions/0000-filler-${String(i).padStart(3, '0')}.md`, `# Filler ${i}\n`);
    },
    edit: /^adds 0000-filler-000\b/,
  },
  {
    name: 'edits the scope of 0001',
    rewrite: async (r) => {
      const text = await readFile(path.join(r.root, POSTGRES_RECORD), 'utf8');
      await r.write(POSTGRES_RECORD, text.replace('"services/**"', '"docs/**"'));
    },
    edit: /^changes the scope of 0001 \(services\/\*\* at the base, now docs\/\*\*\)$/,
  },
];

describe('a review holds the change to the rules of its base, never its own', () => {
  const s = reviewSuite();

  for (const { name, rewrite, edit } of REWRITES)
    it(`a change that adds a MySQL pool and ${name} still fails on 0001, and the report names the edit`, async () => {
      const r = await s.repo();
      await r.write('services/orders/db.ts', MYSQL_POOL);
      await rewrite(r);
      r.git('add', '-A');
      r.git('commit', '-qm', `orders: a MySQL pool, and the change ${name}`);
      const base = r.git('rev-parse', 'main').trim();
      const res = await s.review(r, ['--json']);
      assert.equal(res.code, 1, `${res.stderr}\n${res.stdout.slice(0, 2000)}`);
      const report = JSON.parse(res.stdout) as Report;
      const proven = report.findings.filter((f) => f.verdict === 'PROVEN');
      assert.deepEqual(
        proven.map((f) => f.decision),
        ['0001'],
        JSON.stringify(report.findings),
      );
      // The rules as the base has them: 0001 accepted.
      assert.deepEqual(report.scope.decisions.find((d) => d.id === '0001')?.status, 'accepted');
      assert.equal(report.scope.rules.commit, base);
      assert.equal(report.scope.rules.label, `main (merge base ${base.slice(0, 7)})`);
      const edits = (report.scope.rules.edits ?? []).map((e) => e.what);
      assert.ok(
        edits.some((e) => edit.test(e)),
        edits.join('\n'),
      );
      if (name.startsWith('adds 500')) assert.equal(report.scope.rules.moreEdits, 470);
      if (name !== REWRITES[0]?.name) return;
      // The terminal says it too, and that a change to the records is a decision of its own.
      const term = await s.review(r);
      assert.equal(term.code, 1, term.stderr);
      assert.match(term.stdout, /^Rules: the rules in docs\/decisions at main \(merge base [0-9a-f]{7}\)\.$/m);
      assert.match(term.stdout, /^This change edits the decision records; its edits are not applied in this review/m);
      assert.match(term.stdout, /decision of its own: it needs its own meeting and its own review.*roundtable run /m);
    });

  it('a review of the work tree reads the rules from HEAD: an uncommitted "superseded" does not lift 0001', async () => {
    const r = await s.repo();
    await r.write('services/orders/db.ts', MYSQL_POOL);
    const text = await readFile(path.join(r.root, POSTGRES_RECORD), 'utf8');
    await r.write(POSTGRES_RECORD, text.replace('status: accepted', 'status: superseded'));
    r.git('add', '-A'); // staged, not committed: the work tree against HEAD
    const res = await s.review(r, ['--worktree', '--json']);
    assert.equal(res.code, 1, res.stderr);
    const report = JSON.parse(res.stdout) as Report;
    const head = r.git('rev-parse', 'HEAD').trim();
    assert.equal(report.scope.rules.label, `HEAD (${head.slice(0, 7)})`);
    assert.deepEqual(
      report.findings.filter((f) => f.verdict === 'PROVEN').map((f) => f.decision),
      ['0001'],
    );
    assert.deepEqual(
      (report.scope.rules.edits ?? []).map((e) => e.what),
      ['marks 0001 superseded (accepted at the base)'],
    );
  });

  it("reads the change's record edits as it read the base's records: an archived one stays deprecated, one with no status stays as the setting made it", async () => {
    const r = await s.repo();
    // On the base: a record filed in an archive folder, and one that writes no status.
    r.git('checkout', '-q', 'main');
    await r.write('docs/decisions/archive/0009-redis-sessions.md', MYSQL_RECORD('').replace('MySQL', 'Redis'));
    await r.write('docs/decisions/0007-no-status.md', '# Log as JSON\n\n## Decision\n\nServices log JSON lines.\n');
    r.git('add', '-A');
    r.git('commit', '-qm', 'an archived record and one with no status');
    r.git('checkout', '-q', 'feature');
    r.git('reset', '-q', '--hard', 'main');
    // The change only rewords both.
    await r.write('services/orders/db.ts', MYSQL_POOL);
    await r.write(
      'docs/decisions/archive/0009-redis-sessions.md',
      MYSQL_RECORD('').replace('MySQL', 'Redis') + 'Reworded.\n',
    );
    await r.write(
      'docs/decisions/0007-no-status.md',
      '# Log as JSON\n\n## Decision\n\nServices log JSON lines, always.\n',
    );
    r.git('add', '-A');
    r.git('commit', '-qm', 'orders: a MySQL pool; two records reworded');
    const res = await s.review(r, ['--json', '--unstatused', 'ignore']);
    assert.equal(res.code, 1, res.stderr);
    const report = JSON.parse(res.stdout) as Report;
    assert.deepEqual((report.scope.rules.edits ?? []).map((e) => `${e.path}: ${e.what}`).sort(), [
      'docs/decisions/0007-no-status.md: edits 0007',
      'docs/decisions/archive/0009-redis-sessions.md: edits 0009',
    ]);
  });

  it('a change that edits .gitignore to hide 0001 and deletes it from the work tree still meets 0001', async () => {
    const r = await s.repo();
    await r.write('services/orders/db.ts', MYSQL_POOL);
    await r.write('.gitignore', 'build/\ndocs/decisions/0001-*.md\n');
    await rm(path.join(r.root, POSTGRES_RECORD));
    r.git('add', '-A');
    r.git('commit', '-qm', 'orders: a MySQL pool; 0001 ignored');
    const res = await s.review(r, ['--json']);
    assert.equal(res.code, 1, res.stderr);
    const report = JSON.parse(res.stdout) as Report;
    assert.deepEqual(
      report.findings.filter((f) => f.verdict === 'PROVEN').map((f) => f.decision),
      ['0001'],
    );
  });
});
