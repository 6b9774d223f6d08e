/**
 * Earlier decisions: the records in the decisions folder (MADR, with or without front matter,
 * and Nygard's format) are parsed for title, status and date, and the ones whose words overlap
 * the topic are attached to the meeting as evidence, at most `MAX_RELEVANT`.
 */
import { promises as fs } from 'node:fs';
import type { ContextItem, ContextRefusal } from '@roundtable/protocol';
import { visibleText } from '@roundtable/protocol';
import { truncateToTokens } from '../providers/tokens';
import { IGNORED, type Redaction, type WorkspaceGate } from '../gate';

export const MAX_RELEVANT = 5;
/** Most record files read from the folder. */
const MAX_RECORD_FILES = 200;
/** Each record is shown up to this many tokens: enough for context and decision, not every detail. */
export const RECORD_MAX_TOKENS = 500;

export interface DecisionRecord {
  path: string;
  title: string;
  status?: string;
  date?: string;
  text: string;
  /** sha256 of `text` as the workspace gate let it through, and what it redacted. */
  sha256?: string;
  redacted?: Redaction[];
}

const STOP = new Set(
  'should would could about which there their these those with from into over under that this what when where have will adopt use using make more most than then them they were been also only just your ours shall does'.split(
    ' ',
  ),
);

export function keywords(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length >= 4 && !STOP.has(w)),
  );
}

/** Title, status and date of a MADR (front matter or bullet list) or Nygard record. */
export function parseRecord(relPath: string, text: string): DecisionRecord {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const front: Record<string, string> = {};
  // Front matter only when it is closed: an opening `---` alone is no front matter, or its keys
  // would swallow the whole record (and a forged `status:` line in the body would count).
  const frontEnd = lines[0]?.trim() === '---' ? lines.findIndex((l, i) => i > 0 && l.trim() === '---') : -1;
  if (frontEnd > 0) {
    for (let i = 1; i < frontEnd; i++) {
      const m = /^([A-Za-z_-]+)\s*:\s*(.*)$/.exec(lines[i] ?? '');
      if (m) front[(m[1] as string).toLowerCase()] = (m[2] as string).trim().replace(/^["']|["']$/g, '');
    }
  }
  // One line, at most 200 characters, shown as it is (bidi controls as escapes): a title is a
  // label, not a place to carry a payload.
  const title = visibleText(
    lines
      .find((l) => /^#\s+\S/.test(l))
      ?.replace(/^#\s+/, '')
      .trim() ?? relPath,
  ).slice(0, 200);
  const field = (name: string): string | undefined => {
    if (front[name]) return front[name];
    const bullet = lines.find((l) => new RegExp(`^\\s*(?:[*-]\\s*)?${name}\\s*:`, 'i').test(l));
    if (bullet) return bullet.replace(/^[^:]*:\s*/, '').trim() || undefined;
    const h = lines.findIndex((l) => new RegExp(`^##\\s+${name}\\s*$`, 'i').test(l));
    if (h >= 0)
      return lines
        .slice(h + 1)
        .find((l) => l.trim() !== '' && !l.startsWith('#'))
        ?.trim();
    return undefined;
  };
  const status = field('status');
  const date = field('date');
  return { path: relPath, title, ...(status ? { status } : {}), ...(date ? { date } : {}), text };
}

/** Records ranked by keyword overlap with the topic (a title word counts thrice), best first. */
export function rankRecords(records: DecisionRecord[], topic: string, max = MAX_RELEVANT): DecisionRecord[] {
  const want = keywords(topic);
  return records
    .map((r) => {
      const inTitle = keywords(r.title);
      const inBody = keywords(r.text);
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
  const where = await opts.gate.locate(opts.folder);
  if ('reason' in where)
    // No decisions yet: nothing to cite.
    return { items: [], refused: where.reason === 'does not exist' ? [] : [where] };
  if (!(await fs.stat(where.real)).isDirectory())
    return { items: [], refused: [{ path: opts.folder, reason: 'is not a folder' }] };
  const files = await opts.gate.files({ dir: where.real, match: /\.md$/i, limit: MAX_RECORD_FILES });
  const records: DecisionRecord[] = [];
  const refused = files.refused.filter((r) => r.reason !== IGNORED);
  for (const f of files.passed.filter((f) => !/(^|\/)(README|index|template)\.md$/i.test(f))) {
    const r = await opts.gate.read(f, { screened: true });
    if (r.ok) records.push({ ...parseRecord(r.rel, r.text), sha256: r.sha256, redacted: r.redacted });
    else refused.push({ path: r.path, reason: r.reason });
  }
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
