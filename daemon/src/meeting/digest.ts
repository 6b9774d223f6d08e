/**
 * The closing digest. Consensus, stances, confidence and token cost are computed from the log;
 * only the narrative (statement, contributors, dissent) comes from the Assistant, and each of
 * those has a computed fallback so the digest is complete even when the Assistant fails.
 */
import type { ConsensusLevel, Digest, MeetingState, Participant, StanceCell, Usage } from '@roundtable/protocol';
import {
  billFigures,
  billOf,
  consensusOutcome,
  costOf,
  debateMetrics,
  finalStances,
  formatBillFigures,
  isScriptedPanel,
  remainingWorkers,
  seatsLine,
  whyLeft,
  workersOf,
} from '@roundtable/protocol';
import { oneLine } from '@roundtable/protocol/markdown';
import { debateLine } from '@roundtable/protocol/debateMinutes';
import { reviewDissent, reviewSummary } from '@roundtable/protocol';
import type { DigestNarrative } from './digestReply';

/** The digest's own call, billed after the state it is built from was taken. */
export interface DigestCall {
  participant: Participant;
  usage: Usage;
}

/** Both figures for the digest's TOKEN COST: spoken against the budget and billed, the digest's own call included. */
function costFields(
  s: MeetingState,
  call?: DigestCall,
): Pick<Digest, 'tokensUsed' | 'tokenBudget' | 'budgetBasis' | 'billed'> {
  const f = billFigures(s, billOf(s));
  const billed = { ...f.billed };
  if (call) {
    const u = { ...call.usage, cachedTokens: call.usage.cachedTokens ?? 0 };
    billed.promptTokens += u.promptTokens;
    billed.completionTokens += u.completionTokens;
    billed.cachedTokens += u.cachedTokens;
    billed.totalTokens += u.promptTokens + u.completionTokens;
    billed.calls += 1;
    if (u.reasoningTokens) billed.reasoningTokens = (billed.reasoningTokens ?? 0) + u.reasoningTokens;
    const price = s.config.prices?.[call.participant.model];
    if (price) billed.costUsd = (billed.costUsd ?? 0) + costOf(u, price);
  }
  return {
    tokensUsed: s.spokenTokens,
    tokenBudget: s.config.tokenBudget,
    budgetBasis: f.basis,
    billed: {
      promptTokens: billed.promptTokens,
      completionTokens: billed.completionTokens,
      cachedTokens: billed.cachedTokens,
      totalTokens: billed.totalTokens,
      calls: billed.calls,
      ...(billed.costUsd !== undefined ? { costUsd: billed.costUsd } : {}),
      ...(billed.reasoningTokens ? { reasoningTokens: billed.reasoningTokens } : {}),
      ...(f.vscodeRequests || call?.participant.provider === 'vscode-lm'
        ? { vscodeRequests: (f.vscodeRequests ?? 0) + (call?.participant.provider === 'vscode-lm' ? 1 : 0) }
        : {}),
      ...(f.unpricedModels ? { unpricedModels: f.unpricedModels } : {}),
    },
  };
}

function lastConsensus(s: MeetingState): ConsensusLevel {
  for (let i = s.rounds.length - 1; i >= 0; i--) {
    const c = s.rounds[i]?.consensus;
    if (c) return c.level;
  }
  return 'NONE';
}

/** Computed dissent: every worker still seated whose final stance is not AGREE, with that stance. */
export function computedDissent(s: MeetingState): string {
  const finals = finalStances(s);
  const holdouts = remainingWorkers(s)
    .map((w) => [w.name, finals[w.name] ?? 'UNKNOWN'] as [string, StanceCell])
    .filter(([, st]) => st !== 'AGREE');
  if (holdouts.length === 0) return 'none in the stance record: every worker ended on AGREE';
  return holdouts.map(([w, st]) => `${w} ended on ${st}`).join('; ');
}

function computedContributors(s: MeetingState): string {
  if (s.config.review) return reviewContributors(s);
  return workersOf(s)
    .map((w) => {
      const turns = s.rounds.filter((r) => r.contributions[w.name] || r.ballots[w.name]).length;
      return `${w.name} spoke in ${turns} round${turns === 1 ? '' : 's'}`;
    })
    .join(', ');
}

