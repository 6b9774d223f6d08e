/**
 * A finished run in numbers, as `roundtable run --json` prints it and the room printer closes with:
 * how it ended, the consensus, the rounds and tokens spent and the bill.
 */
import type { MeetingState } from '@roundtable/protocol';
import { billJson, type BilledJson, type CostJson } from './bill';

/** The summary of one run. */
export interface RunSummary {
  meetingId: string;
  terminatedBy: string;
  detail?: string;
  consensus: string;
  rounds: number;
  tokens: { spoken: number; budget: number; prompt: number; completion: number; billed: BilledJson };
  cost?: CostJson;
  minutesPath: string;
  digest: string;
}

/** The summary of the meeting `s`, its minutes written to `minutesPath`. */
export function summarize(s: MeetingState, minutesPath: string): RunSummary {
  const prompt = Object.values(s.usageByParticipant).reduce((n, u) => n + u.promptTokens, 0);
  const completion = Object.values(s.usageByParticipant).reduce((n, u) => n + u.completionTokens, 0);
  const { billed, cost } = billJson(s);
  return {
    meetingId: s.meetingId,
    terminatedBy: s.closed?.reason ?? 'error',
    ...(s.closed?.detail ? { detail: s.closed.detail } : {}),
    consensus: s.digest?.digest.consensus ?? 'NONE',
    rounds: s.rounds.length,
    tokens: { spoken: s.spokenTokens, budget: s.config.tokenBudget, prompt, completion, billed },
    ...(cost ? { cost } : {}),
    minutesPath,
    digest: s.digest?.text ?? '',
  };
}
