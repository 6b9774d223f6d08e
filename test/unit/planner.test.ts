/**
 * Given a log, when the planner is asked, then the next step is… — one spec per way a meeting
 * ends, in both modes. Pure: no clock, no provider, no store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventBody, TerminationReason } from '@roundtable/protocol';
import { nextStep } from '../../daemon/src/meeting/planner';
import { given, opened, roundSaid } from '../fakes/given';

const consensus = (round: number, level: 'FULL' | 'MAJORITY' | 'NONE'): EventBody => ({
  type: 'consensus_evaluated',
  round,
  level,
  agree: level === 'NONE' ? 1 : 2,
  disagree: level === 'NONE' ? 1 : 0,
  neutral: 0,
  voters: 2,
});
const summary = (round: number): EventBody => ({ type: 'summary_updated', round, text: 'so far', tokens: 2 });
const judged = (round: number, converged?: string): EventBody => ({
  type: 'judge_feedback',
  round,
  text: converged ? `CONVERGED: ${converged}` : 'keep going',
  corrections: [],
  ...(converged ? { converged } : {}),
  tokens: 4,
});

function closesWith(bodies: EventBody[], reason: TerminationReason, detail?: RegExp): void {
  const step = nextStep(given(...bodies));
  assert.equal(step.kind, 'close', `expected a close, got ${step.kind}`);
  if (step.kind !== 'close') return;
  assert.equal(step.reason, reason);
  if (detail) assert.match(step.detail ?? '', detail);
}

describe('nextStep — roundtable mode', () => {
  it('given a new meeting, the assistant briefs first, then round 1 starts', () => {
    assert.deepEqual(nextStep(given(opened()[0] as EventBody)), { kind: 'briefing' });
    assert.deepEqual(nextStep(given(...opened())), { kind: 'start_round', round: 1, final: false });
  });

  it('given a round in progress, the workers who have not spoken are asked', () => {
    const step = nextStep(
      given(...opened(), { type: 'round_started', round: 1, speakers: ['ada', 'grace'], final: false }),
    );
    assert.equal(step.kind, 'turns');
    assert.deepEqual(step.kind === 'turns' ? step.pending : [], ['ada', 'grace']);
  });

  it('given full agreement and a summary, it closes with consensus_full', () => {
    closesWith(
      [...opened(), ...roundSaid(1, { ada: 'AGREE', grace: 'AGREE' }), consensus(1, 'FULL'), summary(1)],
      'consensus_full',
    );
  });

  it('given a majority and a summary, it closes with consensus_majority', () => {
    closesWith(
      [...opened(), ...roundSaid(1, { ada: 'AGREE', grace: 'NEUTRAL' }), consensus(1, 'MAJORITY'), summary(1)],
      'consensus_majority',
    );
  });

  it('given no consensus, the judge reviews before the summary; CONVERGED closes with judge_converged', () => {
    const split = [...opened(), ...roundSaid(1, { ada: 'AGREE', grace: 'DISAGREE' }), consensus(1, 'NONE')];
    assert.equal(nextStep(given(...split)).kind, 'judge');
    closesWith([...split, judged(1, 'the room agrees'), summary(1)], 'judge_converged', /the room agrees/);
  });

  it('writes no summary until a compaction is due, then folds the earlier rounds while the judge reviews this one; never before the last round ends', () => {
    const rounds = (config: Record<string, unknown>) => [
      ...opened({ config }),
      ...roundSaid(1, { ada: 'AGREE', grace: 'DISAGREE' }),
      consensus(1, 'NONE'),
      judged(1),
      ...roundSaid(2, { ada: 'AGREE', grace: 'DISAGREE' }),
      consensus(2, 'NONE'),
    ];
    // Under the threshold: prompts only grow, the judge alone.
    assert.equal(nextStep(given(...rounds({ maxRounds: 3 }))).kind, 'judge');
    // Past it: round 1 is folded in while round 2 is judged.
    const due = nextStep(given(...rounds({ maxRounds: 3, compactAtTokens: 100 })));
    assert.equal(due.kind, 'judge_and_summary');
    assert.deepEqual(due.kind === 'judge_and_summary' ? [due.round.round, due.summarize.round] : [], [2, 1]);
    // The last round: nothing follows but the digest, so no compaction.
    const last = rounds({ maxRounds: 2, compactAtTokens: 100 });
    assert.equal(nextStep(given(...last)).kind, 'judge');
    closesWith([...last, judged(2)], 'max_rounds');
  });

  it('given every worker passed, it closes with all_passed', () => {
    closesWith(
      [...opened({ judge: false }), ...roundSaid(1, { ada: 'PASS', grace: 'PASS' }), consensus(1, 'NONE'), summary(1)],
      'all_passed',
    );
  });

  it('given the last round is done without agreement, it closes with max_rounds', () => {
    closesWith(
      [
        ...opened({ config: { maxRounds: 1 } }),
        ...roundSaid(1, { ada: 'AGREE', grace: 'DISAGREE' }),
        consensus(1, 'NONE'),
        judged(1),
        summary(1),
      ],
      'max_rounds',
    );
  });

  it('given the final round announced at 80% of the budget is done, it closes with budget_exhausted', () => {
    closesWith(
      [
        ...opened(),
        ...roundSaid(1, { ada: 'AGREE', grace: 'DISAGREE' }),
        { type: 'budget_warning', spent: 8000, budget: 10000, finalRound: 1 },
        consensus(1, 'NONE'),
        judged(1),
        summary(1),
      ],
      'budget_exhausted',
      /80%/,
    );
  });

  it('given every worker failed with an error, it closes with error', () => {
    closesWith(
      [
        ...opened(),
        { type: 'round_started', round: 1, speakers: ['ada', 'grace'], final: false },
        ...['ada', 'grace'].flatMap((w): EventBody[] => [
          { type: 'turn_failed', round: 1, participant: w, reason: 'error', detail: 'HTTP 500' },
          { type: 'stance_recorded', round: 1, participant: w, stance: 'UNKNOWN', passed: false },
        ]),
      ],
      'error',
      /HTTP 500/,
    );
  });

  it('given a logged cut (a human, the budget or the time limit), it closes at once with that reason', () => {
    const midRound = [
      ...opened(),
      { type: 'round_started', round: 1, speakers: ['ada', 'grace'], final: false } satisfies EventBody,
    ];
    for (const reason of ['cut', 'time_limit', 'budget_exhausted'] as const) {
      closesWith(
        [...midRound, { type: 'close_requested', reason, detail: `why: ${reason}`, graceful: false }],
        reason,
        /why/,
      );
    }
  });

  it('given a graceful close, the round in progress finishes and the next one does not start', () => {
    const ask: EventBody = { type: 'close_requested', reason: 'cut', detail: 'closed by the human', graceful: true };
    const during = [
      ...opened({ config: { maxRounds: 5 } }),
      { type: 'round_started', round: 1, speakers: ['ada'], final: false } satisfies EventBody,
      ask,
    ];
    assert.equal(nextStep(given(...during)).kind, 'turns');
    closesWith(
      [
        ...opened({ config: { maxRounds: 5 } }),
        ...roundSaid(1, { ada: 'AGREE', grace: 'DISAGREE' }),
        ask,
        consensus(1, 'NONE'),
        judged(1),
        summary(1),
      ],
      'cut',
      /closed by the human/,
    );
  });

  it('given a closed meeting, the digest is next, then nothing', () => {
    const closed: EventBody[] = [...opened(), { type: 'meeting_closed', reason: 'cut' }];
    assert.deepEqual(nextStep(given(...closed)), { kind: 'digest' });
  });
});

describe('nextStep — consensus mode', () => {
  const options: EventBody = {
    type: 'options_set',
    options: [
      { id: 'O1', label: 'Postgres' },
      { id: 'O2', label: 'SQLite' },
    ],
    source: 'user',
  };
  const voted = (round: number): EventBody[] => [
    { type: 'round_started', round, speakers: ['ada', 'grace'], final: true },
    ...['ada', 'grace'].map((w): EventBody => ({
      type: 'ballot_recorded',
      round,
      worker: w,
      votes: [],
      valid: true,
      retried: false,
      tokens: 5,
    })),
  ];
  const verdict = (round: number, reasons: string[]): EventBody => ({
    type: 'verdict_computed',
    round,
    results: [],
    ...(reasons.length === 0 ? { decision: 'O1' } : {}),
    actualConsensus: 0.9,
    consensusThreshold: 0.7,
    conflicts: [],
    reasons,
    final: true,
  });
  const base = [...opened({ mode: 'consensus' }), options];

  it('given no options, the workers propose them first', () => {
    assert.equal(nextStep(given(...opened({ mode: 'consensus' }))).kind, 'propose');
  });

  it('given ballots that settle it, it closes with verdict_reached', () => {
    closesWith([...base, ...voted(1), verdict(1, [])], 'verdict_reached', /O1/);
  });

  it('given a final verdict that needs the human, it escalates, then waits', () => {
    const split = [...base, ...voted(1), verdict(1, ['too close to call'])];
    assert.equal(nextStep(given(...split)).kind, 'escalate');
    assert.equal(nextStep(given(...split, { type: 'escalated', reasons: ['too close to call'] })).kind, 'await_human');
  });

  it('given the human picks an option, it closes with human_decided; defers, with deferred', () => {
    const waiting = [
      ...base,
      ...voted(1),
      verdict(1, ['too close']),
      { type: 'escalated', reasons: ['too close'] } satisfies EventBody,
    ];
    closesWith([...waiting, { type: 'human_resolved', action: 'pick', option: 'O2' }], 'human_decided', /O2/);
    closesWith([...waiting, { type: 'human_resolved', action: 'defer' }], 'deferred');
  });

  it('given a graceful close while waiting for the human, it closes', () => {
    const waiting = [
      ...base,
      ...voted(1),
      verdict(1, ['too close']),
      { type: 'escalated', reasons: ['too close'] } satisfies EventBody,
    ];
    closesWith(
      [...waiting, { type: 'close_requested', reason: 'cut', detail: 'closed by the human', graceful: true }],
      'cut',
    );
  });
});
