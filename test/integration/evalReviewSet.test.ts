/**
 * The review eval's cases: the built-in set holds what issue 43 asks of it (30 cases or more, 40%
 * clean controls or more, changes that break two records, breaches outside a record's scope), each
 * label on lines the change really changes (git's own diff of the case's repository); the folder
 * format a team writes carries every built-in case unchanged; a bad case is one line naming it; and
 * the built-in set runs end to end on the scripted reviewers and on a loopback server.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseRecord } from '../../daemon/src/decisions/record';
import { governingDecisions } from '../../daemon/src/decisions/rulebook';
import { hunkRanges } from '../../daemon/src/review/change';
import { BUILTIN_CASES } from '../../eval/src/review/builtin/index';
import { CaseError, loadCaseFolder, loadCaseSet, type ReviewCase } from '../../eval/src/review/cases';
import { SCRIPTED_NOTE } from '../../eval/src/review/report';
import { buildCaseRepo } from '../../eval/src/review/run';
import { cli, ensureBuilt } from '../fakes/cli';
import { startFakeOpenAI } from '../fakes/openaiServer';
import { KNOWN_REVIEWERS, caseInPrompt, knownReviewers, writeCaseFolder } from '../fakes/reviewEvalServer';

const recordsOf = (c: ReviewCase) =>
  Object.entries(c.base)
    .filter(([p]) => p.startsWith('docs/decisions/'))
    .map(([p, text]) => parseRecord(p, text));

/** `git diff -U0 main change` of the case's repository: the changed lines of each file, and the diff. */
async function changedLines(
  c: ReviewCase,
): Promise<{ ranges: Map<string, { start: number; end: number }[]>; diff: string }> {
  const repo = await buildCaseRepo(c);
  try {
    const diff = (f: string[]) => execFileSync('git', ['diff', ...f, 'main', 'change'], { cwd: repo.root }).toString();
    const ranges = new Map<string, { start: number; end: number }[]>();
    for (const file of Object.keys(c.change))
      ranges.set(
        file,
        hunkRanges(execFileSync('git', ['diff', '-U0', 'main', 'change', '--', file], { cwd: repo.root }).toString()),
      );
    return { ranges, diff: diff([]) };
  } finally {
    await repo.remove();
  }
}

