/**
 * Seeded random numbers (mulberry32), one definition for whoever needs a sequence it can repeat:
 * the engine's shuffled speaking orders (from the meeting's seed), the eval's question sets and
 * bootstrap, the tests' generated inputs. Not for secrets.
 */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
