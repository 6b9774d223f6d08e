import { rng } from '@roundtable/protocol/random';

/**
 * Speaking order of a round. `parallel` and `sequential` keep the panel order; `shuffle`
 * reshuffles every round (seeded by meeting seed and round) and never lets the previous round's
 * last speaker go first, so nobody gets to both close one round and open the next.
 */
export function speakingOrder(
  workers: string[],
  order: 'parallel' | 'sequential' | 'shuffle',
  seed: number,
  round: number,
  previousLast: string | undefined,
): string[] {
  if (order !== 'shuffle' || workers.length < 2) return [...workers];
  const next = rng((seed * 1_000_003 + round * 7_919) >>> 0);
  const out = [...workers];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as string, out[i] as string];
  }
  if (out[0] === previousLast) {
    // Swap the first speaker with a seeded pick among the others.
    const j = 1 + Math.floor(next() * (out.length - 1));
    [out[0], out[j]] = [out[j] as string, out[0] as string];
  }
  return out;
}
