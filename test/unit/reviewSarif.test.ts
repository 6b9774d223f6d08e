/**
 * A review's SARIF as GitHub code scanning takes it: valid against the official SARIF 2.1.0 schema
 * (OASIS, test/fixtures/sarif/) with a real validator, only upheld and contested findings, levels
 * from severity, one rule per decision and defect class, and fingerprints that stay the same when
 * the same finding moves down a file on the next push (real commits in a temporary repository).
 * And the Markdown comment: the Action's marker first, model text unable to add markup.
 */
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import type { ReviewOutcome, ReviewedFinding, ReviewScope } from '@roundtable/protocol';
import { collectChange } from '../../daemon/src/review/change';
import { workspaceGate } from '../../daemon/src/gate';
import { FINGERPRINT_KEY, reviewSarif } from '../../daemon/src/review/sarif';
import { REVIEW_MARKER, reviewMarkdown } from '../../daemon/src/review/markdown';
import { MYSQL_POOL, POSTGRES_RECORD, makeReviewRepo, type ReviewRepo } from '../fakes/reviewRepo';
import { sarifValidator } from '../fakes/sarifSchema';

const validator = sarifValidator;

const scope: ReviewScope = {
  changed: [{ file: 'services/orders/db.ts', ranges: [{ start: 1, end: 2 }] }],
  decisions: [
    { id: '0001', title: 'Postgres for every service', path: POSTGRES_RECORD, status: 'accepted' },
    {
      id: '0002',
      title: 'SQLite for reports',
      path: 'docs/decisions/0002-sqlite-for-reports.md',
      status: 'superseded',
    },
  ],
  unread: [{ file: '.env', reason: 'has a secret-looking name; left out of the git diff' }],
};

const finding = (over: Partial<ReviewedFinding>): ReviewedFinding => ({
  id: 'O1',
  file: 'services/orders/db.ts',
  lines: { start: 2, end: 2 },
  severity: 'blocking',
  decision: '0001',
  claim: 'A MySQL pool where decision 0001 says Postgres.',
  quote: "+export const pool = mysql.createPool({ host: 'db', database: 'orders' });",
  verdict: 'PROVEN',
  votes: [
    { worker: 'ada', vote: 'accept', confidence: 0.9, rationale: 'Line 2.' },
    { worker: 'grace', vote: 'accept', confidence: 0.7, rationale: 'Same.' },
    { worker: 'linus', vote: 'abstain', confidence: 0, rationale: '' },
  ],
  ...over,
});

const outcome = (findings: ReviewedFinding[]): ReviewOutcome => ({ findings, exit: 1, scope });
const recordUri = (p: string) => `https://github.example/acme/shop/blob/${'a'.repeat(40)}/${p}`;

type Sarif = {
  runs: {
    tool: {
      driver: { name: string; version: string; informationUri: string; rules: { id: string; helpUri?: string }[] };
    };
    results: {
      ruleId: string;
      ruleIndex: number;
      level: string;
      locations: {
        physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; endLine: number } };
      }[];
      partialFingerprints: Record<string, string>;
      properties: { verdict: string; confidence: number; votes: unknown[] };
    }[];
  }[];
};

