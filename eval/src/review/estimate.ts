/**
 * `roundtable eval --review SET --estimate`: what the run would cost before it starts, no model
 * asked. Each case is built into its repository and its review estimated as `roundtable review
 * --estimate` estimates one (the real engine played with every reply as long as its cap: an upper
 * figure). The other systems make no call of their own: they are read from the review's proposals.
 */
import type { EstimateLine } from '@roundtable/protocol';
import { formatCount, formatUsd } from '@roundtable/protocol';
import { startMemoryCore } from '../../../daemon/src/daemon/localCore';
import type { ReviewCase } from './cases';
import { buildCaseRepo, reviewParams, type ReviewSetup } from './run';

export interface ReviewEstimate {
  cases: number;
  /** Every call of every case's review, if each runs all its rounds. */
  all: Pick<EstimateLine, 'calls' | 'totalTokens' | 'costUsd'>;
  /** The opening of each review: the reviewers' proposals (what alone, union and majority read), and a briefing where one is asked. */
  opening: Pick<EstimateLine, 'calls' | 'totalTokens' | 'costUsd'>;
  /** Cases whose review the budget would stop before its last round. */
  budgetCut: string[];
  unpricedModels: string[];
}

type Sum = ReviewEstimate['all'];
const add = (a: Sum, l: EstimateLine): Sum => ({
  calls: a.calls + l.calls,
  totalTokens: a.totalTokens + l.totalTokens,
  ...(l.costUsd !== undefined || a.costUsd !== undefined ? { costUsd: (a.costUsd ?? 0) + (l.costUsd ?? 0) } : {}),
});

export async function estimateReviewEval(
  setup: ReviewSetup,
  cases: readonly ReviewCase[],
  signal?: AbortSignal,
): Promise<ReviewEstimate> {
  let all: Sum = { calls: 0, totalTokens: 0 };
  let opening: Sum = { calls: 0, totalTokens: 0 };
  const budgetCut: string[] = [];
  const unpriced = new Set<string>();
  // Estimated through the meeting handle, as `roundtable review --estimate` is: a core that keeps nothing.
  const core = await startMemoryCore();
  try {
    for (const c of cases) {
      signal?.throwIfAborted();
      const repo = await buildCaseRepo(c);
      try {
        const e = await core.conn.meetings.estimate(reviewParams(setup, c, repo.root), signal ? { signal } : {});
        all = add(all, e.allRounds);
        opening = add(opening, e.opening);
        if (e.budgetCut) budgetCut.push(c.id);
        for (const m of e.unpricedModels) unpriced.add(m);
      } finally {
        await repo.remove();
      }
    }
  } finally {
    await core.close();
  }
  return { cases: cases.length, all, opening, budgetCut, unpricedModels: [...unpriced].sort() };
}

function line(label: string, s: Sum, per: number): string {
  const money = (v: number | undefined) => (v !== undefined ? ` (${formatUsd(v)})` : '');
  const n = Math.max(1, per);
  return `  ${label}: ${formatCount(s.calls)} calls, ${formatCount(s.totalTokens)} billed tokens${money(s.costUsd)}; per case ${formatCount(Math.round(s.calls / n))} calls, ${formatCount(Math.round(s.totalTokens / n))} tokens${money(s.costUsd !== undefined ? s.costUsd / n : undefined)}`;
}

export function formatReviewEstimate(set: string, models: readonly string[], e: ReviewEstimate): string {
  return [
    `Estimate of the review eval of ${set}: ${e.cases} case${e.cases === 1 ? '' : 's'}, panel ${models.join(', ')} (every reply as long as its cap, so an upper figure; no model was asked).`,
    line('the reviews', e.all, e.cases),
    line('of which the openings (the proposals alone, union and majority are read from)', e.opening, e.cases),
    'Each reviewer alone, the union and the majority make no call of their own: they are read from the same review.',
    ...(e.budgetCut.length
      ? [
          `The budget would stop ${e.budgetCut.length} review(s) before their last round (${e.budgetCut.slice(0, 5).join(', ')}${e.budgetCut.length > 5 ? ', …' : ''}): raise --budget, or those cases end in exit 3.`,
        ]
      : []),
    ...(e.unpricedModels.length ? [`No price for ${e.unpricedModels.join(', ')}: the cost leaves them out.`] : []),
  ].join('\n');
}
