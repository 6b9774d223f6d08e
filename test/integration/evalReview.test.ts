/**
 * `roundtable eval --review DIR` against a real loopback OpenAI-compatible server whose three
 * reviewers behave in known ways (test/fakes/reviewEvalServer.ts): one always right, one adding a
 * false finding to every clean control, one missing every second label. What each system must
 * score is computed here from the set's labels and those behaviours, never taken from a run.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadCaseSet, type ReviewCase } from '../../eval/src/review/cases';
import { code, defineCase } from '../../eval/src/review/builtin/define';
import { cli, ensureBuilt } from '../fakes/cli';
import { lastUserMessage, startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';
import { KNOWN_REVIEWERS, knownReviewers, writeCaseFolder } from '../fakes/reviewEvalServer';

/** Six small cases: three with labels (one with two), three clean controls. */
function testSet(): ReviewCase[] {
  return [
    defineCase({
      id: 'a-mysql',
      title: 'A MySQL pool in the orders service',
      note: '',
      records: ['postgres'],
      change: {
        'services/orders/db/mysql.ts': code(
          "import mysql from 'mysql2/promise';",
          "export const pool = mysql.createPool({ uri: 'mysql://db/orders' });",
        ),
      },
      breaks: [{ file: 'services/orders/db/mysql.ts', at: 'export const pool = mysql.createPool', record: 'postgres' }],
    }),
    defineCase({
      id: 'b-refund',
      title: 'A refund printed and computed in floats',
      note: '',
      records: ['logging', 'money'],
      change: {
        'src/billing/refundShare.ts': code(
          'export function refundShare(paidCents: number, share: number): number {',
          '  const euros = (paidCents / 100) * share;',
          "  console.log('refund share', euros);",
          '  return Math.round(euros * 100);',
          '}',
        ),
      },
      breaks: [
        { file: 'src/billing/refundShare.ts', at: "  console.log('refund share', euros);", record: 'logging' },
        { file: 'src/billing/refundShare.ts', at: '  const euros = (paidCents / 100) * share;', record: 'money' },
      ],
    }),
    defineCase({
      id: 'c-query',
      title: 'A parameterised query on Postgres',
      note: '',
      records: ['postgres'],
      change: {
        'services/orders/db/byCustomer.ts': code(
          "import { pool } from './pool';",
          "export const byCustomer = (id: string) => pool.query('SELECT * FROM orders WHERE customer_id = $1', [id]);",
        ),
      },
    }),
    defineCase({
      id: 'd-vat',
      title: 'VAT added in floating point',
      note: '',
      records: ['money'],
      change: {
        'src/orders/vat.ts': code(
          'export const withVat = (cents: number) => Number(((cents / 100) * 1.2).toFixed(2));',
        ),
      },
      breaks: [{ file: 'src/orders/vat.ts', at: 'export const withVat', record: 'money' }],
    }),
    defineCase({
      id: 'e-logger',
      title: 'Structured log of a shipped parcel',
      note: '',
      records: ['logging'],
      change: {
        'src/shipping/shipped.ts': code(
          "import { log } from '../lib/log';",
          "export const shipped = (parcelId: string) => log.info({ parcelId }, 'parcel shipped');",
        ),
      },
    }),
    defineCase({
      id: 'f-format',
      title: 'Amounts formatted for people',
      note: '',
      records: ['money'],
      change: {
        'src/ui/price.ts': code(
          "export const price = (cents: number, currency: string) => new Intl.NumberFormat('en', { style: 'currency', currency }).format(cents / 100);",
        ),
      },
    }),
  ];
}

interface Want {
  tp: number;
  fp: number;
  /** Clean controls with a finding. */
  flagged: number;
  /** Cases whose exit is the expected one. */
  gateRight: number;
}

