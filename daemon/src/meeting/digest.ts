/**
 * The closing digest. Consensus, stances, confidence and token cost are computed from the log;
 * only the narrative (statement, contributors, dissent) comes from the Assistant, and each of
 * those has a computed fallback so the digest is complete even when the Assistant fails.
 */
import type { ConsensusLevel, Digest, MeetingState, StanceCell } from '../../../protocol/src';
import { finalStances, workersOf } from '../../../protocol/src';

export interface DigestNarrative {
  consensusStatement?: string;
  contributors?: string;
  dissent?: string;
}

/** Reads the Assistant's three labelled lines; anything missing stays undefined. */
export function parseDigestReply(text: string): DigestNarrative {
  const out: DigestNarrative = {};
  const grab = (label: string): string | undefined => {
    const m = new RegExp(`^\\s*\\**${label}\\**\\s*:\\s*(.+)$`, 'im').exec(text);
    const v = m?.[1]?.trim();
    return v ? v : undefined;
  };
  const statement = grab('CONSENSUS_STATEMENT') ?? grab('CONSENSUS');
  const contributors = grab('CONTRIBUTORS');
  const dissent = grab('DISSENT');
  if (statement) out.consensusStatement = statement;
  if (contributors) out.contributors = contributors;
  if (dissent) out.dissent = dissent;
  return out;
}

function lastConsensus(s: MeetingState): ConsensusLevel {
  for (let i = s.rounds.length - 1; i >= 0; i--) {
    const c = s.rounds[i]?.consensus;
    if (c) return c.level;
  }
  return 'NONE';
}

/** Computed dissent: every worker whose final stance is not AGREE, with that stance. */
export function computedDissent(s: MeetingState): string {
  const finals = finalStances(s);
  const holdouts = workersOf(s)
    .map((w) => [w.name, finals[w.name] ?? 'UNKNOWN'] as [string, StanceCell])
    .filter(([, st]) => st !== 'AGREE');
  if (holdouts.length === 0) return 'none in the stance record: every worker ended on AGREE';
  return holdouts.map(([w, st]) => `${w} ended on ${st}`).join('; ');
}

function computedContributors(s: MeetingState): string {
  return workersOf(s)
    .map((w) => {
      const turns = s.rounds.filter((r) => r.contributions[w.name]).length;
      return `${w.name} spoke in ${turns} round${turns === 1 ? '' : 's'}`;
    })
    .join(', ');
}

/** Confidence: share of workers whose final stance is AGREE, two decimals. */
export function confidenceOf(s: MeetingState): number {
  const workers = workersOf(s);
  if (workers.length === 0) return 0;
  const finals = finalStances(s);
  const agree = workers.filter((w) => finals[w.name] === 'AGREE').length;
  return Math.round((agree / workers.length) * 100) / 100;
}

export function buildDigest(s: MeetingState, narrative: DigestNarrative): Digest {
  const dissentComputed = computedDissent(s);
  const dissent =
    narrative.dissent && !/^none\.?$/i.test(narrative.dissent.trim())
      ? `${narrative.dissent} Stance record: ${dissentComputed}.`
      : dissentComputed;
  return {
    topic: s.topic,
    consensus: lastConsensus(s),
    consensusStatement: narrative.consensusStatement ?? 'No statement was produced; see the stance record.',
    dissent,
    contributors: narrative.contributors ?? computedContributors(s),
    confidence: confidenceOf(s),
    tokensUsed: s.spokenTokens,
    tokenBudget: s.config.tokenBudget,
    terminatedBy: s.closed?.reason ?? 'error',
  };
}

export function renderDigest(d: Digest): string {
  return [
    `TOPIC: ${d.topic}`,
    `CONSENSUS: ${d.consensus} — ${d.consensusStatement}`,
    `DISSENT: ${d.dissent}`,
    `CONTRIBUTORS: ${d.contributors}`,
    `CONFIDENCE: ${d.confidence.toFixed(2)}`,
    `TOKEN COST: ${d.tokensUsed.toLocaleString('en-US')} / ${d.tokenBudget.toLocaleString('en-US')}`,
  ].join('\n');
}
