/**
 * What a review concluded and its exit code: 1 only for a finding at or above the bar that the
 * panel PROVED (or, with --fail-on contested, left CONTESTED); 3 with one line when the review
 * could not be done, whatever the findings say; refuted findings are REFUTED without a vote.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  DecisionException,
  Finding,
  MeetingState,
  ReviewScope,
  RoundState,
  TerminationReason,
  Verdict,
} from '@roundtable/protocol';
import { findingLabel, initialState, reviewOutcome } from '@roundtable/protocol';
import { bareResult } from '../../daemon/src/meeting/modes/consensus/review';

const f = (severity: Finding['severity'], file: string, start: number, extra: Partial<Finding> = {}): Finding => ({
  file,
  lines: { start, end: start + 1 },
  severity,
  defect: 'correctness',
  claim: `${severity} in ${file}`,
  ...extra,
});

const result = bareResult;

/** A closed review whose findings got these verdicts in one round (each voted on by ada). */
function review(
  findings: [Finding, Verdict | undefined][],
  closed: TerminationReason = 'verdict_reached',
  failures: RoundState['failures'] = {},
): MeetingState {
  const options = findings.map(([finding], i) => ({ id: `O${i + 1}`, label: findingLabel(finding), finding }));
  const judged = findings.flatMap(([fd, v], i) => (v && !fd.refuted ? [result(`O${i + 1}`, v)] : []));
  const round: RoundState = {
    round: 1,
    speakers: ['ada'],
    final: true,
    startedAt: 0,
    contributions: {},
    stances: {},
    failures,
    humanPosts: [],
    ballots: {
      ada: {
        valid: true,
        retried: false,
        seq: 5,
        votes: judged.map((r) => ({
          option: r.option,
          vote: 'accept',
          confidence: 0.9,
          rationale: 'holds',
          evidence: [],
        })),
      },
    },
    ...(judged.length
      ? {
          verdict: {
            results: judged,
            actualConsensus: 0,
            consensusThreshold: 0.8,
            conflicts: [],
            reasons: [],
            final: true,
          },
        }
      : {}),
  };
  return {
    ...initialState(),
    mode: 'consensus',
    status: 'closed',
    closed: { reason: closed },
    options,
    optionsSeq: 4,
    rounds: judged.length || Object.keys(failures).length ? [round] : [],
  };
}

