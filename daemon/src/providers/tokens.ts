/**
 * Token counting with a real tokenizer (o200k_base, the GPT-4o family's encoding). Used for the
 * room's spoken-token budget and whenever a provider does not report usage.
 *
 * js-tiktoken's pre-tokenizer regex is linear, but its byte-pair merge rescans every part of a
 * piece after each merge: quadratic in the piece's length (10,000 spaces took 9 s, a 1 MB run of
 * spaces, '!' or letters would take hours on the daemon's one thread). The pieces are therefore
 * merged here with a heap, the same merges in the same order (lowest rank first, leftmost on a
 * tie), so the ids are the library's exactly, in O(n log n) for any shape of text.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import type { ChatMessage, ToolTurn } from '@roundtable/protocol';

interface Ranks {
  encoder: Tiktoken;
  /** The library's own table (bytes joined by ',' → id), read rather than built a second time. */
  ranks: Map<string, number>;
  /** The longest token in bytes: a longer piece is never one token. */
  longest: number;
  /** Each id's key in `ranks`, and each byte's id. */
  keyOf: string[];
  byteIds: Int32Array;
}

let loaded: Ranks | undefined;
function table(): Ranks {
  if (loaded) return loaded;
  const encoder = new Tiktoken(o200k);
  const ranks = (encoder as unknown as { rankMap?: unknown }).rankMap;
  if (!(ranks instanceof Map)) throw new Error('js-tiktoken changed: its rank table is not where the counter reads it');
  let longest = 0;
  const keyOf: string[] = [];
  for (const [key, id] of ranks as Map<string, number>) {
    longest = Math.max(longest, key.split(',').length);
    keyOf[id] = key;
  }
  const byteIds = Int32Array.from({ length: 256 }, (_, b) => (ranks as Map<string, number>).get(String(b)) ?? -1);
  loaded = { encoder, ranks: ranks as Map<string, number>, longest, keyOf, byteIds };
  return loaded;
}

/** What two adjacent tokens merge into (-1: they do not), by left id then right id, remembered: a run repeats its pairs. */
let merges: (Map<number, number> | undefined)[] = [];
let mergesKept = 0;
const MAX_MERGES_KEPT = 1 << 20;

function mergeOf(t: Ranks, left: number, right: number): number {
  let byRight = merges[left];
  let m = byRight?.get(right);
  if (m !== undefined) return m;
  if (mergesKept >= MAX_MERGES_KEPT) {
    merges = [];
    mergesKept = 0;
    byRight = undefined;
  }
  if (!byRight) merges[left] = byRight = new Map();
  m = t.ranks.get(`${t.keyOf[left]},${t.keyOf[right]}`) ?? -1;
  byRight.set(right, m);
  mergesKept++;
  return m;
}

const PIECES = new RegExp(o200k.pat_str, 'gu');
const utf8 = new TextEncoder();
/** A heap entry: rank in the high bits, the left part's start in the low 32 (a piece is < 4 GiB). */
const LOW = 2 ** 32;

/** A binary min-heap of numbers (the shortest code that keeps a merge O(log n)). */
class MinHeap {
  private readonly a: number[] = [];
  get size(): number {
    return this.a.length;
  }
  push(x: number): void {
    const a = this.a;
    let i = a.push(x) - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (a[up]! <= x) break;
      a[i] = a[up]!;
      i = up;
    }
    a[i] = x;
  }
  pop(): number {
    const a = this.a;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const c = l + 1 < a.length && a[l + 1]! < a[l]! ? l + 1 : l;
        if (a[c]! >= last) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

/**
 * The byte-pair merge of one piece, its ids appended to `out`. Every part is a token, so a pair's
 * rank is the id of the token the two make (the library's rule: lowest first, leftmost on a tie).
 */
function mergePiece(bytes: Uint8Array, t: Ranks, out: number[]): void {
  const n = bytes.length;
  // Parts as a linked list of start offsets: the part starting at i ends at next[i], is token ids[i].
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  const ids = new Int32Array(n);
  /** The rank of the pair a part makes with the next one (-1: none). */
  const pairRanks = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
    ids[i] = t.byteIds[bytes[i]!]!;
  }
  const heap = new MinHeap();
  const offer = (i: number): void => {
    const j = next[i]!;
    const r = j < n ? mergeOf(t, ids[i]!, ids[j]!) : -1;
    pairRanks[i] = r;
    if (r >= 0) heap.push(r * LOW + i);
  };
  for (let i = 0; i + 1 < n; i++) offer(i);
  while (heap.size > 0) {
    const top = heap.pop();
    const i = top % LOW;
    const rank = (top - i) / LOW;
    // A stale entry (its part merged away, or its pair changed since) is dropped.
    if (pairRanks[i] !== rank) continue;
    const j = next[i]!;
    ids[i] = rank;
    pairRanks[j] = -1;
    next[i] = next[j]!;
    if (next[i] < n) prev[next[i]] = i;
    offer(i);
    if (prev[i]! >= 0) offer(prev[i]!);
  }
  for (let i = 0; i < n; i = next[i]!) if (ids[i]! >= 0) out.push(ids[i]!);
}

