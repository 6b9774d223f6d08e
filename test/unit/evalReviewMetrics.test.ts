/**
 * The review eval's matching and figures (issue 43): when a finding hits a label, how findings
 * are credited one-to-one, precision/recall/F1, the percentile bootstrap over cases, and which
 * system the report recommends. Findings are written as models write them (`ADR-0003`, `./src/…`,
 * a class in capitals), so the matching meets what a real reviewer says.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding } from '@roundtable/protocol';
import { initialState } from '@roundtable/protocol';
import { findingsBallotBlock } from '../../daemon/src/meeting/reviewPrompts';
import { quantile } from '../../eval/src/panelStats';
import type { Label } from '../../eval/src/review/cases';
import { LINE_TOLERANCE, hits, scoreFindings } from '../../eval/src/review/match';
import { bootstrapPrf, pooled, prf, resamples } from '../../eval/src/review/metrics';
import type { CaseResult, SystemCase } from '../../eval/src/review/record';
import { ballotFindings } from '../../eval/src/review/scripted';
import { recommendReview, summarizeReview } from '../../eval/src/review/summary';

const label: Label = { file: 'src/orders/total.ts', lines: { start: 8, end: 9 }, decision: '0006' };
const finding = (over: Partial<Finding> = {}): Finding => ({
  file: 'src/orders/total.ts',
  lines: { start: 8, end: 8 },
  severity: 'blocking',
  decision: '0006',
  claim: 'A float amount.',
  ...over,
});

describe('a finding hits a label', () => {
  it('on the same file, overlapping lines and the same decision, however the id is written', () => {
    for (const decision of ['0006', 'ADR-0006', '6', 'adr 6']) assert.ok(hits(finding({ decision }), label), decision);
    assert.ok(hits(finding({ file: './src/orders/total.ts' }), label), 'a leading ./');
  });

  it(`within ${LINE_TOLERANCE} lines, not one more`, () => {
    assert.ok(hits(finding({ lines: { start: 12, end: 14 } }), label), '3 lines below');
    assert.ok(hits(finding({ lines: { start: 1, end: 5 } }), label), '3 lines above');
    assert.ok(!hits(finding({ lines: { start: 13, end: 13 } }), label), '4 lines below');
    assert.ok(!hits(finding({ lines: { start: 2, end: 4 } }), label), '4 lines above');
  });

  it('not on another file, another decision, or a defect class where the label names a decision', () => {
    assert.ok(!hits(finding({ file: 'src/orders/tax.ts' }), label));
    assert.ok(!hits(finding({ decision: '0003' }), label));
    assert.ok(!hits(finding({ decision: undefined, defect: 'correctness' }), label));
  });

  it('a defect class compares without case, and a label with both is hit by either', () => {
    const both: Label = { ...label, defect: 'correctness' };
    assert.ok(hits(finding({ decision: undefined, defect: 'Correctness' }), both));
    assert.ok(hits(finding(), both));
    assert.ok(!hits(finding({ decision: undefined, defect: 'performance' }), both));
  });
});

describe('findings credited to labels', () => {
  const second: Label = { file: 'src/orders/total.ts', lines: { start: 12, end: 12 }, decision: '0006' };

  it('a label found twice is one true positive and one duplicate; a finding that hits nothing is a false positive', () => {
    assert.deepEqual(scoreFindings([finding(), finding({ claim: 'again' }), finding({ decision: '0003' })], [label]), {
      tp: 1,
      fp: 1,
      dup: 1,
      labels: 1,
    });
  });

  it('credits the most labels: a finding that could take either label leaves the other to the one that needs it', () => {
    // The first finding (lines 9-10) hits both labels, the second (line 9) only the first; greedy would credit one.
    const wide = finding({ lines: { start: 9, end: 10 } });
    const narrow = finding({ lines: { start: 7, end: 7 } });
    assert.deepEqual(scoreFindings([wide, narrow], [label, second]), { tp: 2, fp: 0, dup: 0, labels: 2 });
  });

  it('nothing reported on a clean control is nothing at all', () => {
    assert.deepEqual(scoreFindings([], []), { tp: 0, fp: 0, dup: 0, labels: 0 });
  });
});

describe('precision, recall and F1', () => {
  it('from the pooled counts', () => {
    assert.deepEqual(prf({ tp: 3, fp: 1, labels: 6 }), { precision: 0.75, recall: 0.5, f1: 0.6 });
  });

  it('say "no figure" rather than zero where there is nothing to divide', () => {
    assert.deepEqual(prf({ tp: 0, fp: 0, labels: 4 }), { recall: 0, f1: 0 }, 'reported nothing: no precision');
    assert.deepEqual(prf({ tp: 0, fp: 2, labels: 0 }), { precision: 0, f1: 0 }, 'no label: no recall');
    assert.deepEqual(prf({ tp: 0, fp: 0, labels: 0 }), {});
  });
});

describe('the bootstrap over cases', () => {
  it('draws the same resamples for the same seed, each index a case', () => {
    const a = resamples(7, 1, 200);
    assert.deepEqual(a, resamples(7, 1, 200));
    assert.notDeepEqual(a, resamples(7, 2, 200));
    assert.equal(a.length, 200);
    assert.ok(a.every((d) => d.length === 7 && d.every((i) => i >= 0 && i < 7)));
    const mean = a.reduce((t, d) => t + d.reduce((u, i) => u + i, 0), 0) / (200 * 7);
    assert.ok(Math.abs(mean - 3) < 0.2, `indices drawn evenly (mean ${mean})`);
  });

  it('its interval is the 2.5th and 97.5th percentile of the figure over the resampled cases', () => {
    // Twelve cases unlike each other, so the percentiles fall on distinct values.
    const perCase = Array.from({ length: 12 }, (_, i) => ({ tp: i % 4, fp: (i * 7) % 5, labels: (i % 4) + (i % 3) }));
    const draws = resamples(perCase.length, 1);
    const ci = bootstrapPrf(perCase, draws);
    // Computed here case by case, without `pooled`.
    const precisions = draws
      .map((d) => {
        let tp = 0;
        let fp = 0;
        for (const i of d) {
          tp += perCase[i]!.tp;
          fp += perCase[i]!.fp;
        }
        return tp + fp > 0 ? tp / (tp + fp) : undefined;
      })
      .filter((v): v is number => v !== undefined)
      .sort((x, y) => x - y);
    assert.deepEqual(ci.precision, [quantile(precisions, 0.025), quantile(precisions, 0.975)]);
    assert.notEqual(quantile(precisions, 0.975), quantile(precisions, 0.95), 'the test tells the percentiles apart');
    const point = prf(pooled(perCase));
    for (const k of ['precision', 'recall', 'f1'] as const) {
      const [lo, hi] = ci[k]!;
      assert.ok(lo <= point[k]! && point[k]! <= hi, `${k}: ${lo} ≤ ${point[k]} ≤ ${hi}`);
      assert.ok(lo < hi, `${k}: cases that differ give an interval of some width`);
    }
  });

  it('cases that are all alike give an interval of no width', () => {
    const same = Array.from({ length: 9 }, () => ({ tp: 1, fp: 1, labels: 1 }));
    assert.deepEqual(bootstrapPrf(same, resamples(9, 1)).precision, [0.5, 0.5]);
  });
});

function caseResult(id: string, labels: number, rows: Record<string, Partial<SystemCase>>): CaseResult {
  return {
    id,
    clean: labels === 0,
    labels,
    wallMs: 0,
    systems: Object.entries(rows).map(([name, r]) => ({
      name,
      tp: 0,
      fp: 0,
      dup: 0,
      labels,
      reported: (r.tp ?? 0) + (r.fp ?? 0) + (r.dup ?? 0),
      exit: 0,
      billedTokens: 100,
      calls: 1,
      unpricedModels: [],
      ...r,
    })),
  };
}

describe('the summary and the recommendation', () => {
  const key = { kind: 'review' as const, set: 'toy', setHash: '', models: ['a', 'b'], provider: 'openai' as const };
  const results = [
    caseResult('one', 1, { x: { tp: 1, exit: 1, billedTokens: 300 }, y: { tp: 1, exit: 1, billedTokens: 100 } }),
    caseResult('two', 0, { x: { exit: 0, billedTokens: 300 }, y: { fp: 1, exit: 1, billedTokens: 100 } }),
    caseResult('three', 2, { x: { tp: 2, exit: 1, billedTokens: 300 }, y: { exit: 3, billedTokens: 100 } }),
  ];
  const r = summarizeReview(key, ['w1-a', 'w2-b'], ['x', 'y'], 'blocking', results);
  const [x, y] = r.systems;

  it('counts the clean controls flagged, the gate right, and what could not be reviewed', () => {
    assert.deepEqual([x?.falsePositiveRate.count, x?.falsePositiveRate.of], [0, 1]);
    assert.deepEqual([y?.falsePositiveRate.count, y?.falsePositiveRate.of], [1, 1]);
    assert.deepEqual([x?.exitAgreement.count, y?.exitAgreement.count], [3, 1]);
    assert.equal(y?.couldNotReview, 1);
    assert.deepEqual([x?.precision, x?.recall, y?.precision, y?.recall], [1, 1, 0.5, 1 / 3]);
    assert.deepEqual([x?.billedTokens, y?.billedTokensTotal], [300, 300]);
  });

  it('recommends the best F1, then the gate right more often, then the cheaper', () => {
    assert.equal(r.recommendation?.use, 'x');
    assert.deepEqual(r.recommendation?.others, [{ name: 'y', f1: y?.f1, costRatio: 1 / 3 }]);
    // Better F1 beats a gate right more often.
    const sharper = { ...x!, name: 'sharper', f1: 0.9, exitAgreement: { ...x!.exitAgreement, rate: 0.5 } };
    const steadier = { ...x!, name: 'steadier', f1: 0.8, exitAgreement: { ...x!.exitAgreement, rate: 1 } };
    assert.equal(recommendReview([steadier, sharper])?.use, 'sharper');
    const tie = recommendReview([
      { ...x!, name: 'dear', billedTokens: 900 },
      { ...x!, name: 'cheap', billedTokens: 300 },
    ]);
    assert.equal(tie?.use, 'cheap');
    assert.deepEqual(tie?.tiedWith, ['dear']);
  });
});

describe('the scripted reviewers read the ballot as the review writes it', () => {
  it('every finding on the ballot, its file, lines and decision or defect', () => {
    const s = initialState();
    s.participants = [{ name: 'chair', role: 'assistant', provider: 'scripted', model: 'm' }];
    const f = (over: Partial<Finding>): Finding => ({ ...finding(), proposedBy: ['w1-right'], ...over });
    s.options = [
      { id: 'O1', label: '', finding: f({}) },
      {
        id: 'O2',
        label: '',
        finding: f({ file: 'src/a b.ts', lines: { start: 3, end: 3 }, decision: undefined, defect: 'correctness' }),
      },
      { id: 'O3', label: '', finding: f({ refuted: 'not in the change' }) },
    ];
    assert.deepEqual(ballotFindings(findingsBallotBlock(s)), [
      { id: 'O1', finding: { file: 'src/orders/total.ts', lines: { start: 8, end: 8 }, decision: '0006' } },
      { id: 'O2', finding: { file: 'src/a b.ts', lines: { start: 3, end: 3 }, defect: 'correctness' } },
    ]);
  });
});
