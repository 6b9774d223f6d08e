/**
 * The MADR-style decision record, as pure text (no VS Code API), so it can be rendered and checked
 * outside the editor. Every field from the meeting or the edited digest goes through the escaping
 * Markdown builder.
 */
import type { MeetingState } from '../../protocol/src';
import { formatBill } from '../../protocol/src';
import { codeBlock, codeSpan, heading, inline, paragraph } from '../../protocol/src/markdown';

/** MADR-style decision record text. Every field from the meeting or the edited digest is escaped. */
export function decisionRecord(s: MeetingState, number: number, digestText: string, minutesLink: string): string {
  const date = new Date(s.decision?.at ?? Date.now()).toISOString().slice(0, 10);
  const dissent = /^DISSENT:\s*(.+)$/m.exec(digestText)?.[1] ?? s.digest?.digest.dissent ?? 'none recorded';
  const consensus = /^CONSENSUS:\s*(.+)$/m.exec(digestText)?.[1] ?? s.digest?.digest.consensusStatement ?? '';
  const contributors = /^CONTRIBUTORS:\s*(.+)$/m.exec(digestText)?.[1] ?? '';
  const workers = s.participants.filter((p) => p.role === 'worker');
  const link = encodeURI(minutesLink);
  return [
    heading(1, `${String(number).padStart(4, '0')}. ${s.topic.split('\n')[0] ?? ''}`),
    '',
    `- Status: accepted`,
    `- Date: ${date}`,
    `- Deciders: the team, advised by a Roundtable of ${inline(workers.map((w) => `${w.name} (${w.model})`).join(', '))}`,
    `- Minutes: [${inline(minutesLink)}](<${link.replace(/[<>]/g, '')}>)`,
    '',
    '## Context and Problem Statement',
    '',
    paragraph(s.topic),
    '',
    '## Decision Outcome',
    '',
    paragraph(consensus),
    '',
    `Consensus: ${s.digest?.digest.consensus ?? 'NONE'}; confidence ${s.digest?.digest.confidence.toFixed(2) ?? '—'}; the meeting ended on ${codeSpan(s.closed?.reason ?? '?')} after ${s.rounds.length} round(s).`,
    '',
    '## Consequences',
    '',
    `- Dissent to keep in mind: ${inline(dissent)}`,
    ...(contributors ? [`- Arguments made: ${inline(contributors)}`] : []),
    // Both figures, named: spoken against the budget and what the calls billed (money where priced).
    `- Token cost: ${s.digest ? inline(formatBill(s)) : '—'}`,
    '',
    '## Digest as accepted',
    '',
    codeBlock(digestText, 'text'),
    '',
  ].join('\n');
}
