/**
 * `roundtable review` as a team runs it, the real CLI on real temporary repositories against a
 * loopback OpenAI-compatible server: a change that breaks an accepted decision fails (exit 1) with
 * that decision in the finding; a change that does not passes (exit 0); bad usage is exit 2 and no
 * model or a server down exit 3, one line each; through a running daemon the same.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { cli } from '../fakes/cli';
import { closedPort } from '../fakes/openaiServer';
import {
  MYSQL_POOL,
  POSTGRES_RECORD,
  reportFiles,
  reviewDaemonSuite,
  reviewResponder,
  reviewSuite,
} from '../fakes/reviewRepo';

describe('roundtable review against a loopback model server', () => {
  const s = reviewSuite();
  it('fails a change that adds a MySQL pool where the accepted record says Postgres, naming that decision', async () => {
    const r = await s.repo();
    await r.write('services/orders/db.ts', MYSQL_POOL);
    r.git('add', '.');
    r.git('commit', '-qm', 'orders: a MySQL pool');
    const out = reportFiles(r);
    const res = await s.review(r, out.args);
    assert.equal(res.code, 1, res.stderr);
    // The room (on stderr with --json) lists the reviewers, not seats that make no call, and no
    // agreement on one option: a review decides none.
    assert.match(
      res.stderr,
      /^ {2}\w+ \(reviewer, openai:rev-a\), \w+ \(reviewer, openai:rev-b\), \w+ \(reviewer, openai:rev-c\)$/m,
    );
    assert.doesNotMatch(res.stderr, /\((assistant|judge), /);
    assert.doesNotMatch(res.stderr, /agreement \d+% of/);
    const report = JSON.parse(res.stdout) as {
      version: number;
      exit: number;
      findings: { decision?: string; verdict: string; file: string; lines: { start: number } }[];
      scope: { decisions: { id: string; status: string }[] };
    };
    assert.equal(report.version, 1);
    const proven = report.findings.filter((f) => f.verdict === 'PROVEN');
    assert.equal(proven.length, 1, res.stdout);
    assert.equal(proven[0]?.decision, '0001');
    assert.equal(proven[0]?.file, 'services/orders/db.ts');
    // The superseded record is listed with its status (a citation of it would be refuted), never as a rule.
    assert.deepEqual(
      report.scope.decisions.map((d) => [d.id, d.status]),
      [
        ['0001', 'accepted'],
        ['0002', 'superseded'],
      ],
    );
    const md = await readFile(out.markdown, 'utf8');
    assert.equal(md.split('\n')[0], '<!-- roundtable-review -->');
    assert.match(md, /services\/orders\/db\.ts:2/);
    const sarif = JSON.parse(await readFile(out.sarif, 'utf8')) as {
      runs: {
        results: { ruleId: string; level: string }[];
        tool: { driver: { rules: { id: string; helpUri: string }[] } };
      }[];
    };
    assert.deepEqual(
      sarif.runs[0]?.results.map((x) => [x.ruleId, x.level]),
      [['decision/0001', 'error']],
    );
    assert.match(
      sarif.runs[0]?.tool.driver.rules[0]?.helpUri ?? '',
      new RegExp(`${POSTGRES_RECORD.replace(/\./g, '\\.')}$`),
    );
  });

  it('holds a change to records that write no status, as MADR allows (its own repository, JabRef): the breach fails by default; with --unstatused ignore there is no rule, and one line says why and what to do', async () => {
    const r = await s.repo();
    // The team's rules, on main: the record without its status, a README and a template beside it.
    r.git('checkout', '-q', 'main');
    const text = await readFile(path.join(r.root, POSTGRES_RECORD), 'utf8');
    await r.write(POSTGRES_RECORD, text.replace('status: accepted\n', ''));
    await r.write('docs/decisions/README.md', '# Decisions\n\nOne file per decision.\n');
    await r.write('docs/decisions/adr-template.md', '---\nstatus: "{proposed | accepted}"\n---\n\n# {short title}\n');
    r.git('add', '.');
    r.git('commit', '-qm', 'records as MADR writes them');
    r.git('checkout', '-qB', 'feature', 'main');
    await r.write('services/orders/db.ts', MYSQL_POOL);
    r.git('add', '.');
    r.git('commit', '-qm', 'orders: a MySQL pool');
    const [held, ignored] = await Promise.all([
      s.review(r, ['--json']),
      s.review(r, ['--json', '--unstatused', 'ignore']),
    ]);
    assert.equal(held.code, 1, held.stderr);
    const report = JSON.parse(held.stdout) as {
      findings: { decision?: string; verdict: string }[];
      scope: { decisions: { id: string; status: string }[]; skipped?: { path: string; reason: string }[] };
    };
    assert.deepEqual(
      report.findings.filter((f) => f.verdict === 'PROVEN').map((f) => f.decision),
      ['0001'],
    );
    assert.deepEqual(report.scope.skipped, [
      { path: 'docs/decisions/README.md', reason: 'a README, not a record' },
      { path: 'docs/decisions/adr-template.md', reason: 'a template (by its name), not a record' },
    ]);
    assert.equal(ignored.code, 0, ignored.stderr);
    assert.match(
      ignored.stderr,
      /^roundtable: docs\/decisions holds 2 decision record\(s\) but none is a rule \(1 with no status \(decisions\.unstatused is ignore\), 1 superseded\): review with --unstatused accepted \(VS Code: roundtable\.decisions\.unstatused\), or mark the records in force "Status: accepted"$/m,
    );
    const quiet = JSON.parse(ignored.stdout) as { scope: { rulebookNote?: string } };
    assert.match(quiet.scope.rulebookNote ?? '', /but none is a rule/);
  });

  it('passes a change that breaks no decision (exit 0), and says so', async () => {
    const r = await s.repo();
    await r.write(
      'services/orders/handler.ts',
      'export function handle(id: string) {\n  return { id, ok: true };\n}\n',
    );
    r.git('commit', '-qam', 'orders: say ok');
    const res = await s.review(r);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /review passed: 0 finding/);
  });

  it('bad usage exits 2 with one line', async () => {
    const r = await s.repo();
    const bad = [
      ['--fail-on', 'sometimes'],
      ['--base', '-rf'],
      ['--base', 'main', '--worktree'],
      ['--nope'],
      ['--decisions', path.dirname(r.root)],
      // A record, not its folder: reviewing with no rules at all would pass anything.
      ['--decisions', POSTGRES_RECORD],
      ['--decisions', 'docs/no-such-folder'],
      ['--unstatused', 'sometimes'],
    ];
    // In parallel: each is its own process, and none reaches the server.
    const [help, ...results] = await Promise.all([cli(['--help']), ...bad.map((args) => s.review(r, args))]);
    assert.match(help?.stdout ?? '', /review +a panel reviews a change/);
    assert.match(help?.stdout ?? '', /--fail-on BAR/);
    results.forEach((res, i) => {
      assert.equal(res.code, 2, `${bad[i]?.join(' ')}: ${res.stderr}`);
      assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
    });
    assert.equal(
      results[5]?.stderr,
      `roundtable: --decisions ${POSTGRES_RECORD} is not a folder: give the folder that holds the decision records\n`,
    );
    assert.equal(results[7]?.stderr, 'roundtable: --unstatused must be accepted or ignore, got "sometimes"\n');
    const res = await s.review(r, ['--base', 'no-such-branch']);
    assert.equal(res.code, 2, res.stderr);
    assert.match(res.stderr, /^roundtable: review: the base "no-such-branch" is not a commit in this repository\n$/);
  });

  it('no model, or the server down, exits 3 with one line: the review could not be done, it did not fail', async () => {
    const r = await s.repo();
    await r.write('services/orders/db.ts', MYSQL_POOL);
    r.git('add', '.');
    r.git('commit', '-qm', 'orders: a MySQL pool');
    const none = await cli(['review', '--no-daemon'], {
      cwd: r.root,
      env: { ROUNDTABLE_HOME: path.join(r.root, '..', 'home') },
    });
    assert.equal(none.code, 3, none.stderr);
    assert.match(none.stderr, /^roundtable: could not review: no model to review with[^\n]*\n$/);
    const down = await cli(['review', '--no-daemon', '--base-url', `http://127.0.0.1:${await closedPort()}/v1`], {
      cwd: r.root,
      env: { ROUNDTABLE_HOME: path.join(r.root, '..', 'home') },
    });
    assert.equal(down.code, 3, down.stderr);
    assert.match(down.stderr, /^roundtable: could not review: [^\n]+\n$/);
  });
});

describe('roundtable review through a running daemon', () => {
  const d = reviewDaemonSuite(reviewResponder);
  const review = (args: string[]) => d.review(args);

  it('the daemon reads the change and runs the review: the same exit 1 with the decision, an empty change 0, a bad base 2', async () => {
    const empty = await review(['--worktree']);
    assert.equal(empty.code, 0, empty.stderr);
    assert.match(empty.stderr, /^roundtable: review: the work tree against HEAD is empty: nothing to review\n$/);
    const bad = await review(['--base', 'nope']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /^roundtable: review: the base "nope" is not a commit in this repository\n$/);
    const r = d.repo();
    await r.write('services/orders/db.ts', MYSQL_POOL);
    r.git('add', '.');
    r.git('commit', '-qm', 'orders: a MySQL pool');
    const res = await review([]);
    assert.equal(res.code, 1, res.stderr);
    assert.match(res.stdout, /running in the daemon/);
    const control = [...res.stdout].find((c) => {
      const n = c.charCodeAt(0);
      return (n < 32 && c !== '\n' && c !== '\t') || n === 127;
    });
    assert.equal(control, undefined, 'no control character reaches the terminal');
    assert.match(res.stdout, /^PROVEN blocking services\/orders\/db\.ts:2 — breaks decision 0001: /m);
  });
});