/** Who did what in a review: findings proposed, and votes asked (a reviewer's own findings are its accepts, never asked). */
function reviewContributors(s: MeetingState): string {
  return workersOf(s)
    .map((w) => {
      const found = s.proposedFindings?.[w.name]?.length ?? 0;
      // The findings it was asked about, however many rounds asked it.
      const asked = new Set(
        s.rounds.flatMap((r) => r.ballots[w.name]?.votes.filter((v) => !v.proposed).map((v) => v.option) ?? []),
      ).size;
      return `${w.name} proposed ${found} finding${found === 1 ? '' : 's'} and voted on ${asked}`;
    })
    .join(', ');
}

/** Confidence: share of the workers still seated whose final stance is AGREE, two decimals. */
export function confidenceOf(s: MeetingState): number {
  const workers = remainingWorkers(s);
  if (workers.length === 0) return 0;
  const finals = finalStances(s);
  const agree = workers.filter((w) => finals[w.name] === 'AGREE').length;
  return Math.round((agree / workers.length) * 100) / 100;
}

function consensusDigest(s: MeetingState, narrative: DigestNarrative, call?: DigestCall): Digest {
  const o = consensusOutcome(s);
  const last = [...s.rounds].reverse().find((r) => r.verdict);
  const verdictOf = (id: string) => last?.verdict?.results.find((r) => r.option === id)?.verdict ?? '—';
  const statement = s.config.review
    ? `review: ${reviewSummary(s)}`
    : o.decision
      ? `${o.decision} — ${o.label ?? ''} (${verdictOf(o.decision)}, ${Math.round(o.actualConsensus * 100)}% weighted agreement${o.by === 'human' ? ', picked by the human after escalation' : ''})`
      : `no decision (${s.closed?.reason === 'deferred' ? 'deferred by the human' : (s.closed?.reason ?? 'open')}); best weighted agreement ${Math.round(o.actualConsensus * 100)}%`;
  const holdouts = Object.entries(last?.ballots ?? {})
    .map(([w, b]) => [w, o.decision ? b.votes.find((v) => v.option === o.decision) : undefined, b] as const)
    .filter(([, v, b]) => !b.valid || (o.decision ? v?.vote !== 'accept' : true))
    .map(([w, v, b]) =>
      b.valid
        ? `${w} ${v ? `${v.vote}s ${o.decision} (${v.confidence.toFixed(2)}): ${v.rationale}` : 'did not vote'}`
        : `${w}'s ballot was invalid (${b.invalidReason ?? '?'})`,
    );
  return {
    topic: s.topic,
    consensus: o.level,
    consensusStatement: narrative.consensusStatement ? `${statement}. ${narrative.consensusStatement}` : statement,
    dissent: s.config.review
      ? reviewDissent(s)
      : holdouts.length > 0
        ? holdouts.join('; ')
        : 'none: every worker accepted the decision',
    contributors: narrative.contributors ?? computedContributors(s),
    confidence: Math.round(o.actualConsensus * 100) / 100,
    ...costFields(s, call),
    terminatedBy: s.closed?.reason ?? 'error',
    // A review is no debate towards one decision: whether "the debate" changed "the outcome" says nothing of it.
    ...(s.config.review ? {} : { debate: debateLine(debateMetrics(s)) }),
  };
}

/** Who said what of the workers' positions, for the line that says no decision was made. */
function silentWorkers(s: MeetingState): string {
  return workersOf(s)
    .map((w) => {
      const failure = [...s.rounds].reverse().find((r) => r.failures[w.name])?.failures[w.name];
      const last = [...s.rounds].reverse().find((r) => r.stances[w.name])?.stances[w.name];
      const why = failure ? failure.detail : last ? `ended ${last.stance}` : 'never spoke';
      return `${w.name} (${w.model}): ${why}`;
    })
    .join('; ');
}

/**
 * Why the meeting produced no decision a person could accept, or undefined when it did: no worker
 * stated a stance (roundtable) or cast a valid ballot (consensus), or the digest has no statement.
 */