describe('reviewOutcome', () => {
  it('fails at each bar only for what reaches it', () => {
    const majorProven = review([
      [f('major', 'src/a.ts', 3), 'PROVEN'],
      [f('blocking', 'src/b.ts', 3), 'REFUTED'],
    ]);
    assert.equal(reviewOutcome(majorProven, 'blocking').exit, 0);
    assert.equal(reviewOutcome(majorProven, 'major').exit, 1);
    const blockingContested = review([
      [f('blocking', 'src/a.ts', 3), 'CONTESTED'],
      [f('minor', 'src/b.ts', 3), 'PROVEN'],
    ]);
    assert.equal(reviewOutcome(blockingContested, 'major').exit, 0);
    assert.equal(reviewOutcome(blockingContested, 'contested').exit, 1);
    assert.equal(reviewOutcome(review([[f('blocking', 'src/a.ts', 3), 'PROVEN']]), 'blocking').exit, 1);
  });

  it('lists findings by severity, file and line, with verdicts and votes; refuted ones REFUTED with no vote', () => {
    const out = reviewOutcome(
      review([
        [f('minor', 'src/a.ts', 3), 'PROVEN'],
        [f('blocking', 'src/b.ts', 9), 'PROVEN'],
        [f('blocking', 'src/b.ts', 2, { refuted: 'lines 2-3 of src/b.ts are not in the change' }), undefined],
        [f('blocking', 'src/a.ts', 40), 'INSUFFICIENT_EVIDENCE'],
      ]),
      'blocking',
    );
    assert.deepEqual(
      out.findings.map((x) => [x.id, x.severity, x.file, x.lines.start, x.verdict, x.votes.length]),
      [
        ['O4', 'blocking', 'src/a.ts', 40, 'INSUFFICIENT_EVIDENCE', 1],
        ['O3', 'blocking', 'src/b.ts', 2, 'REFUTED', 0],
        ['O2', 'blocking', 'src/b.ts', 9, 'PROVEN', 1],
        ['O1', 'minor', 'src/a.ts', 3, 'PROVEN', 1],
      ],
    );
    assert.deepEqual(out.findings[2]?.votes, [{ worker: 'ada', vote: 'accept', confidence: 0.9, rationale: 'holds' }]);
    assert.equal(out.exit, 1);
    assert.equal(out.why, undefined);
  });

  it('is clean with no finding, or with every finding refuted before the vote', () => {
    assert.deepEqual(reviewOutcome(review([]), 'contested'), { findings: [], exit: 0 });
    const refuted = review([[f('blocking', 'src/a.ts', 3, { refuted: 'src/a.ts is not in the change' }), undefined]]);
    assert.equal(reviewOutcome(refuted, 'contested').exit, 0);
  });

  it('is exit 3, never 1, when a reviewer failed or the meeting ended before the verdicts', () => {
    const timedOut = {
      ...review([[f('blocking', 'src/a.ts', 3), 'PROVEN']]),
      proposalFailures: { grace: { reason: 'timeout' as const, detail: 'no reply within 50 ms\nsecond line' } },
    };
    const out = reviewOutcome(timedOut, 'blocking');
    assert.equal(out.exit, 3);
    assert.equal(out.why, "grace's proposal call failed (timeout: no reply within 50 ms second line)");
    const ballotDown = review([[f('blocking', 'src/a.ts', 3), 'PROVEN']], 'verdict_reached', {
      linus: { reason: 'error', detail: '429 rate limited' },
    });
    assert.match(reviewOutcome(ballotDown, 'blocking').why ?? '', /^linus's ballot in round 1 failed \(error: 429/);
    const spent = review([[f('blocking', 'src/a.ts', 3), undefined]], 'budget_exhausted');
    assert.equal(reviewOutcome(spent, 'blocking').exit, 3);
    assert.match(reviewOutcome(spent, 'blocking').why ?? '', /budget_exhausted.*before every finding had a verdict/);
    const noOptions = {
      ...review([], 'error'),
      optionsSeq: 0,
      closed: { reason: 'error' as const, detail: 'no model' },
    };
    assert.equal(reviewOutcome(noOptions, 'blocking').exit, 3);
    assert.equal(reviewOutcome({ ...review([]), status: 'running', closed: undefined }, 'blocking').exit, 3);
  });

  it('an exception of the change waives an upheld finding on its decision: the verdict kept beside it, no bar failed', () => {
    const onDecision = (d: string, start: number, extra: Partial<Finding> = {}) =>
      f('blocking', 'services/db.ts', start, { defect: undefined, decision: d, ...extra });
    const state = review([
      [onDecision('0001', 2), 'PROVEN'],
      [onDecision('0001', 9), 'CONTESTED'],
      [onDecision('0001', 20, { refuted: 'lines 20-21 of services/db.ts are not in the change' }), undefined],
      [onDecision('0003', 30), 'PROVEN'],
    ]);
    const commit = 'c'.repeat(40);
    const exceptions: DecisionException[] = [
      { decision: '0001', reason: 'moving to MySQL this quarter', from: 'commit ccccccc', commit },
      { decision: '0002', reason: 'reports stay on SQLite', from: 'pull request #7' },
      { decision: '0003', reason: '', from: 'pull request #7', invalid: 'gives no reason' },
    ];
    const scope: ReviewScope = { changed: [], decisions: [], exceptions };
    const withScope = (s: MeetingState): MeetingState => ({ ...s, config: { ...s.config, review: scope } });
    const out = reviewOutcome(withScope(state), 'contested');
    const byId = new Map(out.findings.map((x) => [x.id, x]));
    assert.deepEqual(byId.get('O1')?.waived, {
      reason: 'moving to MySQL this quarter',
      from: 'commit ccccccc',
      commit,
    });
    assert.equal(byId.get('O1')?.verdict, 'PROVEN');
    assert.ok(byId.get('O2')?.waived, 'a CONTESTED finding on the decision is waived too');
    assert.equal(byId.get('O3')?.waived, undefined, 'a refuted finding needs no waiver');
    assert.equal(byId.get('O4')?.waived, undefined, 'an invalid exception waives nothing');
    assert.deepEqual(
      out.exceptions?.map((e) => [e.decision, e.use, e.findings]),
      [
        ['0001', 'waived', ['O1', 'O2']],
        ['0002', 'unused', []],
        ['0003', 'invalid', []],
      ],
    );
    // O4 (0003, PROVEN, its exception invalid) still fails the review.
    assert.equal(out.exit, 1);
    const waivedOnly = review([[onDecision('0001', 2), 'PROVEN']]);
    assert.equal(reviewOutcome(withScope(waivedOnly), 'blocking').exit, 0);
    assert.equal(reviewOutcome(waivedOnly, 'blocking').exit, 1);
  });

  it('a rulebook a bound left unread is exit 3 with one line: a rule for the change may be among the records', () => {
    const scope: ReviewScope = {
      changed: [],
      decisions: [],
      rules: {
        commit: 'a'.repeat(40),
        label: 'main (merge base aaaaaaa)',
        folder: 'docs/decisions',
        unread: [{ path: 'docs/decisions/9999-last.md', reason: 'was not read: past the 32,000,000 bytes' }],
      },
    };
    const s = review([]);
    const out = reviewOutcome({ ...s, config: { ...s.config, review: scope } }, 'blocking');
    assert.equal(out.exit, 3);
    assert.match(
      out.why ?? '',
      /^1 decision record file\(s\) at main \(merge base aaaaaaa\) were not read \(docs\/decisions\/9999-last\.md was not read/,
    );
  });
});
