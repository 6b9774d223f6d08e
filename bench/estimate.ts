/**
 * How long the estimate takes: it plays the whole meeting on the real engine twice (every round,
 * then with the budget), so it must stay quick enough for a confirmation before a start. Wall and
 * CPU time (the CPU figure holds on a busy machine), the first estimate of the process (the
 * tokenizer loads) apart from the warm median a running daemon sees.
 */
import type { Participant, StartMeetingParams } from '@roundtable/protocol';
import { estimateMeeting } from '../daemon/src/meeting/estimate';

export interface EstimateTiming {
  panel: string;
  calls: number;
  /** Median over the runs, the tokenizer warm. */
  wallMs: number;
  cpuMs: number;
}

function params(workers: number, mode: StartMeetingParams['mode'], maxRounds: number): StartMeetingParams {
  const names = ['sam', 'jude', ...['ada', 'grace', 'linus', 'barbara', 'ken'].slice(0, workers)];
  const roles: Participant['role'][] = ['assistant', 'judge'];
  return {
    topic: 'Should billing move from MySQL to PostgreSQL?',
    mode,
    participants: names.map((name, i) => ({ name, role: roles[i] ?? 'worker', provider: 'openai', model: 'gpt-5' })),
    config: { maxRounds, prices: { 'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 } } },
  };
}

async function timed(p: StartMeetingParams): Promise<{ wallMs: number; cpuMs: number; calls: number }> {
  const cpu = process.cpuUsage();
  const t = performance.now();
  const e = await estimateMeeting(p);
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - t, cpuMs: (used.user + used.system) / 1000, calls: e.allRounds.calls };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export async function benchEstimate(runs = 3): Promise<{ coldMs: number; rows: EstimateTiming[] }> {
  const cold = await timed(params(3, 'roundtable', 10));
  const panels: [string, StartMeetingParams][] = [
    ['3 workers, 10 rounds (defaults)', params(3, 'roundtable', 10)],
    ['5 workers, 10 rounds', params(5, 'roundtable', 10)],
    ['5 workers, 20 rounds', params(5, 'roundtable', 20)],
    ['5 workers, consensus vote', params(5, 'consensus', 10)],
  ];
  const rows: EstimateTiming[] = [];
  for (const [panel, p] of panels) {
    const times = [];
    for (let i = 0; i < runs; i++) times.push(await timed(p));
    rows.push({
      panel,
      calls: times[0]?.calls ?? 0,
      wallMs: Math.round(median(times.map((t) => t.wallMs))),
      cpuMs: Math.round(median(times.map((t) => t.cpuMs))),
    });
  }
  return { coldMs: Math.round(cold.wallMs), rows };
}
