/**
 * The steps of a review (a consensus meeting with `config.review`) that differ from a decision's:
 * each reviewer proposes findings alone; the findings are merged, checked mechanically (refuted
 * ones never reach the ballot) and set as the options; the verdict covers the findings voted on
 * and records the refuted ones as REFUTED without a vote. A review never waits for the human.
 */
import type {
  ConsensusOption,
  Evidence,
  Finding,
  OptionVote,
  MeetingState,
  OptionResult,
  Participant,
  ReviewScope,
  RoundState,
  Verdict,
} from '@roundtable/protocol';
import { findingLabel, lineSpan, reviewQuorum, workersOf } from '@roundtable/protocol';
import type { CallOutcome } from '../../modelCall';
import { ballotOptions, reviewOptions } from '../../reviewFindings';
import { readFindings, type FindingsRead } from '../../reviewReply';
import type { ReviewReadContext } from '../../reviewFinding';
import { normalizeStatus } from '../../../decisions/status';
import type { Step } from '../../steps';
import { decide, findConflicts, optionResult } from '../../verdict';
import { reviewBallotPrompt } from '../../reviewPrompts';
import type { StepContext } from '../types';
import { castBallot, recordUnasked } from './ballot';

/** What a reviewer's reply is read against: the change, the rulebook (accepted records first), the workspace. */
export function readContext(s: MeetingState, scope: ReviewScope): ReviewReadContext {
  const accepted = (d: ReviewScope['decisions'][number]) => normalizeStatus(d.status) === 'accepted';
  return {
    changed: scope.changed,
    decisions: [...scope.decisions.filter(accepted), ...scope.decisions.filter((d) => !accepted(d))].map((d) => d.id),
    ...(s.workspace ? { root: s.workspace } : {}),
  };
}

function read(run: StepContext, r: CallOutcome, scope: ReviewScope): FindingsRead | undefined {
  if (!r.ok) return undefined;
  return readFindings(r.result.text, readContext(run.state, scope), { cut: r.result.finishReason === 'length' });
}

/**
 * One reviewer's findings, from its reply to the proposal call. A clean review must be said (an
 * empty list, or "LGTM" with no list). A reply that holds no list, or only part of one (cut off by
 * the token cap, or findings that name no file, line or claim), is asked once more, saying what
 * was wrong; still not whole, and the reviewer failed (exit 3). The findings it did write are
 * proposed either way: a failed reviewer's complete findings still reach the vote.
 */
export async function recordFindings(
  run: StepContext,
  name: string,
  first: CallOutcome,
  askAgain: (reply: string, why: string) => Promise<CallOutcome>,
  scope: ReviewScope,
): Promise<void> {
  let r = first;
  let got = read(run, r, scope);
  const kept: Finding[] = got && got.read !== 'none' ? [...got.findings] : [];
  if (r.ok && got && got.read !== 'complete') {
    r = await askAgain(r.result.text, got.why);
    if (run.halted) return;
    got = read(run, r, scope);
    if (got && got.read !== 'none') kept.push(...got.findings);
  }
  if (!r.ok) await run.failTurn(0, name, r);
  else if (got && got.read !== 'complete')
    await run.failTurn(0, name, {
      ok: false,
      reason: 'error',
      error: `its findings could not be read, asked twice: ${got.why}`,
    });
  await run.emit({ type: 'options_proposed', worker: name, options: kept.map(findingLabel), findings: kept });
}

/** The findings merged and checked, set as the options (none at all is a clean review, not an error). */
export async function setReviewOptions(run: StepContext, scope: ReviewScope): Promise<void> {
  const s = run.state;
  const byReviewer = workersOf(s).map((w): [string, Finding[]] => [w.name, s.proposedFindings?.[w.name] ?? []]);
  await run.emit({ type: 'options_set', options: reviewOptions(byReviewer, scope, s.workspace), source: 'proposed' });
}

/**
 * A reviewer's own finding counts as its accept, at this confidence (weight 0.5, see verdict.ts),
 * the finding's own lines as its evidence: it is never asked to vote on what it proposed.
 */
const PROPOSAL_CONFIDENCE = 0.8;

