/**
 * A review's findings as the Problems panel shows them (extension/src/reviewFindings.ts): only
 * PROVEN and CONTESTED ones, on their file and lines, severity mapped (CONTESTED a step lower and
 * saying so), the claim and the vote in the message, the decision id or defect class as the code,
 * the cited record for the quick fix; model text that would hide, reorder or flood is made plain.
 * And "this branch against its base" asked of git on a real repository (extension/src/gitBase.ts).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { MAX_CLAIM_CHARS, findingDiagnostics, plainRelativePath } from '../../extension/src/reviewFindings';
import type { ReviewedFinding } from '@roundtable/protocol';
import { currentBranch, defaultBranch, otherBranches } from '../../extension/src/gitBase';

const SCOPE = {
  decisions: [
    { id: '0001', title: 'Postgres for every service', path: 'docs/decisions/0001-postgres.md', status: 'accepted' },
    { id: '0002', title: 'Old queue', path: 'docs/decisions/0002-queue.md', status: 'superseded' },
  ],
};

const votes = (...v: ('accept' | 'reject' | 'abstain')[]) =>
  v.map((vote, i) => ({ worker: `w${i}`, vote, confidence: 0.8, rationale: 'because' }));

function finding(over: Partial<ReviewedFinding> = {}): ReviewedFinding {
  return {
    id: 'F1',
    file: 'src/db.ts',
    lines: { start: 3, end: 5 },
    severity: 'blocking',
    decision: '0001',
    claim: 'Adds a MySQL pool although decision 0001 says Postgres for every service.',
    verdict: 'PROVEN',
    votes: votes('accept', 'accept', 'accept'),
    ...over,
  };
}

describe('review findings as diagnostics', () => {
  it('a PROVEN finding that cites a decision: its file and lines, the claim and the vote, the record', () => {
    assert.deepEqual(findingDiagnostics([finding()], SCOPE), [
      {
        file: 'src/db.ts',
        startLine: 2,
        endLine: 4,
        level: 'error',
        verdict: 'PROVEN',
        message: 'Adds a MySQL pool although decision 0001 says Postgres for every service. (PROVEN 3–0)',
        code: '0001',
        record: { id: '0001', path: 'docs/decisions/0001-postgres.md' },
      },
    ]);
  });

  it('severity: blocking→error, major→warning, minor→information, note→hint; CONTESTED one step lower', () => {
    const levels = (verdict: 'PROVEN' | 'CONTESTED') =>
      findingDiagnostics(
        (['blocking', 'major', 'minor', 'note'] as const).map((severity) => finding({ severity, verdict })),
        SCOPE,
      ).map((d) => d.level);
    assert.deepEqual(levels('PROVEN'), ['error', 'warning', 'information', 'hint']);
    assert.deepEqual(levels('CONTESTED'), ['warning', 'information', 'hint', 'hint']);
  });

  it('a CONTESTED finding says so, with the split vote and the abstentions', () => {
    const [d] = findingDiagnostics(
      [finding({ verdict: 'CONTESTED', votes: votes('accept', 'accept', 'reject', 'abstain') })],
      SCOPE,
    );
    assert.match(d!.message, /^Contested: Adds a MySQL pool .* \(CONTESTED 2–1, 1 abstained\)$/);
  });

  it('a waived finding is information, never an error, and says by which exception', () => {
    const [d] = findingDiagnostics(
      [finding({ waived: { reason: 'moving to MySQL this quarter', from: 'commit 1a2b3c4' } })],
      SCOPE,
    );
    assert.equal(d?.level, 'information');
    assert.equal(d?.waived, true);
    assert.match(
      d?.message ?? '',
      /^Waived \(waived by the exception in commit 1a2b3c4: moving to MySQL this quarter\): Adds a MySQL pool .* \(PROVEN 3–0\)$/,
    );
  });

  it('REFUTED and INSUFFICIENT_EVIDENCE findings are not problems', () => {
    const shown = findingDiagnostics(
      [
        finding({ verdict: 'REFUTED', refuted: 'lines 90-95 are not in the change' }),
        finding({ verdict: 'INSUFFICIENT_EVIDENCE' }),
        finding({ id: 'F3', file: 'src/api.ts' }),
      ],
      SCOPE,
    );
    assert.deepEqual(
      shown.map((d) => d.file),
      ['src/api.ts'],
    );
  });

  it('a defect class is the code, with no record; a decision the scope does not list gets no record', () => {
    const [defect, unlisted] = findingDiagnostics(
      [finding({ decision: undefined, defect: 'security', severity: 'major' }), finding({ decision: '0099' })],
      SCOPE,
    );
    assert.equal(defect!.code, 'security');
    assert.equal(defect!.record, undefined);
    assert.equal(unlisted!.code, '0099');
    assert.equal(unlisted!.record, undefined);
  });

  it('lines given backwards or absurdly large are put in order and bounded', () => {
    const [back, huge] = findingDiagnostics(
      [finding({ lines: { start: 9, end: 4 } }), finding({ lines: { start: 1e12, end: 1e12 } })],
      SCOPE,
    );
    assert.deepEqual([back!.startLine, back!.endLine], [3, 8]);
    assert.ok(huge!.startLine < 1e8 && huge!.endLine < 1e8, `${huge!.startLine}`);
  });

  it('control characters, bidi overrides and newlines in a claim are made visible on one line', () => {
    const [d] = findingDiagnostics(
      [finding({ claim: 'Uses \u202Elqsym\u202C here.\n\n## Injected\u0007\u001b[31m red' })],
      SCOPE,
    );
    assert.equal(d!.message, 'Uses ⟨U+202E⟩lqsym⟨U+202C⟩ here. ## Injected[31m red (PROVEN 3–0)');
    // eslint-disable-next-line no-control-regex -- what must not be there
    assert.doesNotMatch(d!.message, /[\u0000-\u001f\u202a-\u202e]/);
  });

  it('a huge claim is cut to one readable line, never inside a surrogate pair', () => {
    const claim = `${'x'.repeat(MAX_CLAIM_CHARS - 2)}😀${'y'.repeat(2_000_000)}`;
    const [d] = findingDiagnostics([finding({ claim })], SCOPE);
    const shown = d!.message.replace(/ \(PROVEN 3–0\)$/, '');
    assert.ok(shown.length <= MAX_CLAIM_CHARS, `${shown.length}`);
    assert.ok(shown.endsWith('…'));
    assert.doesNotMatch(shown, /[\ud800-\udbff](?![\udc00-\udfff])/, 'no lone high surrogate');
  });

  it('a file or record path that leaves the workspace, is absolute or hides characters is not shown', () => {
    for (const bad of ['../etc/passwd', '/etc/passwd', 'C:\\x.ts', 'src/../../x.ts', 'src/\u202Ex.ts', 'a\nb.ts', ''])
      assert.equal(plainRelativePath(bad), undefined, JSON.stringify(bad));
    assert.equal(plainRelativePath('./src\\db.ts'), 'src/db.ts');
    assert.deepEqual(findingDiagnostics([finding({ file: '../../outside.ts' })], SCOPE), []);
    const [d] = findingDiagnostics([finding()], {
      decisions: [{ id: '0001', title: 't', path: '/etc/passwd', status: 'accepted' }],
    });
    assert.equal(d!.record, undefined);
  });
});

describe('the base of "this branch" (git, on a real repository)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'rt-gitbase-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: dir })
      .toString()
      .trim();

  it('finds the default branch and the branches to pick instead', async () => {
    git('init', '-q', '-b', 'trunk');
    writeFileSync(path.join(dir, 'a.txt'), 'a\n');
    git('add', '.');
    git('commit', '-q', '-m', 'one');
    git('checkout', '-q', '-b', 'feature');
    writeFileSync(path.join(dir, 'a.txt'), 'b\n');
    git('commit', '-q', '-am', 'two');
    git('checkout', '-q', 'trunk');
    writeFileSync(path.join(dir, 'c.txt'), 'c\n');
    git('add', '.');
    git('commit', '-q', '-m', 'three');
    git('checkout', '-q', 'feature');

    assert.equal(await defaultBranch(dir), 'trunk');
    assert.equal(await currentBranch(dir), 'feature');
    assert.deepEqual(await otherBranches(dir), ['trunk']);
    assert.equal(await defaultBranch(tmpdir()), undefined, 'not a repository');
  });
});
