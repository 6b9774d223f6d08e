/** Given a state, when an event is folded, then a new state — the old one and the event untouched. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventBody, MeetingEvent, MeetingState } from '@roundtable/protocol';
import { evolve, fold, initialState, reduce } from '@roundtable/protocol';
import { logOf, opened, roundSaid } from '../fakes/given';

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/** Every event type, in a log that folds without a gap. */
const everything: EventBody[] = [
  ...opened({ mode: 'consensus' }),
  { type: 'participant_joined', participant: { name: 'zoe', role: 'worker', provider: 'attached', model: 'a' } },
  { type: 'options_proposed', worker: 'ada', options: ['Postgres'] },
  {
    type: 'options_set',
    options: [
      { id: 'O1', label: 'Postgres' },
      { id: 'O2', label: 'SQLite' },
    ],
    source: 'user',
  },
  { type: 'human_posted', messageId: 'h-0', from: 'human', text: 'early', tokens: 1, round: 0 },
  ...roundSaid(1, { ada: 'AGREE', grace: 'DISAGREE' }),
  { type: 'turn_failed', round: 1, participant: 'zoe', reason: 'timeout', detail: 'slow' },
  { type: 'consensus_evaluated', round: 1, level: 'NONE', agree: 1, disagree: 1, neutral: 0, voters: 2 },
  { type: 'judge_feedback', round: 1, text: '@ada: cite', corrections: [{ worker: 'ada', text: 'cite' }], tokens: 3 },
  { type: 'summary_updated', round: 1, text: 'sum', tokens: 1 },
  { type: 'budget_warning', spent: 80, budget: 100, finalRound: 2 },
  {
    type: 'usage_recorded',
    participant: 'ada',
    role: 'worker',
    purpose: 'turn',
    usage: { promptTokens: 5, completionTokens: 2, source: 'estimate' },
  },
  { type: 'human_posted', messageId: 'h-1', from: 'human', text: 'hi', tokens: 1, round: 1 },
  {
    type: 'ballot_recorded',
    round: 1,
    worker: 'ada',
    votes: [
      { option: 'O1', vote: 'accept', confidence: 0.8, rationale: 'r', evidence: [{ file: 'a.md', status: 'exists' }] },
    ] as never,
    valid: true,
    retried: false,
    tokens: 4,
  },
  {
    type: 'verdict_computed',
    round: 1,
    results: [],
    actualConsensus: 0.5,
    consensusThreshold: 0.7,
    conflicts: [],
    reasons: ['close'],
    final: true,
  },
  { type: 'escalated', reasons: ['close'] },
  { type: 'human_resolved', action: 'another_round', instruction: 'again' },
  { type: 'meeting_interrupted', detail: 'restart' },
  { type: 'close_requested', reason: 'time_limit', detail: 'late', graceful: false },
  { type: 'meeting_closed', reason: 'time_limit', detail: 'late' },
  { type: 'digest_ready', digest: { consensus: 'x' } as never, text: 'digest' },
  { type: 'decision_recorded', decision: 'another_round', instruction: 'more' },
];

describe('evolve', () => {
  it('given any state, when any event is folded, then neither the state nor the event is changed', () => {
    const log = logOf(everything);
    let s: MeetingState = deepFreeze(initialState());
    for (const e of log) {
      const before = JSON.stringify(s);
      deepFreeze(e);
      // Frozen inputs: any write would throw in strict mode.
      const next = evolve(s, e);
      assert.equal(JSON.stringify(s), before, `${e.type} changed the state it read`);
      assert.notEqual(next, s, `${e.type} returned the same object`);
      s = deepFreeze(next);
    }
    assert.equal(s.lastSeq, log.length);
  });

  it('given an event folded, then the state shares no object with it', () => {
    const log = logOf(everything);
    const s = fold(log);
    const seen = new Set<unknown>();
    const walk = (v: unknown): void => {
      if (!v || typeof v !== 'object' || seen.has(v)) return;
      seen.add(v);
      Object.values(v).forEach(walk);
    };
    walk(s);
    const shared: string[] = [];
    const check = (v: unknown, where: string): void => {
      if (!v || typeof v !== 'object') return;
      if (seen.has(v)) shared.push(where);
      for (const [k, x] of Object.entries(v)) check(x, `${where}.${k}`);
    };
    for (const e of log) check(e, e.type);
    assert.deepEqual(shared, []);
  });

  it('given a logged close request, then it is in the state until the meeting closes', () => {
    const asked = fold(
      logOf([...opened(), { type: 'close_requested', reason: 'cut', detail: 'closed by the human', graceful: true }]),
    );
    assert.deepEqual(asked.closeRequest, { reason: 'cut', detail: 'closed by the human', graceful: true });
    const cutToo = fold(
      logOf([
        ...opened(),
        { type: 'close_requested', reason: 'cut', detail: 'closed by the human', graceful: true },
        { type: 'close_requested', reason: 'time_limit', graceful: false },
      ]),
    );
    assert.equal(cutToo.closeRequest?.reason, 'time_limit', 'a cut overrides a waiting graceful close');
    const closed = fold(
      logOf([
        ...opened(),
        { type: 'close_requested', reason: 'cut', graceful: false },
        { type: 'meeting_closed', reason: 'cut' },
      ]),
    );
    assert.equal(closed.closeRequest, undefined);
  });

  it('given a gap in the log, then folding refuses it; reduce is the same function', () => {
    const [first] = logOf(opened());
    assert.throws(() => evolve(initialState(), { ...(first as MeetingEvent), seq: 2 }), /gap/);
    assert.equal(reduce, evolve);
  });
});