export function noDecisionOf(s: MeetingState, narrative: DigestNarrative, digestFailure?: string): string | undefined {
  // A review decides nothing: its outcome is its findings' verdicts and its exit code (reviewOutcome).
  if (s.config.review) return undefined;
  const reasons: string[] = [];
  if (s.mode === 'consensus') {
    const valid = s.rounds.some((r) => Object.values(r.ballots).some((b) => b.valid));
    if (!valid) reasons.push(`No worker cast a valid ballot — ${silentWorkers(s)}`);
  } else {
    const stated = s.rounds.some((r) =>
      Object.values(r.stances).some((c) => c.stance === 'AGREE' || c.stance === 'DISAGREE' || c.stance === 'NEUTRAL'),
    );
    if (!stated) reasons.push(`No worker stated a stance — ${silentWorkers(s)}`);
    const remaining = remainingWorkers(s).length;
    if (stated && s.left && remaining < 2)
      reasons.push(`Only ${remaining} of ${workersOf(s).length} workers remained — ${whyLeft(s)}`);
    if (!narrative.consensusStatement) {
      const a = s.participants.find((p) => p.role === 'assistant');
      reasons.push(
        `The digest has no statement — ${digestFailure ?? `${a?.name ?? 'the assistant'} (${a?.model ?? '?'}) wrote no CONSENSUS_STATEMENT`}`,
      );
    }
  }
  return reasons.length > 0 ? clipLine(reasons.join('. '), 2_000) : undefined;
}

/** A text on one line, at most `max` characters (an ellipsis says where it was cut). */
export function clipLine(text: string, max: number): string {
  const one = oneLine(text);
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export function buildDigest(
  s: MeetingState,
  narrative: DigestNarrative,
  call?: DigestCall,
  digestFailure?: string,
): Digest {
  const noDecision = noDecisionOf(s, narrative, digestFailure);
  const seats = seatsLine(s);
  const flags = {
    ...(noDecision ? { noDecision } : {}),
    ...(seats ? { seats: clipLine(seats, 2_000) } : {}),
    ...(isScriptedPanel(s.participants) ? { demo: true } : {}),
  };
  return {
    ...(s.mode === 'consensus'
      ? consensusDigest(s, narrative, call)
      : roundtableDigest(s, narrative, call, digestFailure)),
    ...flags,
  };
}

function roundtableDigest(s: MeetingState, narrative: DigestNarrative, call?: DigestCall, failure?: string): Digest {
  const dissentComputed = computedDissent(s);
  const dissent =
    narrative.dissent && !/^none\.?$/i.test(narrative.dissent.trim())
      ? `${narrative.dissent} (stance record: ${dissentComputed.replace(/^none in the stance record: /, '')})`
      : dissentComputed;
  return {
    topic: s.topic,
    consensus: lastConsensus(s),
    // A synthesis that failed says so, and why, beside the computed fallback.
    consensusStatement:
      narrative.consensusStatement ??
      `No statement was produced${failure ? ` (the synthesis failed: ${clipLine(failure, 300)})` : ''}; see the stance record.`,
    dissent,
    contributors: narrative.contributors ?? computedContributors(s),
    confidence: confidenceOf(s),
    ...costFields(s, call),
    terminatedBy: s.closed?.reason ?? 'error',
    debate: debateLine(debateMetrics(s)),
  };
}

export function renderDigest(d: Digest): string {
  // One line per label: a field holding a newline must not forge another label line.
  return [
    `TOPIC: ${oneLine(d.topic)}`,
    ...(d.noDecision ? [`NO DECISION: ${oneLine(d.noDecision)}`] : []),
    `CONSENSUS: ${d.consensus} — ${oneLine(d.consensusStatement)}`,
    `DISSENT: ${oneLine(d.dissent)}`,
    `CONTRIBUTORS: ${oneLine(d.contributors)}`,
    `CONFIDENCE: ${d.confidence.toFixed(2)}`,
    ...(d.seats ? [`SEATS: ${oneLine(d.seats)}`] : []),
    `TOKEN COST: ${tokenCost(d)}`,
    ...(d.debate ? [oneLine(d.debate)] : []),
  ].join('\n');
}

/** Both figures, named (a digest from before billing was recorded keeps its old "spoken / budget" form). */
function tokenCost(d: Digest): string {
  if (!d.billed) return `${d.tokensUsed.toLocaleString('en-US')} / ${d.tokenBudget.toLocaleString('en-US')}`;
  return formatBillFigures({
    spoken: d.tokensUsed,
    budget: d.tokenBudget,
    basis: d.budgetBasis ?? 'spoken',
    billed: d.billed,
    ...(d.billed.vscodeRequests ? { vscodeRequests: d.billed.vscodeRequests } : {}),
    ...(d.billed.unpricedModels ? { unpricedModels: d.billed.unpricedModels } : {}),
  });
}
