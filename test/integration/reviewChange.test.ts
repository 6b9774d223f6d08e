/**
 * Which change `roundtable review` reads and how it holds up: the merge base with the default
 * branch by default, only the work tree with --worktree, no secret or ignored file sent to the
 * server; reviewers that misbehave as models do are refuted before the vote, and one that times
 * out makes the review exit 3 in one line, never 1. Real CLI, real repositories, loopback server.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MYSQL_POOL, reviewResponder, reviewSuite, unrulyResponder } from '../fakes/reviewRepo';

describe('roundtable review: the change it reads, and reviewers that misbehave', () => {
  const s = reviewSuite();
  it('reviews the merge base with main by default: a later commit on main is not part of the change', async () => {
    const r = await s.repo();
    await r.write('services/orders/feature.ts', 'export const FEATURE_LINE = 1;\n');
    r.git('add', '.');
    r.git('commit', '-qm', 'feature');
    r.git('checkout', '-q', 'main');
    await r.write('services/orders/mainonly.ts', 'export const MAIN_ONLY_LINE = 1;\n');
    r.git('add', '.');
    r.git('commit', '-qm', 'main moves on');
    r.git('checkout', '-q', 'feature');
    const from = s.fake().requests.length;
    const res = await s.review(r);
    assert.equal(res.code, 0, res.stderr);
    const sent = s.sentSince(from);
    assert.match(sent, /FEATURE_LINE/);
    assert.doesNotMatch(sent, /MAIN_ONLY_LINE/);
  });

  it('--worktree reviews only the uncommitted change, and no secret or ignored file reaches the server', async () => {
    const r = await s.repo();
    await r.write('services/orders/committed.ts', 'export const COMMITTED_LINE = 1;\n');
    r.git('add', '.');
    r.git('commit', '-qm', 'committed');
    const token = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`;
    await r.write('services/orders/handler.ts', `export const token = '${token}';\nexport const WORKTREE_LINE = 1;\n`);
    await r.write('.env', 'DATABASE_PASSWORD=hunter2-very-secret\n');
    r.git('add', '-f', '.env');
    // Ignored by .gitignore, never tracked: not part of the change.
    await r.write('build/out.js', 'IGNORED_BUILD_LINE\n');
    const from = s.fake().requests.length;
    const res = await s.review(r, ['--worktree', '--json']);
    assert.equal(res.code, 0, res.stderr);
    const sent = s.sentSince(from);
    assert.match(sent, /WORKTREE_LINE/);
    assert.doesNotMatch(sent, /COMMITTED_LINE/);
    assert.doesNotMatch(sent, /hunter2/);
    assert.doesNotMatch(sent, new RegExp(token));
    assert.doesNotMatch(sent, /IGNORED_BUILD_LINE/);
    const report = JSON.parse(res.stdout) as { scope: { unread?: { file: string }[] } };
    assert.deepEqual((report.scope.unread ?? []).map((u) => u.file).sort(), ['.env']);
  });

  it('reviewers as models misbehave: wrong lines, a superseded or unknown decision are refuted before the vote; the same finding in other words is one', async () => {
    const r = await s.repo();
    await r.write('services/orders/db.ts', MYSQL_POOL);
    r.git('add', '.');
    r.git('commit', '-qm', 'orders: a MySQL pool');
    s.fake().setResponder(unrulyResponder);
    try {
      const res = await s.review(r, ['--json']);
      assert.equal(res.code, 1, res.stderr);
      const report = JSON.parse(res.stdout) as {
        findings: { decision?: string; verdict: string; refuted?: string; proposedBy?: string[] }[];
      };
      const proven = report.findings.filter((f) => f.verdict === 'PROVEN');
      assert.equal(proven.length, 1, res.stdout);
      assert.equal(proven[0]?.decision, '0001');
      assert.equal(proven[0]?.proposedBy?.length, 2);
      const refuted = report.findings.filter((f) => f.refuted);
      assert.equal(refuted.length, 3, res.stdout);
      assert.ok(refuted.every((f) => f.verdict === 'REFUTED'));
    } finally {
      s.fake().setResponder(reviewResponder);
    }
  });

  it('a reviewer that times out makes the review exit 3 with one line, never 1', async () => {
    const r = await s.repo();
    await r.write('services/orders/db.ts', MYSQL_POOL);
    r.git('add', '.');
    r.git('commit', '-qm', 'orders: a MySQL pool');
    s.fake().setResponder((body) => (body.model === 'rev-c' ? { delayMs: 20_000 } : reviewResponder(body)));
    try {
      const res = await s.review(r, ['--turn-timeout', '1']);
      assert.equal(res.code, 3, res.stderr);
      const why = res.stderr.split('\n').filter((l) => l.includes('could not review'));
      assert.equal(why.length, 1, res.stderr);
      assert.match(why[0] ?? '', /^roundtable: could not review: .*linus/);
    } finally {
      s.fake().setResponder(reviewResponder);
    }
  });
});
