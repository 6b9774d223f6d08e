/**
 * Earlier decisions: the records in the decisions folder (MADR, with or without front matter,
 * and Nygard's format; read by the rulebook loader) ranked by the words they share with a topic,
 * and the ones that overlap attached to the meeting as evidence, at most `MAX_RELEVANT`; and a
 * person's search of them (`roundtable decisions WORDS`, the Decisions view).
 */
import { foldDiacritics, type ContextItem, type ContextRefusal } from '@roundtable/protocol';
import { truncateToTokens } from '../providers/tokens';
import type { WorkspaceGate } from '../gate';
import type { DecisionRecord } from './record';
import { loadDecisions } from './rulebook';

export const MAX_RELEVANT = 5;
/** Each record is shown up to this many tokens: enough for context and decision, not every detail. */
export const RECORD_MAX_TOKENS = 500;

const STOP = new Set(
  'should would could about which there their these those with from into over under that this what when where have will adopt use using make more most than then them they were been also only just your ours shall does'.split(
    ' ',
  ),
);

/**
 * A word's form for matching: its plural (`placeholders`, `policies`, `indexes`) and its common
 * suffixes (`-ing`, `-ed`, a final `-e`) taken off, so "placeholder" finds "Placeholders" and
 * "cache" finds "caching" and "cached". Light by design (no dictionary): the same word forms meet;
 * a word never grows.
 */
export function wordForm(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (/(?:ch|sh|x|z|ss)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  const suffix = /(?:ing|ed)$/.exec(w);
  if (suffix && w.length - suffix[0].length >= 3) {
    w = w.slice(0, -suffix[0].length);
    // mapped -> mapp -> map; but "all", "class", "buzz" keep their double letter.
    if (/([^aeioulsz])\1$/.test(w)) w = w.slice(0, -1);
  }
  if (w.endsWith('e') && w.length >= 4) w = w.slice(0, -1);
  return w;
}

/** The words of `text` that carry meaning, as word forms: lower-cased, accents off, at least `minLength` letters, no stop words. */
export function keywords(text: string, minLength = 4): Set<string> {
  const out = new Set<string>();
  for (const w of foldDiacritics(text.toLowerCase()).split(/[^\p{L}\p{N}]+/u))
    if (w.length >= minLength && !STOP.has(w)) out.add(wordForm(w));
  return out;
}

/** How many of the wanted words a record's title holds, and how many its body holds. */
function matches(r: DecisionRecord, want: ReadonlySet<string>, minLength: number): { title: number; body: number } {
  const inTitle = keywords(r.title, minLength);
  const inBody = keywords(r.text, minLength);
  let title = 0;
  let body = 0;
  for (const w of want) {
    if (inTitle.has(w)) title++;
    if (inBody.has(w)) body++;
  }
  return { title, body };
}

/**
 * Records ranked by keyword overlap with the topic (a title word counts thrice), best first: the
 * relevance a meeting is briefed by and a review picks unscoped rules by. `minLength`: the
 * shortest word that counts (a topic's short words are noise).
 */
export function rankRecords(
  records: DecisionRecord[],
  topic: string,
  max = MAX_RELEVANT,
  minLength = 4,
): DecisionRecord[] {
  const want = keywords(topic, minLength);
  return records
    .map((r) => {
      const m = matches(r, want, minLength);
      return { r, score: 3 * m.title + m.body };
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || (a.r.path < b.r.path ? -1 : 1))
    .slice(0, max)
    .map((x) => x.r);
}

/**
 * A person's search: the records that share a word form with `words` (words of two letters count:
 * "sql" is meant), every record whose title matches before any matched only in its body, then by
 * how many words matched; records keep their given order otherwise.
 */
export function searchRecords(records: readonly DecisionRecord[], words: string): DecisionRecord[] {
  const want = keywords(words, 2);
  return records
    .map((r, i) => ({ r, i, ...matches(r, want, 2) }))
    .filter((x) => x.title + x.body > 0)
    .sort((a, b) => Number(b.title > 0) - Number(a.title > 0) || b.title - a.title || b.body - a.body || a.i - b.i)
    .map((x) => x.r);
}

/** Reads the decisions folder (every record through the workspace gate) and returns the records relevant to the topic. */
export async function relevantDecisions(opts: {
  gate: WorkspaceGate;
  folder: string;
  topic: string;
}): Promise<{ items: Omit<ContextItem, 'tokens' | 'truncated'>[]; refused: ContextRefusal[] }> {
  const book = await loadDecisions({ gate: opts.gate, folder: opts.folder });
  if (!book.ok)
    // No decisions yet: nothing to cite.
    return { items: [], refused: book.missing ? [] : [{ path: opts.folder, reason: book.reason }] };
  const { records, refused } = book;
  const items = rankRecords(records, opts.topic).map((r) => ({
    kind: 'decision' as const,
    path: r.path,
    sha256: r.sha256 ?? '',
    text: truncateToTokens(r.text, RECORD_MAX_TOKENS),
    title: r.title,
    ...(r.redacted?.length ? { redacted: r.redacted } : {}),
    ...(r.status ? { status: r.status } : {}),
    ...(r.date ? { date: r.date } : {}),
  }));
  return { items, refused };
}
