/**
 * "Round 2 of 10" as the status bar, the room and the Meetings view say it: a consensus meeting
 * (a review too) counts its vote and challenge rounds, never `maxRounds`, which does not bound it
 * (a review in code-server said "round 3 of 2" while it voted); a round the human asked for after
 * the digest, or a round the budget announced as the last, moves the count with it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventBody, ReviewScope } from '@roundtable/protocol';
import { plannedRounds, roundLabel, roundLimit, summaryOf } from '@roundtable/protocol';
import { outcomeOf } from '../../extension/src/meetingStatus';
import { given, opened, roundSaid } from '../fakes/given';

const round = (n: number, final = false): EventBody => ({
  type: 'round_started',
  round: n,
  speakers: ['ada', 'grace'],
  final,
});
const scope: ReviewScope = {
  changed: [{ file: 'src/db.ts', ranges: [{ start: 2, end: 7 }] }],
  decisions: [{ id: '0001', title: 'Postgres', path: 'docs/decisions/0001-postgres.md', status: 'accepted' }],
};
/** As the settings of the e2e review: two rounds for roundtables, the default two challenge rounds. */
const consensus = (review = false) =>
  opened({
    mode: 'consensus',
    judge: false,
    config: { maxRounds: 2, challengeRounds: 2, ...(review ? { review: scope } : {}) },
  });

describe('the round count of a meeting', () => {
  it('a roundtable: its briefing, then round n of maxRounds', () => {
    assert.equal(roundLabel(given(...opened())), 'Briefing');
    assert.equal(
      roundLabel(given(...opened(), ...roundSaid(1, { ada: 'AGREE' }), ...roundSaid(2, { ada: 'AGREE' }))),
      'Round 2 of 10',
    );
  });

  it('a review votes against its challenge rounds, not maxRounds: never "round 3 of 2"', () => {
    assert.equal(roundLabel(given(...consensus(true))), 'Reviewing the change');
    assert.equal(roundLabel(given(...consensus(true), round(1))), 'Vote, round 1 of 3');
    assert.equal(roundLabel(given(...consensus(true), round(1), round(2))), 'Challenge, round 2 of 3');
    const last = given(...consensus(true), round(1), round(2), round(3, true));
    assert.equal(roundLabel(last), 'Challenge, round 3 of 3');
    assert.equal(outcomeOf(summaryOf(last)), 'Round 3 of 3', 'the Meetings view counts the same');
  });

  it('a consensus meeting: its options first, then the vote and the challenge rounds', () => {
    assert.equal(roundLabel(given(...consensus())), 'Proposing options');
    assert.equal(roundLabel(given(...consensus(), round(1))), 'Vote, round 1 of 3');
    const none = opened({ mode: 'consensus', config: { challengeRounds: 0 } });
    assert.equal(roundLabel(given(...none, round(1, true))), 'Vote, round 1 of 1');
  });

  it('a round the human asked for after the digest runs past the plan, and is counted as the last', () => {
    const done: EventBody[] = [
      ...consensus(),
      round(1),
      round(2),
      round(3, true),
      { type: 'meeting_closed', reason: 'verdict_reached' },
    ];
    const again: EventBody[] = [
      ...done,
      { type: 'decision_recorded', decision: 'another_round', instruction: 'again' },
    ];
    assert.equal(roundLabel(given(...again, round(4, true))), 'Challenge, round 4 of 4');
    const table = [...opened({ config: { maxRounds: 2 } }), round(1), round(2, true)];
    const more: EventBody[] = [
      ...table,
      { type: 'decision_recorded', decision: 'another_round', instruction: 'again' },
    ];
    assert.equal(roundLabel(given(...more, round(3, true))), 'Round 3 of 3');
  });

  it('a roundtable whose budget announced its last round counts to that round', () => {
    const warned: EventBody = { type: 'budget_warning', spent: 12_500, budget: 15_000, finalRound: 4 };
    assert.equal(roundLabel(given(...opened(), round(1), round(2), round(3), warned)), 'Round 3 of 4');
    assert.equal(
      roundLimit(given(...consensus(), round(1), warned)),
      3,
      'a consensus meeting runs its challenge rounds',
    );
  });

  it('plans what the engine runs: maxRounds for a roundtable, the vote and its challenge rounds for a consensus', () => {
    assert.equal(plannedRounds('roundtable', { maxRounds: 7, challengeRounds: 2 }), 7);
    assert.equal(plannedRounds('consensus', { maxRounds: 7, challengeRounds: 2 }), 3);
  });
});