describe('the built-in review set', () => {
  const cases = BUILTIN_CASES;

  it('has 30 cases or more, 40% clean controls or more, two-record breaches and breaches outside a scope', () => {
    assert.ok(cases.length >= 30, `${cases.length} cases`);
    assert.equal(new Set(cases.map((c) => c.id)).size, cases.length, 'ids are unique');
    const clean = cases.filter((c) => c.labels.length === 0).length;
    assert.ok(clean / cases.length >= 0.4, `${clean} of ${cases.length} clean`);
    const two = cases.filter((c) => new Set(c.labels.map((l) => l.decision)).size >= 2);
    assert.ok(two.length >= 2, `${two.length} break two records`);
    // A breach whose file the cited record's scope does not name, though the record has a scope.
    const outside = cases.filter((c) =>
      c.labels.some((l) => {
        const record = recordsOf(c).find((r) => r.path.includes(`/${l.decision}-`));
        return record && record.scope.length > 0 && governingDecisions([record], l.file).length === 0;
      }),
    );
    assert.ok(outside.length >= 2, `${outside.map((c) => c.id).join(', ')} break a record outside its scope`);
  });

  it('covers the decisions teams record, each with a breach and a clean control', () => {
    const kinds = ['0001', '0002', '0003', '0004', '0005', '0006', '0007', '0008', '0009', '0010', '0011', '0012'];
    for (const id of kinds) {
      const governs = (c: ReviewCase) => recordsOf(c).some((r) => r.path.includes(`/${id}-`));
      assert.ok(
        cases.some((c) => c.labels.some((l) => l.decision === id)),
        `a breach of ${id}`,
      );
      assert.ok(
        cases.some((c) => c.labels.length === 0 && governs(c)),
        `a clean control under ${id}`,
      );
    }
  });

  it('labels lines the change changes, citing an accepted record the repository holds; the fake server knows each case by its diff', async () => {
    for (const c of cases) {
      const { ranges, diff } = await changedLines(c);
      for (const l of c.labels) {
        const changed = ranges.get(l.file) ?? [];
        assert.ok(
          changed.some((r) => r.start <= l.lines.end && l.lines.start <= r.end),
          `${c.id}: ${l.file}:${l.lines.start}-${l.lines.end} is not in the changed lines ${JSON.stringify(changed)}`,
        );
        if (l.decision) {
          const record = recordsOf(c).find((r) => r.path.includes(`/${l.decision}-`));
          assert.equal(record?.state, 'accepted', `${c.id}: ${l.decision}`);
        }
      }
      assert.equal(caseInPrompt(cases, diff)?.id, c.id, `${c.id} is told apart from the others by its diff`);
    }
  });

  it('goes through the folder format a team writes and comes back the same', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rt-review-set-'));
    try {
      for (const c of cases) await writeCaseFolder(dir, c);
      assert.deepEqual(
        loadCaseSet(dir),
        [...cases].sort((a, b) => (a.id < b.id ? -1 : 1)),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a review case a team writes', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rt-review-case-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const write = async (id: string, json: unknown, files: Record<string, string> = {}) => {
    const root = path.join(dir, id);
    for (const [rel, text] of Object.entries({ 'base/src/a.ts': 'a\n', 'change/src/a.ts': 'a\nb\n', ...files })) {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await writeFile(path.join(root, rel), text);
    }
    if (json !== undefined)
      await writeFile(path.join(root, 'case.json'), typeof json === 'string' ? json : JSON.stringify(json));
    return root;
  };
  const refused = async (id: string, json: unknown, why: RegExp, files?: Record<string, string>) => {
    const root = await write(id, json, files);
    assert.throws(
      () => loadCaseFolder(root),
      (e: Error) =>
        e instanceof CaseError &&
        why.test(e.message) &&
        e.message.startsWith(`review case ${id}:`) &&
        !e.message.includes('\n'),
    );
  };

  it('reads lines as "12", "12-14" or {start, end}, and a clean control as no label', async () => {
    const root = await write('ok', {
      title: 'ok',
      labels: [
        { file: 'src/a.ts', lines: '2', decision: 'ADR-0001' },
        { file: 'src/a.ts', lines: '1-2', defect: 'correctness' },
        { file: 'src/a.ts', lines: { start: 2, end: 2 }, decision: '0002', defect: 'security' },
      ],
    });
    assert.deepEqual(
      loadCaseFolder(root).labels.map((l) => [l.lines.start, l.lines.end]),
      [
        [2, 2],
        [1, 2],
        [2, 2],
      ],
    );
    assert.deepEqual(loadCaseFolder(await write('clean', { title: 'clean', labels: [] })).labels, []);
  });

  it('refuses, in one line naming the case, what cannot be a case', async () => {
    await refused('nojson', undefined, /no case\.json/);
    await refused('notjson', '{ title', /not JSON/);
    await refused('nolabels', { title: 't' }, /"labels"/);
    await refused('badlines', { title: 't', labels: [{ file: 'src/a.ts', lines: '3-1', decision: '1' }] }, /"lines"/);
    await refused('nosubject', { title: 't', labels: [{ file: 'src/a.ts', lines: '2' }] }, /"decision" or "defect"/);
    await refused(
      'unchanged',
      { title: 't', labels: [{ file: 'src/b.ts', lines: '1', decision: '1' }] },
      /does not add or change/,
    );
    await refused('pastend', { title: 't', labels: [{ file: 'src/a.ts', lines: '9', decision: '1' }] }, /past the end/);
    await refused('escape', { title: 't', labels: [], deleted: ['../../etc/passwd'] }, /leaves the repository/);
    await refused('nested', { title: 't', labels: [] }, /names \.git/, { 'base/sub/.git/config': '[core]\n' });
    await refused('empty', { title: 't', labels: [] }, /change is empty/, { 'change/src/a.ts': 'a\n' });
    const root = await write('linked', { title: 't', labels: [] });
    await symlink('/etc/hostname', path.join(root, 'base', 'host.txt'));
    assert.throws(() => loadCaseFolder(root), /linked: base\/host\.txt is a symbolic link/);
  });
});

describe('the built-in set end to end', () => {
  it('on the scripted reviewers: every case reviewed, the figures their behaviour implies, and said to measure no model', async () => {
    ensureBuilt();
    const dir = await mkdtemp(path.join(tmpdir(), 'rt-review-builtin-'));
    try {
      const out = path.join(dir, 'r.json');
      const r = await cli(
        ['eval', '--review', 'builtin', '--provider', 'scripted', '--out', out, '--concurrency', '2'],
        {
          timeoutMs: 600_000,
        },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.includes(SCRIPTED_NOTE));
      const json = JSON.parse(await readFile(out, 'utf8')) as {
        cases: number;
        systems: { name: string; tp: number; fp: number; labels: number; couldNotReview: number }[];
      };
      const labels = BUILTIN_CASES.reduce((n, c) => n + c.labels.length, 0);
      const clean = BUILTIN_CASES.filter((c) => c.labels.length === 0).length;
      const by = Object.fromEntries(json.systems.map((s) => [s.name, [s.tp, s.fp, s.labels, s.couldNotReview]]));
      assert.equal(json.cases, BUILTIN_CASES.length);
      assert.deepEqual(by['alone:w1-right'], [labels, 0, labels, 0]);
      assert.deepEqual(by['alone:w2-noisy'], [labels, clean, labels, 0]);
      assert.deepEqual(by['alone:w3-misses'], [Math.ceil(labels / 2), 0, labels, 0]);
      assert.deepEqual(by.review, [labels, 0, labels, 0], 'the vote keeps every label and refutes every false finding');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('on a loopback server: each reviewer answers the case it is shown, every case reviewed', async () => {
    ensureBuilt();
    const dir = await mkdtemp(path.join(tmpdir(), 'rt-review-builtin-'));
    const fake = await startFakeOpenAI(knownReviewers(BUILTIN_CASES), { models: [...KNOWN_REVIEWERS] });
    try {
      const out = path.join(dir, 'r.json');
      const args = ['eval', '--review', 'builtin', '--concurrency', '2', '--models', KNOWN_REVIEWERS.join(',')];
      const r = await cli([...args, '--base-url', fake.baseURL, '--out', out, '--turn-timeout', '300'], {
        timeoutMs: 600_000,
      });
      assert.equal(r.code, 0, r.stderr);
      const labels = BUILTIN_CASES.reduce((k, c) => k + c.labels.length, 0);
      const clean = BUILTIN_CASES.filter((c) => c.labels.length === 0).length;
      const json = JSON.parse(await readFile(out, 'utf8')) as { systems: { name: string; tp: number; fp: number }[] };
      const by = Object.fromEntries(json.systems.map((s) => [s.name, [s.tp, s.fp]]));
      assert.deepEqual(by['alone:w1-right'], [labels, 0]);
      assert.deepEqual(by['alone:w2-noisy'], [labels, clean]);
      assert.deepEqual(by.review, [labels, 0]);
    } finally {
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
