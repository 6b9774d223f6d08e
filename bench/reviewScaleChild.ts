/**
 * One row of `review-scale` in a process of its own: how long the daemon takes to read a change of
 * the repository at argv[2] (the whole `prepareReview`: one git diff, the gate's checks on every
 * path, secret scanning, the decision records, fitting the budget) and the process's peak resident
 * memory, printed as one JSON line. The tokenizer is loaded first: it is the same fixed cost for
 * every row, not part of what grows with the change.
 */
import { prepareReview } from '../daemon/src/review/prepare';
import { countTokens } from '../daemon/src/providers/tokens';

async function main(): Promise<void> {
  const root = process.argv[2] as string;
  countTokens('warm the tokenizer up');
  const start = performance.now();
  const p = await prepareReview({
    topic: 'review-scale',
    mode: 'consensus',
    participants: [
      { name: 'ada', role: 'worker', provider: 'openai', model: 'rev-a' },
      { name: 'grace', role: 'worker', provider: 'openai', model: 'rev-b' },
    ],
    workspace: root,
    review: { base: 'main', allowUnread: true },
  });
  const readMs = performance.now() - start;
  const scope = p.params.config?.review;
  process.stdout.write(
    `${JSON.stringify({
      readMs,
      peakKiB: process.resourceUsage().maxRSS,
      read: scope?.changed.length ?? 0,
      unread: scope?.unread?.length ?? 0,
    })}\n`,
  );
}

void main();
