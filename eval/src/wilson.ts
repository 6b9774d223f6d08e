/** The 95% Wilson score interval of a proportion (Wilson 1927): well-behaved at 0, 1 and small n. */
export const Z95 = 1.959963984540054;

/** `[lo, hi]` for `correct` successes out of `n`; `[0, 1]` when nothing was asked. */
export function wilson95(correct: number, n: number, z = Z95): [number, number] {
  if (n <= 0) return [0, 1];
  const p = correct / n;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const half = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  const denom = 1 + z2 / n;
  return [Math.max(0, (centre - half) / denom), Math.min(1, (centre + half) / denom)];
}
