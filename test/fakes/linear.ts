/**
 * Hostile text shapes at any size, and the work ratio that tells linear from quadratic: the CPU
 * time of a reader on 1 MB of a shape over its time on 128 KB. Linear work gives about 8,
 * quadratic 64; tests assert well below the quadratic one, never a time. Shared by the tests
 * and `npm run bench -- text`.
 */
import assert from 'node:assert/strict';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { countTokens, truncateToTokens } from '../../daemon/src/providers/tokens';

export const MB = 1 << 20;

/** `unit` repeated to `n` UTF-16 units (cut on a code point, so no half surrogate is made). */
function fill(unit: string, n: number): string {
  const s = unit.repeat(Math.ceil(n / unit.length));
  const cut = s.slice(0, n);
  return /[\ud800-\udbff]$/.test(cut) && !/[\ud800-\udbff]$/.test(unit) ? cut.slice(0, -1) : cut;
}

/** `unit` repeated to `n` characters, then `tail`: a hostile shape of any size. */
export function repeated(unit: string, n: number, tail = ''): string {
  return fill(unit, n) + tail;
}

/** Deterministic base64 of `n` characters (a pasted image or key). */
function base64(n: number): string {
  let x = 0x2545f491;
  let out = '';
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  while (out.length < n) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out += abc[(x >>> 0) % 64];
  }
  return out;
}

/** The worst shapes we know for a tokenizer, a regex or a cutter, each one long unbroken run: ASCII ones. */
export const ASCII_SHAPES: Record<string, (n: number) => string> = {
  spaces: (n) => fill(' ', n),
  newlines: (n) => fill('\n', n),
  'tab-space': (n) => fill('\t \t', n),
  crlf: (n) => fill('\r\n', n),
  'spaces-then-word': (n) => `${fill(' ', n - 4)}word`,
  letters: (n) => fill('a', n),
  upper: (n) => fill('A', n),
  'two-char': (n) => fill('xY', n),
  digits: (n) => fill('7', n),
  punctuation: (n) => fill('!"#$%&()*+,-.:;=?@^_|~', n),
  'less-than': (n) => fill('<', n),
  brackets: (n) => fill('[', n),
  fences: (n) => fill('```', n),
  'a-dot': (n) => fill('a.', n),
  'space-bang': (n) => fill(' !', n),
  apostrophe: (n) => fill("A's", n),
  base64: (n) => base64(n),
  url: (n) => `https://example.com/${base64(n - 20).replace(/[+/]/g, '-')}`,
  'special-tokens': (n) => fill('<|endoftext|>', n),
  'think-tags': (n) => fill('<think>', n),
};

/** Unicode ones: marks, joiners, surrogates, scripts without spaces, invisible characters. */
export const UNICODE_SHAPES: Record<string, (n: number) => string> = {
  nbsp: (n) => fill('\u00a0', n),
  'zero-width': (n) => fill('\u200b', n),
  'combining-marks': (n) => `a${fill('\u0301', n - 1)}`,
  'zwj-emoji': (n) => fill('👨‍👩‍👧', n),
  'lone-surrogates': (n) => fill('\ud800', n),
  cjk: (n) => fill('漢字', n),
  'rtl-marks': (n) => fill('\u202e\u200f', n),
};

export const SHAPES = { ...ASCII_SHAPES, ...UNICODE_SHAPES };

/** CPU microseconds of one call (user + system: what the daemon's thread spends). */
export function cpuMicros(f: () => unknown): number {
  const before = process.cpuUsage();
  f();
  const d = process.cpuUsage(before);
  return d.user + d.system;
}

/** Best of `n` runs: the least disturbed by whatever else the machine is doing. */
export function bestOf(n: number, f: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < n; i++) best = Math.min(best, cpuMicros(f));
  return best;
}

/**
 * Work on 1 MB of `shape` over work on 128 KB: about 8 when `read` is linear, 64 when quadratic.
 * The small size is read eight times per measure (as much work as the large one for a linear
 * reader, so both are long enough for the clock), and the two are measured in turn, the least of
 * two to six measures each, so a busy machine slows both alike; more are taken only while the
 * ratio looks super-linear (a pause for garbage collection inflates one measure, never every one;
 * quadratic work stays near 64 however often it is measured).
 */
export function workRatio(read: (text: string) => unknown, shape: (n: number) => string, big = MB): number {
  const small = shape(big / 8);
  const large = shape(big);
  read(small); // compiled and warmed before anything is measured
  let eightSmall = Infinity;
  let oneLarge = Infinity;
  for (let k = 0; k < 6; k++) {
    eightSmall = Math.min(
      eightSmall,
      cpuMicros(() => {
        for (let j = 0; j < 8; j++) read(small);
      }),
    );
    oneLarge = Math.min(
      oneLarge,
      cpuMicros(() => read(large)),
    );
    if (k >= 1 && (8 * oneLarge) / Math.max(eightSmall, 1) < 12) break;
  }
  return (8 * oneLarge) / Math.max(eightSmall, 1);
}

/** The ratio tests assert below: three times linear, a third of quadratic. */
export const LINEAR_RATIO = 24;

/**
 * The token counter on one shape: 300 characters counted exactly as js-tiktoken's own unsplit
 * encoder counts them, 1 MB in linear work, 256 KB of it and prose after cut to 1,000 tokens without a stack overflow.
 */
export function checkTokenShape(shape: (n: number) => string): void {
  const sample = shape(300);
  assert.equal(countTokens(sample), reference().encode(sample, [], []).length, 'the same count as the library');
  const ratio = workRatio(countTokens, shape);
  assert.ok(ratio < LINEAR_RATIO, `1 MB took ${ratio.toFixed(1)}× the work of 128 KB`);
  // The run, then prose: the old cutter spread the prose's ids as arguments and overflowed the stack.
  const cut = truncateToTokens(`${shape(MB / 4)} ${'and then some words. '.repeat(15_000)}`, 1_000);
  assert.ok(cut.length > 0 && countTokens(cut) <= 1_000, `cut to ${countTokens(cut)} tokens`);
}

let library: Tiktoken | undefined;
/** The library's own encoder, unsplit: the counts we must not change. */
export function reference(): Tiktoken {
  return (library ??= new Tiktoken(o200k));
}