/**
 * The ids of `text`, stopping once more than `limit` are known. Hostile or leaked text may hold
 * special tokens (`<|endoftext|>`, a model's template leaking): they are encoded as the plain text
 * they are, never refused (the library throws on them by default).
 */
function encode(text: string, limit = Infinity): number[] {
  const t = table();
  const ids: number[] = [];
  for (const m of text.matchAll(PIECES)) {
    const bytes = utf8.encode(m[0]);
    const whole = bytes.length <= t.longest ? t.ranks.get(bytes.join(',')) : undefined;
    if (whole !== undefined) ids.push(whole);
    else mergePiece(bytes, t, ids);
    if (ids.length > limit) break;
  }
  return ids;
}

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : encode(text).length;
}

/**
 * Prompt tokens of a chat request, with the per-message overhead OpenAI documents (3 + 3).
 * `count` counts one message's text (a caller that sends the same texts again may remember them).
 */
export function countPromptTokens(
  messages: readonly ChatMessage[],
  count: (text: string) => number = countTokens,
): number {
  let n = 3;
  for (const m of messages) n += 3 + count(m.content);
  return n;
}

/** Cuts `text` to at most `max` tokens, on a token boundary. */
export function truncateToTokens(text: string, max: number): string {
  // Every token covers at least one character: a text with no more characters than `max` fits.
  if (text.length <= max) return text;
  const ids = encode(text, max);
  if (ids.length <= max) return text;
  return table().encoder.decode(ids.slice(0, max));
}

/** Characters tokenized at a time while streaming: the tokenizer is quadratic on one long run of a character. */
const SLICE = 128;

/**
 * Tokens of one streamed piece, counted a slice at a time (slightly over, never under, the
 * whole count) and only until `cap` is passed: a megabyte piece, or a run of one character
 * that the tokenizer would take seconds over, costs no more than the tokens it may still use.
 */
export function pieceTokens(piece: string, cap = Infinity): number {
  let n = 0;
  for (let i = 0; i < piece.length && n <= cap; i += SLICE) n += countTokens(piece.slice(i, i + SLICE));
  return n;
}

/** The first `max` tokens of a streamed piece, counted as `pieceTokens` counts them. */
export function cutPiece(piece: string, max: number): string {
  let n = 0;
  let out = '';
  for (let i = 0; i < piece.length; i += SLICE) {
    const slice = piece.slice(i, i + SLICE);
    const t = countTokens(slice);
    if (n + t > max) return out + truncateToTokens(slice, max - n);
    n += t;
    out += slice;
  }
  return out;
}

/** The prompt of a tool turn's next request, by the engine's count: messages, tool steps and the tools offered. */
export function toolTurnPromptTokens(
  messages: ChatMessage[],
  turns: ToolTurn[],
  tools: readonly unknown[],
  count: (text: string) => number = countTokens,
): number {
  // The steps are what models and tools wrote: counted a slice at a time (see pieceTokens).
  const steps = turns.reduce(
    (n, t) =>
      n +
      3 +
      (t.kind === 'result' ? pieceTokens(`${t.callId} ${t.text}`) : pieceTokens(`${t.text}${JSON.stringify(t.calls)}`)),
    0,
  );
  return countPromptTokens(messages, count) + steps + offeredToolsTokens(tools, count);
}

/** The tools offered with a request, by the engine's count (none offered: 0). */
export function offeredToolsTokens(tools: readonly unknown[], count: (text: string) => number = countTokens): number {
  return tools.length ? count(JSON.stringify(tools)) : 0;
}