/** The accept a reviewer's proposal of this finding counts as. */
export function proposalVote(o: ConsensusOption, f: Finding): OptionVote {
  const lines = lineSpan(f.lines);
  return {
    option: o.id,
    vote: 'accept',
    confidence: PROPOSAL_CONFIDENCE,
    rationale: 'proposed this finding',
    evidence: [{ file: f.file, section: lines, type: 'code', status: 'unchecked' }],
    proposed: true,
  };
}

const proposers = (o: ConsensusOption): string[] => o.finding?.proposedBy ?? [];

/** The findings open for a vote in round `r`: every standing finding in the first; in a challenge round, those the round before left CONTESTED. */
function openFindings(s: MeetingState, r: RoundState): ConsensusOption[] {
  const standing = ballotOptions(s.options);
  const before = s.rounds.find((x) => x.round === r.round - 1)?.verdict;
  if (!before) return standing;
  const contested = new Set(before.results.filter((x) => x.verdict === 'CONTESTED').map((x) => x.option));
  const open = standing.filter((o) => contested.has(o.id));
  // A round asked for after a verdict that left nothing contested votes on every finding again.
  return open.length > 0 ? open : standing;
}

/** The worst the votes not yet cast can be for a finding: a reject at full confidence, with evidence. */
function worstVote(option: string): OptionVote {
  return {
    option,
    vote: 'reject',
    confidence: 1,
    rationale: 'not cast yet',
    evidence: [{ file: '', status: 'exists' }],
  };
}

/**
 * Whether a finding's verdict no longer depends on the votes still to be cast in round `r`: it is
 * PROVEN even if every reviewer still to vote rejected it at full confidence with evidence, and is
 * counted from the quorum already. A vote on it would decide nothing, so none is asked. `own`
 * holds each proposer's accept, its evidence checked. Once settled a finding stays settled (a vote
 * cast can only be better for it than the worst assumed), so the order reviewers vote in cannot
 * settle a finding that every vote would not have proven.
 */
function settledFinding(
  s: MeetingState,
  r: RoundState,
  o: ConsensusOption,
  own: (o: ConsensusOption, reviewer: string) => OptionVote,
): boolean {
  const by = proposers(o);
  const cast = Object.entries(r.ballots).flatMap(([w, b]) =>
    b.votes.filter((v) => v.option === o.id).map((v) => ({ w, v })),
  );
  const waiting = by.filter((w) => !r.ballots[w]).map((w) => own(o, w));
  const toVote = r.speakers.filter((w) => !r.ballots[w] && !by.includes(w)).map(() => worstVote(o.id));
  const result = optionResult(o.id, [...cast.map((c) => c.v), ...waiting, ...toVote], r.speakers.length);
  const positions = new Set([...by, ...cast.filter((c) => !c.v.unread).map((c) => c.w)]);
  return result.verdict === 'PROVEN' && positions.size >= reviewQuorum(workersOf(s).length);
}

/**
 * One reviewer's ballot in a review: its own findings stand as its accepts; it is asked to vote
 * only on the other findings open in this round whose verdict its vote can still change (not
 * settled by the proposals and the ballots recorded before it). Asked nothing, it makes no call:
 * its accepts are recorded as its ballot. Reviewers vote one after another, so each ballot is
 * asked knowing which findings the ones before it settled.
 */
export async function reviewBallot(run: StepContext, round: RoundState, me: Participant): Promise<void> {
  const s = run.state;
  const options = openFindings(s, round);
  const checker = run.deps.checkEvidence;
  // A proposal's evidence is its finding's file: checked once per file.
  const status = new Map<string, Evidence['status']>();
  for (const o of options) {
    const file = o.finding?.file;
    if (file !== undefined && !status.has(file)) status.set(file, checker ? await checker(file) : 'unchecked');
  }
  const own = (o: ConsensusOption): OptionVote => {
    const v = proposalVote(o, o.finding as Finding);
    return { ...v, evidence: v.evidence.map((e) => ({ ...e, status: status.get(e.file) ?? 'unchecked' })) };
  };
  const mine = options.filter((o) => proposers(o).includes(me.name)).map(own);
  const asked = options.filter((o) => !proposers(o).includes(me.name) && !settledFinding(s, round, o, own));
  if (asked.length === 0) return recordUnasked(run, round, me, mine);
  await castBallot(run, {
    round,
    me,
    options: asked,
    prompt: reviewBallotPrompt(s, me, round, asked),
    share: 1,
    review: true,
    own: mine,
  });
}

