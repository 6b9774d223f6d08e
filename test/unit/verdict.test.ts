import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Ballot, ConsensusOption, OptionVote, VoteKind } from '@roundtable/protocol';
import {
  calibrated,
  decide,
  escalationReasons,
  findConflicts,
  optionResult,
  questionVerdict,
} from '../../daemon/src/meeting/verdict';

const v = (
  option: string,
  vote: VoteKind,
  confidence: number,
  files: string[] = [],
  status: 'exists' | 'missing' = 'exists',
): OptionVote => ({
  option,
  vote,
  confidence,
  rationale: 'r',
  evidence: files.map((file) => ({ file, status })),
});
const ballot = (...votes: OptionVote[]): Ballot => ({ votes, valid: true, retried: false, seq: 1 });
const opts: ConsensusOption[] = [
  { id: 'O1', label: 'A' },
  { id: 'O2', label: 'B' },
];

describe('calibrated confidence weighting', () => {
  it('maps stated confidence to ReConcile bands', () => {
    assert.deepEqual(
      [1, 0.95, 0.9, 0.85, 0.8, 0.7, 0.6, 0.59, 0].map(calibrated),
      [1, 0.8, 0.8, 0.5, 0.5, 0.3, 0.3, 0.1, 0.1],
    );
  });

  it('computes weighted acceptance by hand: accept 0.95 + 0.7, reject 0.85 -> (0.8+0.3)/(0.8+0.3+0.5)', () => {
    const r = optionResult(
      'O1',
      [v('O1', 'accept', 0.95, ['a.ts']), v('O1', 'accept', 0.7), v('O1', 'reject', 0.85), v('O1', 'abstain', 0)],
      4,
    );
    assert.equal(r.weightedAccept, Math.round((1.1 / 1.6) * 1000) / 1000);
    assert.equal(r.weightedReject, Math.round((0.5 / 1.6) * 1000) / 1000);
    assert.deepEqual([r.accept, r.reject, r.abstain], [2, 1, 1]);
    assert.equal(r.verdict, 'PROVEN');
  });
});

describe('verdicts', () => {
  it('PROVEN by count: 3 of 5 accept, even when weighted acceptance is below half', () => {
    const votes = [
      v('O1', 'accept', 0.5, ['a.ts']),
      v('O1', 'accept', 0.5),
      v('O1', 'accept', 0.5),
      v('O1', 'reject', 1),
      v('O1', 'reject', 1),
    ];
    const r = optionResult('O1', votes, 5);
    assert.ok(r.weightedAccept < 0.5);
    assert.equal(r.verdict, 'PROVEN');
  });

  it('PROVEN by weight: 2 of 5 accept with high confidence outweigh low-confidence rejections', () => {
    const votes = [
      v('O1', 'accept', 1, ['a.ts']),
      v('O1', 'accept', 0.95),
      v('O1', 'reject', 0.5),
      v('O1', 'reject', 0.5),
      v('O1', 'abstain', 0),
    ];
    assert.equal(optionResult('O1', votes, 5).verdict, 'PROVEN');
  });

  it('is not PROVEN without existing evidence on the accepting side', () => {
    const votes = [
      v('O1', 'accept', 1, ['gone.ts'], 'missing'),
      v('O1', 'accept', 1),
      v('O1', 'reject', 0.6, ['b.ts']),
    ];
    assert.equal(optionResult('O1', votes, 3).verdict, 'CONTESTED');
  });

  it('REFUTED when the rejecting side carries the weight and cites evidence', () => {
    const votes = [v('O1', 'accept', 0.6), v('O1', 'reject', 0.9, ['bench.md']), v('O1', 'reject', 0.85)];
    assert.equal(optionResult('O1', votes, 3).verdict, 'REFUTED');
  });

  it('CONTESTED when split with evidence on both sides and no majority', () => {
    const votes = [
      v('O1', 'accept', 0.7, ['a.ts']),
      v('O1', 'reject', 0.7, ['b.ts']),
      v('O1', 'abstain', 0),
      v('O1', 'abstain', 0),
      v('O1', 'abstain', 0),
    ];
    const r = optionResult('O1', votes, 5);
    assert.equal(r.weightedAccept, 0.5);
    assert.equal(r.verdict, 'PROVEN', '50% weighted with evidence is enough');
    const split = [v('O1', 'accept', 0.7, ['a.ts']), v('O1', 'reject', 0.9, ['b.ts']), v('O1', 'accept', 0.5)];
    const s = optionResult('O1', split, 5);
    assert.ok(s.weightedAccept < 0.5 && s.weightedReject < 1);
    assert.equal(s.verdict, 'REFUTED', 'weighted rejection 0.8/1.2 with evidence refutes');
    const even = [
      v('O1', 'accept', 0.7, ['a.ts']),
      v('O1', 'reject', 0.7),
      v('O1', 'accept', 0.3),
      v('O1', 'reject', 0.95),
      v('O1', 'abstain', 0),
    ];
    assert.equal(optionResult('O1', even, 5).verdict, 'CONTESTED');
  });

  it('INSUFFICIENT_EVIDENCE when nobody cites an existing file', () => {
    assert.equal(
      optionResult('O1', [v('O1', 'accept', 1), v('O1', 'accept', 1), v('O1', 'accept', 1)], 3).verdict,
      'INSUFFICIENT_EVIDENCE',
    );
  });

  it('decides for the single best PROVEN option and reports its weighted agreement', () => {
    const results = [
      optionResult('O1', [v('O1', 'accept', 1, ['a']), v('O1', 'accept', 0.85)], 2),
      optionResult('O2', [v('O2', 'reject', 1, ['b']), v('O2', 'reject', 1)], 2),
    ];
    assert.deepEqual(decide(results), { decision: 'O1', actualConsensus: 1 });
    const tie = [
      optionResult('O1', [v('O1', 'accept', 1, ['a'])], 1),
      optionResult('O2', [v('O2', 'accept', 1, ['b'])], 1),
    ];
    assert.equal(decide(tie).decision, undefined);
  });
});

