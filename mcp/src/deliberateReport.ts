/**
 * What `deliberate` answers: the digest as Markdown for the agent to read, and the same facts as
 * structured content (its `outputSchema`) for the agent to act on. Model text reaches the text
 * through the protocol's escaping builder (no raw HTML, no autolink, no entity), and the progress
 * line one line, controls dropped.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { ConsensusLevelSchema, TerminationReasonSchema, visibleText } from '@roundtable/protocol';
import { chosenOption, consensusLevelLabel, digestMarkdown } from '@roundtable/protocol/digestMarkdown';
import { inline, oneLine, paragraph } from '@roundtable/protocol/markdown';
import type { ConveneResult, RoundProgress } from '@roundtable/client';

/** The structured result; every field is described because agents read the schema, not this file. */
export const DELIBERATE_OUTPUT = {
  meetingId: z
    .string()
    .describe('The meeting id: open it in VS Code (Roundtable: Meetings) or `roundtable minutes <id>`'),
  status: z
    .enum(['closed', 'awaiting_human'])
    .describe('closed: the digest is ready; awaiting_human: the vote escalated and waits for the person'),
  outcome: z.string().describe('One line: where the panel landed, what the person must decide, or why it failed'),
  consensus: ConsensusLevelSchema.describe('FULL, MAJORITY or NONE'),
  verdict: z.string().optional().describe('Consensus mode: the option decided, when one was'),
  dissent: z.string().describe('Who disagreed or held back, and why'),
  confidence: z.number().min(0).max(1).describe('Share of workers whose final stance agrees'),
  terminatedBy: TerminationReasonSchema.optional().describe('Why the meeting ended'),
  cut: z.boolean().describe('True when the call was cancelled and the meeting cut short'),
  minutes: z
    .object({
      path: z.string().describe('The minutes file, or (when not written) how to write them'),
      written: z.boolean(),
    })
    .describe('The minutes of the meeting in the workspace'),
  decision: z
    .literal('pending')
    .describe('Always pending: the person accepts or rejects the decision in VS Code, never the caller'),
};

type Output = z.infer<z.ZodObject<typeof DELIBERATE_OUTPUT>>;

/**
 * One line per round for `notifications/progress`: who spoke, each stance, the judge's note. The
 * gists are visible and short already; control characters go too, as a client may print the line.
 */
export function progressLine(p: RoundProgress): string {
  const posts = p.posts.map(
    (x) =>
      `${oneLine(x.speaker)}${x.model ? ` (${oneLine(x.model)})` : ''}: ${x.stance ?? 'no stance'} — ${oneLine(x.gist)}`,
  );
  const judge = p.judge ? `; judge: ${oneLine(p.judge)}` : '';
  return `Round ${p.round}: ${posts.join('; ')}${judge}`;
}

export function deliberateReport(r: ConveneResult, minutes: Output['minutes']): CallToolResult {
  const d = r.digest;
  const s = r.state;
  const verdict = chosenOption(s);
  const out: Output = {
    meetingId: r.meetingId,
    status: s.status === 'awaiting_human' ? 'awaiting_human' : 'closed',
    // Model text, as data: shown as it is, bidi controls made visible (the outcome already is).
    outcome: r.outcome,
    consensus: d?.consensus ?? 'NONE',
    ...(verdict ? { verdict: visibleText(verdict) } : {}),
    dissent: visibleText(d?.dissent ?? ''),
    confidence: d?.confidence ?? 0,
    ...(s.closed ? { terminatedBy: s.closed.reason } : {}),
    cut: r.cut,
    minutes,
    decision: 'pending',
  };
  const head = d
    ? `Roundtable ${r.meetingId}: ${consensusLevelLabel(d.consensus)}${verdict ? ` — ${inline(verdict)}` : ''}${r.cut ? ' (cut short)' : ''}`
    : `Roundtable ${r.meetingId}: the vote escalated to the person — ${inline((s.escalation?.reasons ?? []).join('; '))}`;
  const where = minutes.written ? `Minutes: ${minutes.path}` : `Minutes not written: ${minutes.path}`;
  const text = [
    head,
    // No person edits this answer before a client renders it: the model's HTML is escaped.
    digestMarkdown(s, paragraph),
    where,
    'The decision is pending: the person reviews and accepts it in VS Code (Roundtable: Review).',
  ]
    .filter(Boolean)
    .join('\n\n');
  return { content: [{ type: 'text', text }], structuredContent: out };
}
