/**
 * The digest as the Markdown a person reviews and edits: one `##` section per part (outcome,
 * dissent, contributions, standing, and whether the debate was worth it). Written from the
 * structured digest through the escaping builder, so a model's text cannot add a section, and read
 * back by section title, so the decision record takes the outcome the person accepted. One definition for the review panel and the record.
 */
import type { ConsensusLevel } from './domain';
import { terminationLabel } from './labels';
import { editableParagraph, inline, paragraph } from './markdown';
import type { MeetingState } from './state';

export const DIGEST_SECTIONS = {
  outcome: 'Outcome',
  dissent: 'Dissent',
  contributions: 'Contributions',
  standing: 'Standing',
  debate: 'Was the debate worth it?',
} as const;
export type DigestSection = keyof typeof DIGEST_SECTIONS;

const LEVELS: Record<ConsensusLevel, string> = {
  FULL: 'Full consensus',
  MAJORITY: 'Majority',
  NONE: 'No consensus',
};

/** "Full consensus", "Majority", "No consensus" for the digest's consensus level. */
export function consensusLevelLabel(level: ConsensusLevel): string {
  return LEVELS[level];
}

/** The option the room (or the human) settled on in a consensus meeting, by label. */
export function chosenOption(s: MeetingState): string | undefined {
  const picked = [...s.resolutions].reverse().find((r) => r.action === 'pick')?.option;
  const decided = [...s.rounds].reverse().find((r) => r.verdict?.decision)?.verdict?.decision;
  const id = picked ?? decided;
  if (!id) return undefined;
  return s.options.find((o) => o.id === id || o.label.toLowerCase() === id.toLowerCase())?.label ?? id;
}

/**
 * The digest of a closed meeting as reviewable Markdown; empty before the digest is written. The
 * model's text goes through `body`: HTML left as typed for the review's editor (the default), or
 * `paragraph` (HTML escaped) for Markdown no person edits before it is shown (an MCP answer).
 */
export function digestMarkdown(s: MeetingState, body: (text: string) => string = editableParagraph): string {
  const d = s.digest?.digest;
  if (!d) return '';
  // A review decides no option: its standing is what it spent and how it ended, not a consensus level.
  const standing = [
    ...(s.config.review ? [] : [consensusLevelLabel(d.consensus), `confidence ${d.confidence.toFixed(2)}`]),
    `${d.tokensUsed.toLocaleString('en-US')} / ${d.tokenBudget.toLocaleString('en-US')} tokens`,
    `ended: ${terminationLabel(d.terminatedBy)}`,
    // A server's error text is no Markdown of ours: escaped.
    ...(d.seats ? [inline(d.seats)] : []),
  ].join(' · ');
  const section = (key: DigestSection, body: string) => `## ${DIGEST_SECTIONS[key]}\n\n${body.trim() || '—'}\n`;
  return [
    // A consensus meeting's statement already names the option decided (or that none was).
    section('outcome', body(d.consensusStatement)),
    section('dissent', body(d.dissent)),
    section('contributions', body(d.contributors)),
    section('standing', standing),
    // Computed from the log (round-1 majority, who changed position after what, what later rounds cost).
    ...(d.debate ? [section('debate', paragraph(d.debate))] : []),
  ].join('\n');
}

/**
 * The sections of a reviewed digest by their key, as the person left them (Markdown). A digest in
 * the older `LABEL: value` form (logs written before the Markdown review) is read by its labels.
 */
export function digestSections(markdown: string): Partial<Record<DigestSection, string>> {
  const out: Partial<Record<DigestSection, string>> = {};
  const titles = Object.entries(DIGEST_SECTIONS) as [DigestSection, string][];
  let current: DigestSection | undefined;
  const lines: string[] = [];
  const flush = () => {
    if (current) out[current] = lines.join('\n').trim();
    lines.length = 0;
  };
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const h = /^##\s+(.+?)\s*#*\s*$/.exec(line);
    if (h) {
      flush();
      current = titles.find(([, t]) => t.toLowerCase() === h[1]!.toLowerCase())?.[0];
      continue;
    }
    if (current) lines.push(line);
  }
  flush();
  if (Object.keys(out).length > 0) return out;
  const label = (l: string) => new RegExp(`^${l}:\\s*(.+)$`, 'm').exec(markdown)?.[1]?.trim();
  const legacy: [DigestSection, string | undefined][] = [
    ['outcome', label('CONSENSUS')?.replace(/^(FULL|MAJORITY|NONE) — /, '')],
    ['dissent', label('DISSENT')],
    ['contributions', label('CONTRIBUTORS')],
  ];
  // Those values are a model's plain text: escaped here, so every section returned is Markdown.
  for (const [k, v] of legacy) if (v) out[k] = paragraph(v);
  return out;
}

/** A decision that ends the review (another round reopens it: the next digest is reviewed again). */
export function finalDecision(s: MeetingState): MeetingState['decision'] | undefined {
  return s.decision && s.decision.decision !== 'another_round' ? s.decision : undefined;
}

/** The Markdown the editor starts from: what was accepted, else the digest as written. */
export function reviewMarkdown(s: MeetingState): string {
  return finalDecision(s)?.digestText ?? digestMarkdown(s);
}