describe('conflicts', () => {
  it('finds a critical contradiction when both sides are confident and cite the same file', () => {
    const ballots = {
      ada: ballot(v('O1', 'accept', 0.95, ['src/db.ts']), v('O2', 'reject', 0.5)),
      grace: ballot(v('O1', 'reject', 0.9, ['src/db.ts']), v('O2', 'reject', 0.5)),
    };
    const results = opts.map((o) =>
      optionResult(
        o.id,
        Object.values(ballots).flatMap((b) => b.votes),
        2,
      ),
    );
    const c = findConflicts(ballots, opts, undefined, results);
    assert.equal(c[0]?.conflictId, 'C1');
    assert.equal(c[0]?.severity, 'critical');
    assert.equal(c[0]?.conflictType, 'contradiction');
    assert.deepEqual(
      c[0]?.positions.map((p) => `${p.worker}:${p.vote}`),
      ['ada:accept', 'grace:reject'],
    );
  });

  it('calls disjoint evidence a scope difference and grades severity by the weaker side', () => {
    const ballots = {
      ada: ballot(v('O1', 'accept', 0.75, ['a.ts']), v('O2', 'abstain', 0)),
      grace: ballot(v('O1', 'reject', 0.95, ['b.ts']), v('O2', 'abstain', 0)),
    };
    const c = findConflicts(ballots, opts, undefined, []);
    assert.equal(c[0]?.conflictType, 'scope-difference');
    assert.equal(c[0]?.severity, 'high');
  });

  it('finds partial overlap and priority differences', () => {
    const three: ConsensusOption[] = [...opts, { id: 'O3', label: 'C' }];
    const partial = findConflicts(
      {
        ada: ballot(v('O1', 'accept', 0.8), v('O2', 'accept', 0.8)),
        grace: ballot(v('O2', 'accept', 0.8), v('O3', 'accept', 0.8)),
      },
      three,
      undefined,
      [],
    );
    assert.ok(partial.some((c) => c.conflictType === 'partial-overlap' && c.severity === 'medium'));
    const priority = findConflicts(
      {
        ada: ballot(v('O1', 'accept', 0.9), v('O2', 'accept', 0.6)),
        grace: ballot(v('O1', 'accept', 0.6), v('O2', 'accept', 0.9)),
      },
      opts,
      undefined,
      [],
    );
    assert.deepEqual(
      priority.map((c) => [c.conflictType, c.severity]),
      [['priority-difference', 'low']],
    );
  });
});

