/**
 * The Assistant's digest reply: three labelled fields, read however a model lays them out —
 * `LABEL: text`, bold (`**CONSENSUS_STATEMENT:** …`, `**Consensus statement**: …`), a heading
 * (`## CONSENSUS_STATEMENT`) or an empty label with the text on the lines below, spaces for the
 * underscore, any case; and section headings that plainly name a field (`## Decision`, `### Verdict`,
 * `## Unresolved Disagreements`).
 */
/** What the digest reply gives the digest: the narrative fields a model wrote (digest.ts adds the rest). */
export interface DigestNarrative {
  consensusStatement?: string;
  contributors?: string;
  dissent?: string;
}

type Field = 'statement' | 'consensus' | 'contributors' | 'dissent';

const NAME = String.raw`(consensus[\s_-]*statement|consensus|contributors|dissent)`;
/** `LABEL: text` (the text may be empty: it follows on the next lines). Matched after emphasis and heading marks are dropped. */
const INLINE_RE = new RegExp(String.raw`^${NAME}\s*[:：]\s*(.*)$`, 'i');
/** A label standing alone as a heading or a bold line: its text follows on the next lines. */
const ALONE_RE = new RegExp(String.raw`^${NAME}\s*[:：]?$`, 'i');
/**
 * Section names that are a field only as a heading or a bold line of their own (`## Decision`,
 * `### Verdict`, `**Dissenting views**`, `## Unresolved Disagreements`): as words in a line they
 * are too common to be labels.
 */
const SECTION_RE =
  /^((?:final\s+)?(?:decision|verdict)|dissenting\s+(?:views?|opinions?|positions?)|(?:unresolved\s+|remaining\s+|open\s+)?disagreements)\s*[:：]?$/i;

function fieldOf(name: string): Field {
  const n = name.toLowerCase();
  if (/decision|verdict/.test(n)) return 'consensus';
  if (/dissent|disagree/.test(n)) return 'dissent';
  return n.startsWith('consensus') ? (/statement/.test(n) ? 'statement' : 'consensus') : (n as Field);
}

const HEADING_RE = /^\s*(#{1,6})\s/;
const BULLET_RE = /^\s*(?:[-*+•]|\d+[.)])\s+/;

/** The heading level of a line (`## x` → 2), 0 when it is no heading. */
function levelOf(line: string): number {
  return HEADING_RE.exec(line)?.[1]?.length ?? 0;
}

/** A label on this line, with the text beside it ('' when the text follows below). */
function labelOf(line: string): { field: Field; text: string } | undefined {
  const bare = line
    .replace(/\*\*|__/g, '')
    .replace(/^\s*#{1,6}\s+/, '')
    .replace(BULLET_RE, '')
    .trim();
  const m = ALONE_RE.exec(bare) ?? INLINE_RE.exec(bare);
  if (m?.[1]) return { field: fieldOf(m[1]), text: (m[2] ?? '').trim() };
  const standalone = levelOf(line) > 0 || /^\s*(?:\*\*|__)/.test(line);
  const section = standalone ? SECTION_RE.exec(bare) : null;
  return section?.[1] ? { field: fieldOf(section[1]), text: '' } : undefined;
}

/**
 * The text under an empty label: the lines up to the next label or heading, or a blank line after
 * some text. Under a heading label, a deeper heading is part of its section (`## Disagreements`
 * then `### 1. Cache or not?`): its words are text.
 */
function textBelow(lines: string[], from: number, level: number): string {
  let out = '';
  // Read in place (never a copy of the rest per label): each line once per label above it at most up to the next label.
  for (let k = from; k < lines.length; k++) {
    const line = lines[k] as string;
    const depth = levelOf(line);
    if (labelOf(line) || (depth > 0 && (level === 0 || depth <= level))) break;
    if (!line.trim()) {
      if (out) break;
      continue;
    }
    const text = line.replace(/^\s*#{1,6}\s+/, '');
    const item = text.replace(BULLET_RE, '').trim();
    out += (out ? (BULLET_RE.test(text) ? '; ' : ' ') : '') + item;
  }
  return out;
}

/** A value worth keeping: not empty and not the template's `<placeholder>`. */
function usable(text: string): string | undefined {
  const t = text
    .replace(/\*\*|__/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return t && !/^<[^>]*>\.?$/.test(t) ? t : undefined;
}

/**
 * Reads the Assistant's three labelled fields; the LAST occurrence of each wins (a model may
 * restate the template first), anything missing stays undefined.
 */
export function parseDigestReply(text: string): DigestNarrative {
  const found: Partial<Record<Field, string>> = {};
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    const label = labelOf(line);
    const value = label && usable(label.text || textBelow(lines, i + 1, levelOf(line)));
    if (label && value) found[label.field] = value;
  });
  const out: DigestNarrative = {};
  const statement = found.statement ?? found.consensus;
  if (statement) out.consensusStatement = statement;
  if (found.contributors) out.contributors = found.contributors;
  if (found.dissent) out.dissent = found.dissent;
  return out;
}
