import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StanceCell } from '@roundtable/protocol';
import { evaluateConsensus } from '../../daemon/src/meeting/consensus';

const votes = (...s: StanceCell[]) => s.map((stance) => ({ stance, passed: false }));

describe('consensus', () => {
  it('is FULL when every voter agrees', () => {
    assert.equal(evaluateConsensus(votes('AGREE', 'AGREE', 'AGREE')).level, 'FULL');
  });

  it('is MAJORITY at exactly 2/3 agree with no disagreement', () => {
    const r = evaluateConsensus(votes('AGREE', 'AGREE', 'NEUTRAL'));
    assert.deepEqual(r, { level: 'MAJORITY', agree: 2, disagree: 0, neutral: 1, voters: 3 });
  });

  it('is NONE below 2/3 agree', () => {
    assert.equal(evaluateConsensus(votes('AGREE', 'NEUTRAL', 'NEUTRAL')).level, 'NONE');
    assert.equal(evaluateConsensus(votes('AGREE', 'AGREE', 'NEUTRAL', 'NEUTRAL')).level, 'NONE');
  });

  it('is NONE with any disagreement, however many agree', () => {
    assert.equal(evaluateConsensus(votes('AGREE', 'AGREE', 'AGREE', 'AGREE', 'DISAGREE')).level, 'NONE');
  });

  it('counts UNKNOWN and TIMEOUT as NEUTRAL', () => {
    const r = evaluateConsensus(votes('AGREE', 'AGREE', 'UNKNOWN', 'TIMEOUT'));
    assert.equal(r.neutral, 2);
    assert.equal(r.level, 'NONE');
    assert.equal(evaluateConsensus(votes('AGREE', 'AGREE', 'TIMEOUT')).level, 'MAJORITY');
    assert.equal(evaluateConsensus(votes('AGREE', 'UNKNOWN')).level, 'NONE');
  });

  it('leaves a silent pass out of the vote but counts a pass with a stance', () => {
    const silent = evaluateConsensus([
      { stance: 'AGREE', passed: false },
      { stance: 'AGREE', passed: false },
      { stance: 'PASS', passed: true },
    ]);
    assert.deepEqual([silent.level, silent.voters], ['FULL', 2]);
    const explicit = evaluateConsensus([
      { stance: 'AGREE', passed: false },
      { stance: 'AGREE', passed: false },
      { stance: 'DISAGREE', passed: true },
    ]);
    assert.equal(explicit.level, 'NONE');
  });

  it('never calls one voice a consensus', () => {
    assert.equal(
      evaluateConsensus([
        { stance: 'AGREE', passed: false },
        { stance: 'PASS', passed: true },
      ]).level,
      'NONE',
    );
  });
});
