import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDigestReply } from '../../daemon/src/meeting/digestReply';

describe('digest reply', () => {
  it('reads the three documented lines', () => {
    assert.deepEqual(parseDigestReply('CONSENSUS_STATEMENT: Ship B.\nCONTRIBUTORS: ada proposed B\nDISSENT: none'), {
      consensusStatement: 'Ship B.',
      contributors: 'ada proposed B',
      dissent: 'none',
    });
  });

  it('reads bold labels, spaces for underscores and any case', () => {
    assert.deepEqual(
      parseDigestReply(
        '**CONSENSUS_STATEMENT:** Ship B.\n**Contributors**: ada proposed B\n**dissent:** grace held back on cost',
      ),
      { consensusStatement: 'Ship B.', contributors: 'ada proposed B', dissent: 'grace held back on cost' },
    );
    assert.equal(parseDigestReply('Consensus statement: Ship B.').consensusStatement, 'Ship B.');
  });

  it('reads headings with the text on the lines below, up to the next heading or label', () => {
    const reply = [
      '## CONSENSUS_STATEMENT',
      '',
      'The room chose B',
      'for its write throughput.',
      '',
      '## Contributors',
      '- ada proposed B',
      '- grace countered with A',
      '**Dissent:**',
      'grace, on cost.',
    ].join('\n');
    assert.deepEqual(parseDigestReply(reply), {
      consensusStatement: 'The room chose B for its write throughput.',
      contributors: 'ada proposed B; grace countered with A',
      dissent: 'grace, on cost.',
    });
  });

  it('reads section headings that plainly name a field, a deeper heading below them as text', () => {
    const reply = [
      '# Decision Summary',
      '## Consensus',
      '',
      'The council reached strong agreement on the following points:',
      '',
      '**1. Rules must dominate.**',
      '',
      '## Unresolved Disagreements',
      '',
      '### 1. LLM fallback: include or exclude?',
      '',
      '**For LLM fallback:** names are too chaotic.',
      '',
      '## Recommended Decision',
      '…',
    ].join('\n');
    assert.deepEqual(parseDigestReply(reply), {
      consensusStatement: 'The council reached strong agreement on the following points:',
      dissent: 'LLM fallback: include or exclude?',
    });
    assert.deepEqual(parseDigestReply('### Verdict\nShip B.\n\n**Dissenting views**\ngrace, on cost.'), {
      consensusStatement: 'Ship B.',
      dissent: 'grace, on cost.',
    });
    assert.deepEqual(parseDigestReply('## Decision\nShip A.\n\n## Final decision\nShip B.\n## Disagreements\nnone'), {
      consensusStatement: 'Ship B.',
      dissent: 'none',
    });
    assert.equal(
      parseDigestReply('## Decision\nShip B.\n## Consensus statement\nThe room chose B.').consensusStatement,
      'The room chose B.',
      'the consensus statement outranks a decision heading',
    );
  });

  it('never reads a statement from an arbitrary heading, or a section name inside a line', () => {
    assert.deepEqual(parseDigestReply('## Overall Read\n\nClaude won most pairs.'), {});
    assert.deepEqual(parseDigestReply('## Recommended Decision\nShip B.'), {});
    assert.deepEqual(parseDigestReply('- Decision: postponed\nVerdict: unclear\nDisagreements: many'), {});
  });

  it('takes the last occurrence, so a restated template loses to the answer', () => {
    const reply = [
      'I will fill in:',
      'CONSENSUS_STATEMENT: <one sentence: the position the room landed on>',
      'CONTRIBUTORS: <who contributed what>',
      'DISSENT: <who disagreed>',
      '',
      'CONSENSUS_STATEMENT: Ship B.',
      'CONTRIBUTORS: ada proposed B',
      'DISSENT: none',
    ].join('\n');
    assert.deepEqual(parseDigestReply(reply), {
      consensusStatement: 'Ship B.',
      contributors: 'ada proposed B',
      dissent: 'none',
    });
    assert.deepEqual(parseDigestReply('CONSENSUS_STATEMENT: <one sentence>'), {}, 'a bare template is no statement');
  });

  it('prefers CONSENSUS_STATEMENT over a bare CONSENSUS line, and reads nothing from prose', () => {
    assert.equal(parseDigestReply('CONSENSUS_STATEMENT: Ship B.\nCONSENSUS: PARTIAL').consensusStatement, 'Ship B.');
    assert.equal(parseDigestReply('CONSENSUS: Ship B.').consensusStatement, 'Ship B.');
    assert.deepEqual(parseDigestReply('Consensus was reached quickly; dissent was mild.'), {});
  });
});