describe('question verdict', () => {
  it('is PROVEN with a decision, REFUTED when every option is refuted, INSUFFICIENT_EVIDENCE with none', () => {
    const proven = optionResult('O1', [v('O1', 'accept', 1, ['a'])], 1);
    const refuted = optionResult('O2', [v('O2', 'reject', 1, ['a'])], 1);
    const bare = optionResult('O3', [v('O3', 'accept', 1)], 1);
    assert.equal(questionVerdict([proven, refuted], 'O1'), 'PROVEN');
    assert.equal(questionVerdict([refuted, bare], undefined), 'REFUTED');
    assert.equal(questionVerdict([bare], undefined), 'INSUFFICIENT_EVIDENCE');
  });
});

describe('escalation triggers', () => {
  const base = {
    results: [optionResult('O1', [v('O1', 'accept', 1, ['a']), v('O1', 'accept', 0.9)], 2)],
    threshold: 0.8,
    conflicts: [],
    ballots: {},
  };
  it('does not escalate a clear decision', () => {
    assert.deepEqual(escalationReasons({ ...base, decision: 'O1', actualConsensus: 0.9 }), []);
  });
  it('escalates below the threshold', () => {
    assert.match(escalationReasons({ ...base, actualConsensus: 0.6 }).join(), /60% is below the 80% threshold/);
  });
  it('escalates a contested verdict', () => {
    const contested = optionResult(
      'O2',
      [v('O2', 'accept', 0.7, ['a']), v('O2', 'reject', 0.7), v('O2', 'accept', 0.3), v('O2', 'reject', 0.95)],
      5,
    );
    assert.equal(contested.verdict, 'CONTESTED');
    assert.match(
      escalationReasons({ ...base, results: [contested], actualConsensus: 0.9 }).join(),
      /the question is contested \(O2 CONTESTED\)/,
    );
    const tie = [
      optionResult('O1', [v('O1', 'accept', 0.7, ['a']), v('O1', 'reject', 0.7, ['b'])], 2),
      optionResult('O2', [v('O2', 'reject', 0.7, ['a']), v('O2', 'accept', 0.7, ['b'])], 2),
    ];
    assert.equal(decide(tie).decision, undefined);
    assert.equal(questionVerdict(tie, undefined), 'CONTESTED', 'a tie between proven options is contested');
    assert.match(
      escalationReasons({ ...base, results: tie, actualConsensus: 0.5 }).join(),
      /contested \(O1 PROVEN, O2 PROVEN\)/,
    );
  });
  it('escalates a critical conflict', () => {
    const conflicts = [
      {
        conflictId: 'C1',
        severity: 'critical' as const,
        conflictType: 'contradiction' as const,
        positions: [{ worker: 'a', option: 'O1', vote: 'accept' as const, confidence: 1 }],
        resolution: '',
      },
    ];
    assert.match(escalationReasons({ ...base, conflicts, actualConsensus: 0.9 }).join(), /critical conflict C1/);
  });
  it('escalates suspicious unanimity: every worker accepts with confidence 1.0', () => {
    const ballots = { ada: ballot(v('O1', 'accept', 1, ['a'])), grace: ballot(v('O1', 'accept', 1)) };
    assert.match(
      escalationReasons({ ...base, ballots, decision: 'O1', actualConsensus: 1 }).join(),
      /suspicious unanimity: every worker accepts O1 with confidence 1\.0/,
    );
    const honest = { ada: ballot(v('O1', 'accept', 1, ['a'])), grace: ballot(v('O1', 'accept', 0.9)) };
    assert.deepEqual(escalationReasons({ ...base, ballots: honest, decision: 'O1', actualConsensus: 0.9 }), []);
  });
});