/** A result with no vote counted, with the verdict given. */
export function bareResult(option: string, verdict: Verdict): OptionResult {
  const zero = { accept: 0, reject: 0, abstain: 0, weightedAccept: 0, weightedReject: 0 };
  return { option, verdict, ...zero, evidenceFor: 0, evidenceAgainst: 0 };
}

/** Results of the findings refuted before the vote: REFUTED, with no vote. */
function refutedResults(options: ConsensusOption[]): OptionResult[] {
  return options.filter((o) => o.finding?.refuted !== undefined).map((o) => bareResult(o.id, 'REFUTED'));
}

/**
 * A review's verdict after round `r`: each finding open in it judged from its votes (no decision
 * between findings), the others' verdicts carried as they stood (so the last verdict holds every
 * finding's), the refuted ones REFUTED. Another round only for findings left CONTESTED, while
 * challenge rounds are left; a review never escalates.
 */
export async function reviewVerdict(run: StepContext, r: RoundState): Promise<void> {
  const s = run.state;
  const open = openFindings(s, r);
  const votes = Object.values(r.ballots).flatMap((b) => b.votes);
  const judged = open.map((o) => optionResult(o.id, votes, r.speakers.length));
  const ids = new Set(open.map((o) => o.id));
  const before = s.rounds.find((x) => x.round === r.round - 1)?.verdict?.results ?? [];
  const carried = ballotOptions(s.options).flatMap((o) =>
    ids.has(o.id) ? [] : before.filter((x) => x.option === o.id),
  );
  const byId = new Map([...judged, ...carried, ...refutedResults(s.options)].map((x) => [x.option, x]));
  const results = s.options.flatMap((o) => byId.get(o.id) ?? []);
  const first = s.rounds.find((x) => x.round === 1);
  const reasons = reviewReasons(judged);
  await run.emit({
    type: 'verdict_computed',
    round: r.round,
    results,
    actualConsensus: decide(results).actualConsensus,
    consensusThreshold: s.config.consensusThreshold,
    // Reviewers accepting different findings is no conflict (a change may hold several defects):
    // only disagreement on one finding is.
    conflicts: findConflicts(
      r.ballots,
      open,
      first === r ? undefined : first?.ballots,
      judged,
      'the panel is split: read the finding yourself',
    )
      .filter((c) => c.conflictType === 'contradiction' || c.conflictType === 'scope-difference')
      .map((c, i) => ({ ...c, conflictId: `C${i + 1}` })),
    reasons,
    final: r.final || reasons.length === 0,
  });
}

/** What would take a review to another round: findings the panel neither proved nor refuted. */
function reviewReasons(results: OptionResult[]): string[] {
  const open = results.filter((r) => r.verdict === 'CONTESTED').map((r) => r.option);
  return open.length ? [`contested findings: ${open.join(', ')}`] : [];
}

/**
 * A review's plan where it differs: it closes with no finding to vote on; its reviewers vote one
 * at a time (each knowing what the ballots before it settled); it closes (never escalates) after
 * its verdict.
 */
export function planReview(s: MeetingState, r: RoundState | undefined): Step | undefined {
  const voted = ballotOptions(s.options).length;
  const refuted = s.options.length - voted;
  if (!r && s.optionsSeq > 0 && voted === 0) {
    const failed = Object.keys(s.proposalFailures ?? {}).length;
    // Nobody reviewed: that is no clean review, and reviewOutcome says so (exit 3).
    if (failed > 0 && failed >= workersOf(s).length)
      return { kind: 'close', reason: 'error', detail: `every reviewer failed (${failed})` };
    const detail =
      refuted === 0 ? 'the reviewers found nothing' : `every finding (${refuted}) was refuted before the vote`;
    return { kind: 'close', reason: 'verdict_reached', detail };
  }
  const next = r && !r.verdict ? r.speakers.find((w) => !r.ballots[w]) : undefined;
  if (r && next !== undefined) return { kind: 'ballots', round: r, pending: [next] };
  if (r?.verdict && s.reopenedAfterRound !== r.round && (r.verdict.final || r.verdict.reasons.length === 0)) {
    const detail = `${voted} finding${voted === 1 ? '' : 's'} voted on${refuted ? `, ${refuted} refuted before the vote` : ''}`;
    return { kind: 'close', reason: 'verdict_reached', detail };
  }
  return undefined;
}
