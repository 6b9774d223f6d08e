/**
 * Exceptions said out loud (issue 40): the real CLI on real temporary repositories against the
 * loopback reviewers. A change that breaks accepted decision 0001 and carries `Decision-Exception:
 * 0001 <reason>` in a commit's trailers passes (exit 0) with the finding WAIVED beside the panel's
 * PROVEN, in the terminal, the JSON, the Markdown comment, SARIF (a suppression, valid against the
 * official schema) and the minutes. An exception the change does not need is reported unused, one
 * without a reason invalid, and neither lifts the failure; `--exception` says the same from outside
 * the commits (the GitHub Action passes the pull request's lines so).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { MYSQL_POOL, reportFiles, reviewSuite, type ReviewRepo } from '../fakes/reviewRepo';
import { sarifValidator } from '../fakes/sarifSchema';

const REASON = 'The orders service moves to MySQL this quarter (INC-42); decision to follow.';

interface Report {
  exit: number;
  minutesPath: string;
  findings: {
    decision?: string;
    verdict: string;
    waived?: { reason: string; from: string; commit?: string };
  }[];
  exceptions: { decision: string; reason: string; from: string; commit?: string; use: string; invalid?: string }[];
}

/** The MySQL pool committed with `message` (its last paragraph is git's trailer block). */
async function breach(r: ReviewRepo, message: string): Promise<string> {
  await r.write('services/orders/db.ts', MYSQL_POOL);
  r.git('add', '-A');
  r.git('commit', '-qm', message);
  return r.git('rev-parse', 'HEAD').trim();
}

describe('a change may carry a reasoned exception to a decision', () => {
  const s = reviewSuite();

  it('a trailer Decision-Exception: 0001 <reason> waives the PROVEN finding: exit 0, WAIVED in every output', async () => {
    const r = await s.repo();
    const commit = await breach(r, `orders: a MySQL pool\n\nDecision-Exception: 0001 ${REASON}\n`);
    const out = reportFiles(r);
    const res = await s.review(r, out.args);
    assert.equal(res.code, 0, res.stderr);
    const report = JSON.parse(res.stdout) as Report;
    assert.equal(report.exit, 0);
    const [f] = report.findings;
    // The panel's verdict is kept; the waiver stands beside it.
    assert.equal(f?.verdict, 'PROVEN');
    assert.deepEqual(f?.waived, { reason: REASON, from: `commit ${commit.slice(0, 7)}`, commit });
    assert.deepEqual(
      report.exceptions.map((e) => [e.decision, e.use, e.commit]),
      [['0001', 'waived', commit]],
    );

    const md = await readFile(out.markdown, 'utf8');
    assert.match(md, /^\*\*Passed: /m);
    assert.match(md, /^\| WAIVED \| 1 \|$/m);
    assert.match(md, /^### WAIVED \(PROVEN\) · blocking · services\/orders\/db\\\.ts:2$/m);
    assert.match(
      md,
      new RegExp(`^\\*\\*Waived\\*\\* by the exception in commit ${commit.slice(0, 7)}: The orders`, 'm'),
    );
    assert.match(md, /^### Exceptions$/m);

    const sarif = JSON.parse(await readFile(out.sarif, 'utf8')) as {
      runs: {
        results: { ruleId: string; level: string; suppressions?: { kind: string; justification: string }[] }[];
      }[];
    };
    const valid = sarifValidator();
    assert.ok(valid(sarif), JSON.stringify(valid.errors));
    const [result] = sarif.runs[0]?.results ?? [];
    assert.equal(result?.ruleId, 'decision/0001');
    assert.equal(result?.level, 'note');
    assert.deepEqual(
      result?.suppressions?.map((x) => [x.kind, x.justification]),
      [['external', `waived by the exception in commit ${commit.slice(0, 7)}: ${REASON}`]],
    );

    const minutes = await readFile(report.minutesPath, 'utf8');
    assert.match(minutes, /1 PROVEN \(O1; 1 waived by an exception\)/);
    assert.ok(minutes.includes(`Exception to 0001 in commit ${commit.slice(0, 7)} waived O1: The orders`), minutes);

    const term = await s.review(r);
    assert.equal(term.code, 0, term.stderr);
    assert.match(
      term.stdout,
      new RegExp(
        `^WAIVED blocking services/orders/db\\.ts:2 — breaks decision 0001: .*\\(3/3 accept; PROVEN, waived by the exception in commit ${commit.slice(0, 7)}: The orders`,
        'm',
      ),
    );
    assert.match(term.stdout, /^review passed: 0 finding\(s\) upheld or contested, 1 waived, 0 refuted$/m);
  });

  it('an exception the change does not need is reported unused, one without a reason invalid: the breach still fails', async () => {
    const r = await s.repo();
    await breach(
      r,
      `orders: a MySQL pool\n\nDecision-Exception: 0002 reports stay on SQLite for now\nDecision-Exception: 0001\nDecision-Exception: 0001 ${'because '.repeat(80)}\n`,
    );
    const res = await s.review(r, ['--json']);
    assert.equal(res.code, 1, res.stderr);
    const report = JSON.parse(res.stdout) as Report;
    assert.equal(report.findings.find((f) => f.verdict === 'PROVEN')?.waived, undefined);
    assert.deepEqual(
      report.exceptions.map((e) => [e.decision, e.use]),
      [
        ['0002', 'unused'],
        ['0001', 'invalid'],
        ['', 'invalid'],
      ],
    );
    assert.match(report.exceptions[1]?.invalid ?? '', /gives no reason/);
    assert.match(report.exceptions[2]?.invalid ?? '', /^is longer than 500 characters/);
    const term = await s.review(r);
    assert.equal(term.code, 1, term.stderr);
    assert.match(term.stdout, /^Exception to 0002 in commit [0-9a-f]{7} unused: the panel upheld no finding on 0002/m);
    assert.match(term.stdout, /^Exception to 0001 in commit [0-9a-f]{7} not applied: it gives no reason/m);
    assert.match(term.stdout, /^PROVEN blocking services\/orders\/db\.ts:2/m);
  });

  it('--exception says it from outside the commits, labelled with --exceptions-from; a malformed flag is bad usage', async () => {
    const r = await s.repo();
    await breach(r, 'orders: a MySQL pool');
    const res = await s.review(r, ['--json', '--exception', `0001 ${REASON}`, '--exceptions-from', 'pull request #7']);
    assert.equal(res.code, 0, res.stderr);
    const report = JSON.parse(res.stdout) as Report;
    assert.deepEqual(report.findings[0]?.waived, { reason: REASON, from: 'pull request #7' });
    const bad = [
      ['--exception', '0001 two\nlines'],
      ['--exception', `0001 ${'x'.repeat(600)}`],
      Array.from({ length: 21 }, (_, i) => ['--exception', `0001 reason ${i}`]).flat(),
      ['--exceptions-from', ''],
    ];
    const results = await Promise.all(bad.map((args) => s.review(r, args)));
    results.forEach((b, i) => {
      assert.equal(b.code, 2, `${bad[i]?.slice(0, 2).join(' ')}: ${b.stderr}`);
      assert.equal(b.stderr.trim().split('\n').length, 1, b.stderr);
    });
  });
});
