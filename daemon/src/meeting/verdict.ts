/**
 * Verdicts, weighting, conflicts and escalation of a consensus meeting. All pure and computed
 * from the ballots, so the same log always yields the same report.
 *
 * Weighting (after ReConcile, Chen et al. 2023): a model's stated confidence is poorly
 * calibrated, so it is mapped to a weight in coarse bands before votes are summed:
 *   confidence 1.0 -> 1.0, [0.9, 1.0) -> 0.8, [0.8, 0.9) -> 0.5, [0.6, 0.8) -> 0.3, below 0.6 -> 0.1.
 * Weighted acceptance of an option = sum of accepting weights / sum of weights of all workers who
 * did not abstain on it (0 when everyone abstained). The same for rejection.
 */
import type { Ballot } from '@roundtable/protocol';
import type {
  Conflict,
  ConflictSeverity,
  ConsensusOption,
  OptionResult,
  OptionVote,
  Verdict,
} from '@roundtable/protocol';

export function calibrated(confidence: number): number {
  if (confidence >= 1) return 1;
  if (confidence >= 0.9) return 0.8;
  if (confidence >= 0.8) return 0.5;
  if (confidence >= 0.6) return 0.3;
  return 0.1;
}

const hasEvidence = (v: OptionVote) => v.evidence.some((e) => e.status === 'exists');

/**
 * One option's verdict from the final votes of all workers (abstentions included):
 * - INSUFFICIENT_EVIDENCE: no vote on either side cites a file that exists.
 * - PROVEN: at least 3/5 of the workers accept, or weighted acceptance is at least 50%, and some
 *   accepting vote cites existing evidence.
 * - REFUTED: weighted rejection is at least 50% (or 3/5 of the workers reject) and some
 *   rejecting vote cites existing counter-evidence.
 * - CONTESTED: anything else — the room is split, or one side has support but no evidence.
 */