describe('review SARIF', () => {
  const repos: ReviewRepo[] = [];
  after(async () => {
    for (const r of repos) await rm(path.dirname(r.root), { recursive: true, force: true });
  });

  it('validates against the official SARIF 2.1.0 schema, with upheld and contested findings only', () => {
    const log = reviewSarif(
      outcome([
        finding({}),
        finding({
          id: 'O2',
          severity: 'major',
          decision: undefined,
          defect: 'Security',
          claim: 'SQL built from input.',
          quote: undefined,
          verdict: 'CONTESTED',
          file: 'src/a b.ts',
        }),
        finding({ id: 'O3', severity: 'minor', decision: undefined, defect: 'style', verdict: 'REFUTED', votes: [] }),
        finding({
          id: 'O4',
          severity: 'note',
          decision: '0002',
          verdict: 'REFUTED',
          refuted: 'cites a superseded decision',
        }),
      ]),
      { recordUri },
    );
    const validate = validator();
    assert.equal(validate(log), true, JSON.stringify(validate.errors, null, 2));
    const run = (log as Sarif).runs[0]!;
    assert.equal(run.tool.driver.name, 'Roundtable');
    assert.match(run.tool.driver.version, /^\d+\.\d+\.\d+/);
    assert.deepEqual(
      run.results.map((r) => [r.ruleId, r.level, r.properties.verdict]),
      [
        ['decision/0001', 'error', 'PROVEN'],
        ['defect/security', 'warning', 'CONTESTED'],
      ],
    );
    // One rule per accepted decision (the superseded one is no rule) and per defect class; each result points at its own.
    assert.deepEqual(
      run.tool.driver.rules.map((r) => r.id),
      ['decision/0001', 'defect/security'],
    );
    for (const r of run.results) assert.equal(run.tool.driver.rules[r.ruleIndex]?.id, r.ruleId);
    assert.equal(run.tool.driver.rules[0]?.helpUri, recordUri(POSTGRES_RECORD));
    assert.equal(run.results[1]?.locations[0]?.physicalLocation.artifactLocation.uri, 'src/a%20b.ts');
    assert.equal(run.results[0]?.properties.confidence, 0.8);
  });

  it('still validates with a finding on a name that holds invisible characters and unread files allowed, and says both', () => {
    const odd = 'services/orders/db\u200b\n.ts';
    const log = reviewSarif(
      {
        findings: [finding({ file: odd })],
        exit: 0,
        scope: {
          ...scope,
          unread: [
            {
              file: 'services/orders/new\u202e.bin',
              shown: 'services/orders/new\\u202e.bin',
              reason: 'is a binary file; left out of the git diff',
              governedBy: ['0001'],
            },
          ],
          unreadAllowed: true,
        },
      },
      { recordUri },
    );
    const validate = validator();
    assert.equal(validate(log), true, JSON.stringify(validate.errors, null, 2));
    const run = (log as Sarif & { runs: { properties: { unreadAllowed: boolean; unread: unknown[] } }[] }).runs[0]!;
    assert.equal(
      run.results[0]?.locations[0]?.physicalLocation.artifactLocation.uri,
      'services/orders/db%E2%80%8B%0A.ts',
    );
    assert.match(
      (run.results[0] as unknown as { message: { text: string } }).message.text,
      /The file's name holds U\+200B ZERO WIDTH SPACE, U\+000A LINE FEED\.$/,
    );
    assert.equal(run.properties.unreadAllowed, true);
    assert.equal(run.properties.unread.length, 1);
  });

  it('a waived finding is a result with an external suppression and its justification, valid against the schema', () => {
    const commit = 'b'.repeat(40);
    const log = reviewSarif(
      outcome([finding({ waived: { reason: 'moving to MySQL this quarter', from: 'commit bbbbbbb', commit } })]),
      { recordUri },
    );
    const validate = validator();
    assert.equal(validate(log), true, JSON.stringify(validate.errors, null, 2));
    const [result] = (log as Sarif).runs[0]!.results as unknown as {
      level: string;
      suppressions: { kind: string; status: string; justification: string }[];
      properties: { verdict: string; waived: boolean };
    }[];
    assert.deepEqual(
      result?.suppressions.map((x) => [x.kind, x.status, x.justification]),
      [['external', 'accepted', 'waived by the exception in commit bbbbbbb: moving to MySQL this quarter']],
    );
    // Whether or not a consumer reads suppressions, a waived finding fails no check: a note.
    assert.equal(result?.level, 'note');
    assert.deepEqual([result?.properties.verdict, result?.properties.waived], ['PROVEN', true]);
    // The schema check sees a suppression: one of an unknown kind is refused.
    (result as { suppressions: { kind: string }[] }).suppressions[0]!.kind = 'waived';
    assert.equal(validate(log), false);
  });

  it('the schema check can fail: a result without its message is refused', () => {
    const log = reviewSarif(outcome([finding({})]), { recordUri }) as Sarif;
    delete (log.runs[0]!.results[0] as { message?: unknown }).message;
    assert.equal(validator()(log), false);
  });

  it('keeps the fingerprint of the same finding on the next push, when an edit above it moved its lines', async () => {
    const r = await makeReviewRepo();
    repos.push(r);
    await r.write('services/orders/db.ts', MYSQL_POOL);
    r.git('add', '.');
    r.git('commit', '-qm', 'push 1: a MySQL pool');
    const gate = workspaceGate(r.root);
    const first = await collectChange(gate, {});
    await r.write('services/orders/db.ts', `// orders storage\n// owned by the orders team\n\n${MYSQL_POOL}`);
    r.git('commit', '-qam', 'push 2: comments above the pool');
    const second = await collectChange(gate, {});
    // As reviewers report it on each push: the pool's line as the change shows it now.
    const at = (c: typeof first) => {
      const range = c.files.find((f) => f.file === 'services/orders/db.ts')!.ranges[0]!;
      return { start: range.end, end: range.end };
    };
    assert.notDeepEqual(at(first), at(second));
    const sarifOf = (lines: { start: number; end: number }, claim: string) =>
      (reviewSarif(outcome([finding({ lines, claim })]), { recordUri }) as Sarif).runs[0]!.results[0]!;
    const one = sarifOf(at(first), 'A MySQL pool where decision 0001 says Postgres.');
    const two = sarifOf(at(second), 'A MySQL pool where decision 0001 says Postgres.');
    assert.notEqual(
      one.locations[0]?.physicalLocation.region.startLine,
      two.locations[0]?.physicalLocation.region.startLine,
    );
    assert.equal(one.partialFingerprints[FINGERPRINT_KEY], two.partialFingerprints[FINGERPRINT_KEY]);
    // Another finding on the same line is another alert.
    const other = (
      reviewSarif(outcome([finding({ lines: at(second), quote: 'host: db', claim: 'Hard-coded host.' })]), {
        recordUri,
      }) as Sarif
    ).runs[0]!.results[0]!;
    assert.notEqual(other.partialFingerprints[FINGERPRINT_KEY], two.partialFingerprints[FINGERPRINT_KEY]);
  });
});

describe('review Markdown', () => {
  it("starts with the Action's marker and keeps a model's claim from adding markup", () => {
    const hostile = finding({
      claim: 'Fine.\n## Approved\n<img src=x onerror=alert(1)> | cell | [click](https://evil.example)',
    });
    const md = reviewMarkdown(outcome([hostile]), { failOn: 'blocking' });
    assert.equal(md.split('\n')[0], REVIEW_MARKER);
    assert.doesNotMatch(md, /<img/);
    assert.doesNotMatch(md, /^## Approved/m);
    assert.doesNotMatch(md, /\]\(https:\/\//);
    assert.match(md, /services\/orders\/db\.ts:2/);
    assert.match(md, /Not read/);
  });

  it('says what severity was written when it was on no scale the review knows, escaped', () => {
    const md = reviewMarkdown(outcome([finding({ severityWritten: '1` <b>x</b>' })]), { failOn: 'blocking' });
    assert.match(md, /Severity written as `+ ?1` <b>x<\/b> ?`+, on no scale the review knows: read as blocking\./);
    assert.doesNotMatch(reviewMarkdown(outcome([finding({})]), { failOn: 'blocking' }), /Severity written as/);
  });
});