/** What each system must score, from the labels and the reviewers' behaviour (see the fake). */
function expected(cases: ReviewCase[]): Record<string, Want> {
  const labels = cases.reduce((n, c) => n + c.labels.length, 0);
  const clean = cases.filter((c) => c.labels.length === 0).length;
  let k = 0;
  const kept = cases.map((c) => c.labels.filter(() => k++ % 2 === 0).length);
  const kept1 = kept.reduce((a, b) => a + b, 0);
  const missesGate = cases.filter((c, i) => (c.labels.length === 0 ? true : (kept[i] ?? 0) > 0)).length;
  const all = cases.length;
  const perfect = { tp: labels, fp: 0, flagged: 0, gateRight: all };
  const noisy = { tp: labels, fp: clean, flagged: clean, gateRight: all - clean };
  return {
    'alone:w1-right': perfect,
    'alone:w2-noisy': noisy,
    'alone:w3-misses': { tp: kept1, fp: 0, flagged: 0, gateRight: missesGate },
    union: noisy,
    majority: perfect,
    review: perfect,
  };
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

interface SystemJson {
  name: string;
  tp: number;
  fp: number;
  labels: number;
  duplicates: number;
  precision?: number;
  recall?: number;
  f1?: number;
  ci95: { precision?: [number, number]; recall?: [number, number]; f1?: [number, number] };
  falsePositiveRate: { count: number; of: number };
  exitAgreement: { count: number; of: number };
  billedTokensTotal: number;
}

describe('roundtable eval --review', () => {
  let fake: FakeOpenAI;
  let dir: string;
  let setDir: string;
  let cases: ReviewCase[];
  before(async () => {
    ensureBuilt();
    dir = await mkdtemp(path.join(tmpdir(), 'rt-eval-review-'));
    setDir = path.join(dir, 'set');
    for (const c of testSet()) await writeCaseFolder(setDir, c);
    cases = loadCaseSet(setDir);
    fake = await startFakeOpenAI(knownReviewers(cases), { models: [...KNOWN_REVIEWERS] });
  });
  after(async () => {
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });

  const args = (out: string) => [
    'eval',
    '--review',
    setDir,
    '--models',
    KNOWN_REVIEWERS.join(','),
    '--base-url',
    fake.baseURL,
    '--out',
    out,
    // Not a test of timeouts: a loaded machine must not cut a reviewer.
    '--turn-timeout',
    '300',
  ];
  const proposals = (from: number) =>
    fake.requests.slice(from).filter((r) => lastUserMessage(r.body).includes('"findings": [')).length;

  it('prints the precision and recall the known reviewers imply, exactly, and the JSON says the same', async () => {
    const out = path.join(dir, 'run1', 'results.json');
    const from = fake.requests.length;
    const r = await cli(args(out), { timeoutMs: 400_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /eval review 6\/6 · F1 so far: alone:w1-right 1\.00/);
    const want = expected(cases);
    const labels = 4;
    const json = JSON.parse(await readFile(out, 'utf8')) as {
      systems: SystemJson[];
      cases: number;
      clean: number;
      labels: number;
    };
    assert.deepEqual([json.cases, json.clean, json.labels], [6, 3, labels]);
    assert.deepEqual(
      json.systems.map((s) => s.name),
      Object.keys(want),
    );
    for (const s of json.systems) {
      const w = want[s.name]!;
      const row = r.stdout.split('\n').find((l) => l.startsWith(`| ${s.name} |`)) ?? '';
      assert.ok(
        row.includes(`${pct(w.tp / (w.tp + w.fp))} (${w.tp}/${w.tp + w.fp})`),
        `${s.name}: precision in ${row}`,
      );
      assert.ok(row.includes(`${pct(w.tp / labels)} (${w.tp}/${labels})`), `${s.name}: recall in ${row}`);
      assert.equal(s.precision, w.tp / (w.tp + w.fp), `${s.name}: precision`);
      assert.equal(s.recall, w.tp / labels, `${s.name}: recall`);
      assert.equal(s.f1, (2 * w.tp) / (2 * w.tp + w.fp + (labels - w.tp)), `${s.name}: F1`);
      assert.deepEqual([s.tp, s.fp, s.labels], [w.tp, w.fp, labels], s.name);
      assert.deepEqual(
        [s.falsePositiveRate.count, s.falsePositiveRate.of],
        [w.flagged, 3],
        `${s.name}: clean controls flagged`,
      );
      assert.deepEqual([s.exitAgreement.count, s.exitAgreement.of], [w.gateRight, 6], `${s.name}: gate right`);
      const ci = s.ci95.precision!;
      assert.ok(ci[0] <= s.precision && s.precision <= ci[1], `${s.name}: the interval holds the figure`);
    }
    const by = Object.fromEntries(json.systems.map((s) => [s.name, s]));
    // Noisy's decoys and the third copies of the labels: the union reads every review, duplicates and all.
    assert.equal(by.union?.duplicates, 4 + 2);
    // One bill: each reviewer alone is its proposal calls, the union all of them, the review every call.
    const alone = ['alone:w1-right', 'alone:w2-noisy', 'alone:w3-misses'].reduce(
      (n, s) => n + (by[s]?.billedTokensTotal ?? 0),
      0,
    );
    assert.equal(by.union?.billedTokensTotal, alone);
    assert.equal(by.majority?.billedTokensTotal, alone);
    const server = fake.requests
      .slice(from)
      .reduce((n, q) => n + (q.usage ? q.usage.promptTokens + q.usage.completionTokens : 0), 0);
    assert.equal(by.review?.billedTokensTotal, server, 'the review is billed every call the server answered');
    assert.equal(proposals(from), 6 * 3, 'each reviewer proposed once per case');
    assert.match(r.stdout, /^Use (majority|review|alone:w1-right) on /m);
  });

  it('resumes without reviewing a case again, and a tampered line is reviewed again', async () => {
    const out = path.join(dir, 'run2', 'results.json');
    const first = await cli([...args(out), '--limit', '2'], { timeoutMs: 400_000 });
    assert.equal(first.code, 0, first.stderr);
    const checkpoint = path.join(dir, 'run2', 'results.checkpoint.jsonl');
    const lines = (await readFile(checkpoint, 'utf8')).trim().split('\n');
    assert.equal(lines.length, 3, 'the key and two cases');
    // A forged fourth reviewer in the first case's log: that case is reviewed again, the other kept.
    const forged = JSON.parse(lines[1]!) as { events: { participants?: unknown[] }[] };
    forged.events[0]!.participants!.push({ name: 'w4-forged', role: 'worker', provider: 'openai', model: 'right' });
    lines[1] = JSON.stringify(forged);
    await writeFile(checkpoint, `${lines.join('\n')}\n`);
    const from = fake.requests.length;
    const r = await cli([...args(out), '--resume'], { timeoutMs: 400_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /resuming: 1 of 6 cases already reviewed/);
    assert.equal(proposals(from), 5 * 3, 'only the forged case and the four not reviewed');
    const json = JSON.parse(await readFile(out, 'utf8')) as { systems: SystemJson[] };
    assert.equal(json.systems.find((s) => s.name === 'review')?.tp, 4);
  });

  it('refuses a checkpoint of another run and one that is a symbolic link, in one line each', async () => {
    const out = path.join(dir, 'run2', 'results.json');
    const other = await cli([
      'eval',
      '--review',
      setDir,
      '--models',
      'right,noisy',
      '--base-url',
      fake.baseURL,
      '--out',
      out,
      '--resume',
    ]);
    assert.equal(other.code, 2);
    assert.match(
      other.stderr,
      /^roundtable: the checkpoint .* belongs to another run .*: run without --resume to start over\n$/,
    );
    const linked = path.join(dir, 'linked.json');
    await symlink(path.join(dir, 'elsewhere.jsonl'), path.join(dir, 'linked.checkpoint.jsonl'));
    const link = await cli([...args(linked)]);
    assert.equal(link.code, 2);
    assert.match(link.stderr, /is a symbolic link/);
    assert.ok(!existsSync(path.join(dir, 'elsewhere.jsonl')), 'nothing was written through the link');
  });

  it('--estimate prints what the run would cost and asks no model', async () => {
    const from = fake.requests.length;
    const r = await cli([...args(path.join(dir, 'est.json')), '--estimate'], { timeoutMs: 300_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Estimate of the review eval of .*: 6 cases, panel right, noisy, misses/);
    assert.match(r.stdout, /the reviews: \d[\d,]* calls, \d[\d,]* billed tokens/);
    assert.equal(fake.requests.length, from, 'no request reached the server');
    assert.ok(!existsSync(path.join(dir, 'est.checkpoint.jsonl')));
  });
});
