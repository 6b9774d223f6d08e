/**
 * Earlier decisions: the records in the decisions folder (MADR, with or without front matter,
 * and Nygard's format; read by the rulebook loader) ranked by the words they share with a topic,
 * and the ones that overlap attached to the meeting as evidence, at most `MAX_RELEVANT`.
 */
import type { ContextItem, ContextRefusal } from '@roundtable/protocol';
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

/** The words of `text` that carry meaning: lower-cased, at least `minLength` letters, no stop words. */
export function keywords(text: string, minLength = 4): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length >= minLength && !STOP.has(w)),
  );
}

/**
 * Records ranked by keyword overlap with the topic (a title word counts thrice), best first.
 * `minLength`: the shortest word that counts (a person searching for "sql" means it; a topic's
 * short words are noise).
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
      const inTitle = keywords(r.title, minLength);
      const inBody = keywords(r.text, minLength);
      let score = 0;
      for (const w of want) score += (inTitle.has(w) ? 3 : 0) + (inBody.has(w) ? 1 : 0);
      return { r, score };
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || (a.r.path < b.r.path ? -1 : 1))
    .slice(0, max)
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