export function optionResult(option: string, votes: OptionVote[], workers: number): OptionResult {
  const mine = votes.filter((v) => v.option === option);
  const accepting = mine.filter((v) => v.vote === 'accept');
  const rejecting = mine.filter((v) => v.vote === 'reject');
  const voting = mine.filter((v) => v.vote !== 'abstain');
  const total = voting.reduce((n, v) => n + calibrated(v.confidence), 0);
  const wAccept = total === 0 ? 0 : accepting.reduce((n, v) => n + calibrated(v.confidence), 0) / total;
  const wReject = total === 0 ? 0 : rejecting.reduce((n, v) => n + calibrated(v.confidence), 0) / total;
  const evidenceFor = accepting.reduce((n, v) => n + v.evidence.filter((e) => e.status === 'exists').length, 0);
  const evidenceAgainst = rejecting.reduce((n, v) => n + v.evidence.filter((e) => e.status === 'exists').length, 0);
  let verdict: Verdict;
  if (!mine.some(hasEvidence)) verdict = 'INSUFFICIENT_EVIDENCE';
  else if ((accepting.length * 5 >= workers * 3 || wAccept >= 0.5) && accepting.some(hasEvidence)) verdict = 'PROVEN';
  else if ((rejecting.length * 5 >= workers * 3 || wReject >= 0.5) && rejecting.some(hasEvidence)) verdict = 'REFUTED';
  else verdict = 'CONTESTED';
  return {
    option,
    verdict,
    accept: accepting.length,
    reject: rejecting.length,
    abstain: mine.length - voting.length,
    weightedAccept: round3(wAccept),
    weightedReject: round3(wReject),
    evidenceFor,
    evidenceAgainst,
  };
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/**
 * The option the votes decide for: the PROVEN option with the highest weighted acceptance, if it
 * is strictly ahead of every other PROVEN option. `actualConsensus` is its weighted acceptance
 * (or the best option's when none is decided).
 */
export function decide(results: OptionResult[]): { decision?: string; actualConsensus: number } {
  const proven = results.filter((r) => r.verdict === 'PROVEN').sort((a, b) => b.weightedAccept - a.weightedAccept);
  const best = [...results].sort((a, b) => b.weightedAccept - a.weightedAccept)[0];
  const top = proven[0];
  if (top && (proven.length === 1 || top.weightedAccept > (proven[1]?.weightedAccept ?? 0))) {
    return { decision: top.option, actualConsensus: top.weightedAccept };
  }
  return { actualConsensus: best?.weightedAccept ?? 0 };
}

/**
 * The verdict on the question as a whole: PROVEN when the votes decide for an option, REFUTED
 * when every option with evidence is refuted, INSUFFICIENT_EVIDENCE when no option has any, and
 * CONTESTED otherwise (the room is split: a tie, or options neither proven nor refuted).
 */
export function questionVerdict(results: OptionResult[], decision: string | undefined): Verdict {
  if (decision) return 'PROVEN';
  if (results.every((r) => r.verdict === 'INSUFFICIENT_EVIDENCE')) return 'INSUFFICIENT_EVIDENCE';
  if (results.every((r) => r.verdict === 'REFUTED' || r.verdict === 'INSUFFICIENT_EVIDENCE')) return 'REFUTED';
  return 'CONTESTED';
}

function severityOf(a: number, b: number, bothEvidenced: boolean): ConflictSeverity {
  const weaker = Math.min(a, b);
  if (weaker >= 0.9 && bothEvidenced) return 'critical';
  if (weaker >= 0.7) return 'high';
  if (weaker >= 0.4) return 'medium';
  return 'low';
}

const RANK: Record<ConflictSeverity, number> = { critical: 3, high: 2, medium: 1, low: 0 };

/**
 * Conflicts between workers' final ballots:
 * - per option where some accept and some reject: a `contradiction` when both sides cite a file in
 *   common (they read the same thing differently), a `scope-difference` when their evidence does
 *   not overlap (they look at different things). Severity from the weaker side's confidence:
 *   critical (>= 0.9, with evidence on both sides), high (>= 0.7), medium (>= 0.4), low.
 * - `partial-overlap` (medium): two workers accept overlapping but different sets of options.
 * - `priority-difference` (low): two workers accept the same options but put different ones first.
 * `resolution` says whether the first round already had it and what the verdict did with it.
 */
export function findConflicts(
  ballots: Record<string, Ballot>,
  options: ConsensusOption[],
  firstRound: Record<string, Ballot> | undefined,
  results: OptionResult[],
  /** What a conflict the vote left undecided leads to: a decision's goes to the human; a review's finding waits for no one. */
  undecided = 'needs the human',
): Conflict[] {
  const out = options.flatMap((o) => optionConflict(ballots, o, firstRound, results, undecided) ?? []);
  const workers = Object.keys(ballots).sort();
  for (let i = 0; i < workers.length; i++) {
    for (let j = i + 1; j < workers.length; j++) {
      const c = pairConflict(ballots, workers[i] as string, workers[j] as string);
      if (c) out.push(c);
    }
  }
  return out.sort((x, y) => RANK[y.severity] - RANK[x.severity]).map((c, i) => ({ ...c, conflictId: `C${i + 1}` }));
}

const voteOf = (b: Record<string, Ballot>, w: string, o: string) => b[w]?.votes.find((v) => v.option === o);

/** Some accept option `o` and some reject it: a contradiction or a scope difference (see findConflicts). */
function optionConflict(
  ballots: Record<string, Ballot>,
  o: ConsensusOption,
  firstRound: Record<string, Ballot> | undefined,
  results: OptionResult[],
  undecided: string,
): Conflict | undefined {
  const workers = Object.keys(ballots).sort();
  const acc = workers.map((w) => [w, voteOf(ballots, w, o.id)] as const).filter(([, v]) => v?.vote === 'accept');
  const rej = workers.map((w) => [w, voteOf(ballots, w, o.id)] as const).filter(([, v]) => v?.vote === 'reject');
  if (acc.length === 0 || rej.length === 0) return undefined;
  let severity: ConflictSeverity = 'low';
  let shared = false;
  for (const [, a] of acc) {
    for (const [, r] of rej) {
      if (!a || !r) continue;
      const s = severityOf(a.confidence, r.confidence, hasEvidence(a) && hasEvidence(r));
      if (RANK[s] > RANK[severity]) severity = s;
      const filesA = new Set(a.evidence.map((e) => e.file));
      if (r.evidence.some((e) => filesA.has(e.file))) shared = true;
    }
  }
  const hadBefore =
    firstRound !== undefined &&
    Object.keys(firstRound).some((w) => voteOf(firstRound, w, o.id)?.vote === 'accept') &&
    Object.keys(firstRound).some((w) => voteOf(firstRound, w, o.id)?.vote === 'reject');
  const verdict = results.find((r) => r.option === o.id)?.verdict ?? 'CONTESTED';
  return {
    conflictId: '',
    severity,
    conflictType: shared ? 'contradiction' : 'scope-difference',
    positions: [...acc, ...rej].map(([worker, v]) => ({
      worker,
      option: o.id,
      vote: v?.vote ?? 'abstain',
      confidence: v?.confidence ?? 0,
    })),
    resolution: `${hadBefore ? 'present since the first vote and not settled by the challenge rounds' : 'arose during the challenge rounds'}; verdict ${verdict}${verdict === 'PROVEN' || verdict === 'REFUTED' ? ' (outvoted side recorded as dissent)' : ` — ${undecided}`}`,
  };
}

/** Two workers accept overlapping but different options, or the same ones ranked differently. */
function pairConflict(ballots: Record<string, Ballot>, a: string, b: string): Conflict | undefined {
  const accepts = (w: string) => (ballots[w]?.votes ?? []).filter((v) => v.vote === 'accept');
  const A = new Set(accepts(a).map((v) => v.option));
  const B = new Set(accepts(b).map((v) => v.option));
  const common = [...A].filter((x) => B.has(x));
  const same = A.size === B.size && common.length === A.size;
  if (common.length > 0 && !same)
    return {
      conflictId: '',
      severity: 'medium',
      conflictType: 'partial-overlap',
      positions: [a, b].flatMap((w) =>
        accepts(w).map((v) => ({ worker: w, option: v.option, vote: v.vote, confidence: v.confidence })),
      ),
      resolution: `${a} and ${b} both accept ${common.join(', ')} but differ on the rest`,
    };
  if (!same || A.size <= 1) return undefined;
  const firstChoice = (w: string) => [...accepts(w)].sort((x, y) => y.confidence - x.confidence)[0];
  const fa = firstChoice(a);
  const fb = firstChoice(b);
  if (!fa || !fb || fa.option === fb.option) return undefined;
  return {
    conflictId: '',
    severity: 'low',
    conflictType: 'priority-difference',
    positions: [fa, fb].map((v, k) => ({
      worker: k === 0 ? a : b,
      option: v.option,
      vote: v.vote,
      confidence: v.confidence,
    })),
    resolution: `${a} and ${b} accept the same options but rank ${fa.option} and ${fb.option} first`,
  };
}

/** Why the human must decide, if they must. Empty when the votes settle the question. */
export function escalationReasons(opts: {
  results: OptionResult[];
  decision?: string;
  actualConsensus: number;
  threshold: number;
  conflicts: Conflict[];
  ballots: Record<string, Ballot>;
}): string[] {
  const reasons: string[] = [];
  if (opts.actualConsensus < opts.threshold) {
    reasons.push(
      `weighted agreement ${Math.round(opts.actualConsensus * 100)}% is below the ${Math.round(opts.threshold * 100)}% threshold`,
    );
  }
  const verdict = questionVerdict(opts.results, opts.decision);
  if (verdict === 'CONTESTED') {
    const split = opts.results
      .filter((r) => r.verdict === 'CONTESTED' || r.verdict === 'PROVEN')
      .map((r) => `${r.option} ${r.verdict}`);
    reasons.push(`the question is contested (${split.join(', ')})`);
  }
  for (const c of opts.conflicts)
    if (c.severity === 'critical')
      reasons.push(`critical conflict ${c.conflictId} (${c.conflictType} on ${c.positions[0]?.option ?? '?'})`);
  const valid = Object.values(opts.ballots).filter((b) => b.valid);
  if (valid.length >= 2) {
    for (const o of opts.results) {
      if (valid.every((b) => b.votes.some((v) => v.option === o.option && v.vote === 'accept' && v.confidence >= 1))) {
        reasons.push(`suspicious unanimity: every worker accepts ${o.option} with confidence 1.0`);
      }
    }
  }
  return reasons;
}
