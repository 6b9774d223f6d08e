import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseJudge } from '../../daemon/src/meeting/judge';

describe('judge replies', () => {
  it('treats an empty reply or [CLEAN] as silence', () => {
    assert.deepEqual(parseJudge('', ['ada']), { text: '', corrections: [] });
    assert.deepEqual(parseJudge('  [CLEAN] ', ['ada']), { text: '', corrections: [] });
  });

  it('reads CONVERGED with its reason', () => {
    const v = parseJudge('Good round.\nCONVERGED: all three back option B with the same caveat', ['ada']);
    assert.equal(v.converged, 'all three back option B with the same caveat');
  });

  it('reads corrections addressed to known workers only', () => {
    const v = parseJudge(
      '@ada: claims 40% faster builds without a source — cite the benchmark\nnote: keep going\ngrace: off topic — return to the question',
      ['ada', 'grace'],
    );
    assert.deepEqual(v.corrections, [
      { worker: 'ada', text: 'claims 40% faster builds without a source — cite the benchmark' },
      { worker: 'grace', text: 'off topic — return to the question' },
    ]);
    assert.equal(v.converged, undefined);
  });

  it('does not take a mid-line mention of CONVERGED as convergence', () => {
    assert.equal(parseJudge('ada said "CONVERGED: yes" but that is not so', ['ada']).converged, undefined);
  });

  it('reads a correction to a worker named like the keyword as a correction, never as convergence', () => {
    const v = parseJudge('Converged: you repeat round 1 — answer the new question\n@Converged: cite a source', [
      'ada',
      'Converged',
    ]);
    assert.equal(v.converged, undefined);
    assert.deepEqual(
      v.corrections.map((c) => c.worker),
      ['Converged', 'Converged'],
    );
    const own = parseJudge('@Converged: cite a source\nCONVERGED: everyone backs B', ['Converged']);
    assert.equal(own.converged, 'everyone backs B', "the judge's own line still ends the meeting");
  });
});
