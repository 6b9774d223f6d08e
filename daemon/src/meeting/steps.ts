/**
 * The steps a meeting is made of. The planner picks the next one from the state alone; the
 * runner performs it. Steps shared by every mode are listed here; each mode adds its own.
 */
import type { RoundState, TerminationReason } from '@roundtable/protocol';

/** Steps every mode has: the opening briefing, rounds, the close and the digest. */
export type CommonStep =
  | { kind: 'briefing' }
  | { kind: 'start_round'; round: number; final: boolean }
  | { kind: 'close'; reason: TerminationReason; detail?: string }
  | { kind: 'digest' }
  | { kind: 'done' }
  | { kind: 'await_human' };

/**
 * Roundtable mode: workers speak, stances are read, then the judge reviews the round while the
 * assistant folds the round before it into the rolling summary (`summary.round` is the round
 * summarised, one behind the round being judged).
 */
export type RoundtableStep =
  | { kind: 'turns'; round: RoundState; pending: string[] }
  | { kind: 'stance'; round: RoundState; worker: string }
  | { kind: 'consensus'; round: RoundState }
  | { kind: 'judge'; round: RoundState }
  | { kind: 'summary'; round: RoundState }
  | { kind: 'judge_and_summary'; round: RoundState; summarize: RoundState };

/** Consensus mode: options are proposed, ballots cast, verdicts computed, escalations raised. */
export type ConsensusStep =
  | { kind: 'propose'; pending: string[] }
  | { kind: 'set_options' }
  | { kind: 'ballots'; round: RoundState; pending: string[] }
  | { kind: 'verdict'; round: RoundState }
  | { kind: 'escalate'; round: RoundState };

export type ModeStep = RoundtableStep | ConsensusStep;
export type Step = CommonStep | ModeStep;

const COMMON: ReadonlySet<string> = new Set<CommonStep['kind']>([
  'briefing',
  'start_round',
  'close',
  'digest',
  'done',
  'await_human',
]);

export function isCommonStep(step: Step): step is CommonStep {
  return COMMON.has(step.kind);
}
