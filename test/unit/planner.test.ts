/**
 * Given a log, when the planner is asked, then the next step is… — one spec per way a meeting
 * ends, in both modes. Pure: no clock, no provider, no store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventBody, TerminationReason } from '@roundtable/protocol';
import { DEFAULT_CONFIG } from '@roundtable/protocol';
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
    // The last round: nothing follows but the digest, so no compaction and no review.
    closesWith(rounds({ maxRounds: 2, compactAtTokens: 100 }), 'max_rounds');
  });

  it('given a round that is the last for a known reason, the judge does not review it: its corrections would reach nobody', () => {
    const split = (round: number) => [
      ...roundSaid(round, { ada: 'AGREE', grace: 'DISAGREE' }),
      consensus(round, 'NONE'),
    ];
    // Max rounds.
    closesWith([...opened({ config: { maxRounds: 1 } }), ...split(1)], 'max_rounds');
    // The final round announced at the 80% budget mark.
    closesWith(
      [
        ...opened({ config: { maxRounds: 5 } }),
        ...split(1),
        judged(1),
        { type: 'budget_warning', spent: 8000, budget: 10000, finalRound: 2 },
        ...split(2),
      ],
      'budget_exhausted',
      /80%/,
    );
    // The extra round a human asked for after the close.
    closesWith(
      [
        ...opened({ config: { maxRounds: 1 } }),
        ...split(1),
        { type: 'meeting_closed', reason: 'max_rounds' },
        { type: 'digest_ready', digest: {} as never, text: 'digest' },
        { type: 'decision_recorded', decision: 'another_round', instruction: 'once more' },
        ...split(2),
      ],
      'max_rounds',
      /extra round/,
    );
    // A graceful close asked for during the round.
    closesWith(
      [
        ...opened({ config: { maxRounds: 5 } }),
        ...split(1),
        { type: 'close_requested', reason: 'cut', detail: 'closed by the human', graceful: true },
      ],
      'cut',
    );
    // Another round follows: the judge reviews.
    assert.equal(nextStep(given(...opened({ config: { maxRounds: 2 } }), ...split(1))).kind, 'judge');
  });

  it('given the same positions three rounds running and no correction of the last, it closes with stable; not before', () => {
    const same = (round: number) => [
      ...roundSaid(round, { ada: 'AGREE', grace: 'DISAGREE' }),
      consensus(round, 'NONE'),
      judged(round),
    ];
    const moved = [...roundSaid(1, { ada: 'NEUTRAL', grace: 'DISAGREE' }), consensus(1, 'NONE'), judged(1)];
    // Round 1 differs: rounds 2 and 3 are one repeat, round 4 the second.
    const three = [...opened({ config: { maxRounds: 8 } }), ...moved, ...same(2), ...same(3)];
    assert.deepEqual(nextStep(given(...three)), { kind: 'start_round', round: 4, final: false });
    closesWith([...three, ...same(4)], 'stable', /unchanged since round 2/);
    // A correction of the last round awaits an answer: the panel speaks once more.
    const corrected = [
      ...three,
      ...roundSaid(4, { ada: 'AGREE', grace: 'DISAGREE' }),
      consensus(4, 'NONE'),
      {
        type: 'judge_feedback',
        round: 4,
        text: '@grace: cite it',
        corrections: [{ worker: 'grace', text: 'cite it' }],
        tokens: 4,
      } satisfies EventBody,
    ];
    assert.equal(nextStep(given(...corrected)).kind, 'start_round');
    // So does a human post made during the round.
    const posted = [
      ...three,
      ...roundSaid(4, { ada: 'AGREE', grace: 'DISAGREE' }),
      { type: 'human_posted', messageId: 'h1', from: 'human', text: 'and the cost?', tokens: 4, round: 4 },
      consensus(4, 'NONE'),
      judged(4),
    ] satisfies EventBody[];
    assert.equal(nextStep(given(...posted)).kind, 'start_round');
    // Stable but not yet reviewed: the judge first, then the close.
    const unreviewed = [...three, ...roundSaid(4, { ada: 'AGREE', grace: 'DISAGREE' }), consensus(4, 'NONE')];
    assert.equal(nextStep(given(...unreviewed)).kind, 'judge');
    // With no judge, it closes as soon as the positions are in.
    const noJudge = [...opened({ config: { maxRounds: 8 }, judge: false })];
    for (const r of [1, 2, 3]) noJudge.push(...roundSaid(r, { ada: 'AGREE', grace: 'DISAGREE' }), consensus(r, 'NONE'));
    closesWith(noJudge, 'stable', /since round 1/);
  });

  it('given the setting off, or a log written before it, positions that stopped moving do not end the meeting', () => {
    const rounds = [1, 2, 3].flatMap((r) => [
      ...roundSaid(r, { ada: 'AGREE', grace: 'DISAGREE' }),
      consensus(r, 'NONE'),
      judged(r),
    ]);
    const off = opened({ config: { maxRounds: 8, stopWhenStable: false } });
    assert.equal(nextStep(given(...off, ...rounds)).kind, 'start_round');
    const { stopWhenStable: _absent, ...before } = { ...DEFAULT_CONFIG, maxRounds: 8 };
    const old = opened();
    assert.ok(old[0]?.type === 'meeting_opened');
    const oldLog = [{ ...old[0], config: before }, ...old.slice(1)] as EventBody[];
    assert.equal(nextStep(given(...oldLog, ...rounds)).kind, 'start_round');
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
