/**
 * `npm run bench -- text`: the token counter and the cutter on 1 MB of the worst shapes, beside
 * js-tiktoken's own encoder (the counter before issue 32) on a size it can finish. Figures and
 * ratios, no asserts: work on 1 MB over work on 128 KB is ~8 when linear, ~64 when quadratic.
 */
import { countTokens, truncateToTokens } from '../daemon/src/providers/tokens';
import { MB, SHAPES, bestOf, reference } from '../test/fakes/linear';

/** The shapes shown: the ones that were quadratic before, and two that never were. */
const SHOWN = ['spaces', 'newlines', 'tab-space', 'nbsp', 'letters', 'punctuation', 'zwj-emoji', 'base64', 'url'];
/** The size the library's own (quadratic) merge is timed on: 1 MB of spaces would take hours. */
const LIBRARY_CHARS = 4_096;

export interface TextRow {
  shape: string;
  /** Counting 1 MB, ms of CPU, and MB/s. */
  countMs: number;
  countMBps: number;
  /** Work on 1 MB over work on 128 KB (~8 linear, ~64 quadratic). */
  ratio: number;
  /** Cutting 1 MB to 1,000 tokens, ms of CPU. */
  cutMs: number;
  /** The library's encoder on 4 KB and on 8 KB: ms, and the ratio (~2 linear, ~4 quadratic). */
  libraryMs: string;
  libraryRatio: number;
  /** Microseconds per character, ours on 1 MB vs the library on 8 KB. */
  usPerChar: string;
}

export function benchText(): TextRow[] {
  countTokens('warm up: the ranks load');
  const lib = reference();
  const rows: TextRow[] = [];
  for (const name of SHOWN) {
    const shape = SHAPES[name];
    if (!shape) continue;
    const big = shape(MB);
    const small = shape(MB / 8);
    const count = bestOf(2, () => countTokens(big)) / 1000;
    const countSmall = bestOf(2, () => countTokens(small)) / 1000;
    const cut = bestOf(2, () => truncateToTokens(big, 1_000)) / 1000;
    const l4 = shape(LIBRARY_CHARS);
    const l8 = shape(2 * LIBRARY_CHARS);
    const lib4 = bestOf(2, () => lib.encode(l4, [], [])) / 1000;
    const lib8 = bestOf(2, () => lib.encode(l8, [], [])) / 1000;
    rows.push({
      shape: name,
      countMs: Math.round(count),
      countMBps: +(1000 / Math.max(count, 0.001)).toFixed(2),
      ratio: +(count / Math.max(countSmall, 0.001)).toFixed(1),
      cutMs: Math.round(cut),
      libraryMs: `${lib4.toFixed(1)} / ${lib8.toFixed(1)}`,
      libraryRatio: +(lib8 / Math.max(lib4, 0.001)).toFixed(1),
      usPerChar: `${((count * 1000) / MB).toFixed(2)} / ${((lib8 * 1000) / (2 * LIBRARY_CHARS)).toFixed(2)}`,
    });
  }
  return rows;
}
