import type { ConsensusLevel, StanceCell } from '@roundtable/protocol';

export interface Vote {
  stance: StanceCell;
  passed: boolean;
}

export interface ConsensusResult {
  level: ConsensusLevel;
  agree: number;
  disagree: number;
  neutral: number;
  voters: number;
}

/**
 * Consensus of one round over the workers who spoke in it.
 * - A worker that passes without a stance sat the round out and is not a voter; a pass with an
 *   explicit stance still votes with it.
 * - UNKNOWN and TIMEOUT count as NEUTRAL.
 * - FULL: every voter AGREEs. MAJORITY: at least 2/3 AGREE and none DISAGREE.
 * - Fewer than two voters never make a consensus: one voice is not a room.
 */
export function evaluateConsensus(votes: Vote[]): ConsensusResult {
  let agree = 0;
  let disagree = 0;
  let neutral = 0;
  for (const v of votes) {
    if (v.passed && (v.stance === 'PASS' || v.stance === 'UNKNOWN')) continue;
    if (v.stance === 'AGREE') agree++;
    else if (v.stance === 'DISAGREE') disagree++;
    else neutral++;
  }
  const voters = agree + disagree + neutral;
  let level: ConsensusLevel = 'NONE';
  if (voters >= 2 && agree === voters) level = 'FULL';
  else if (voters >= 2 && disagree === 0 && agree * 3 >= voters * 2) level = 'MAJORITY';
  return { level, agree, disagree, neutral, voters };
}
