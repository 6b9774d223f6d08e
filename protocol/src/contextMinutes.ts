/**
 * What a meeting was shown and what its tools did, in the minutes (a table of paths and content
 * hashes; the workspace tool calls) and in the terminal and the room (one line each). Read from
 * the folded log alone.
 */
import type { ContextItem } from './context';
import { cell, codeSpan, inline } from './markdown';
import type { MeetingState } from './state';

/**
 * The minutes' "Context" section: what was shown, with the sha256 of what was sent, what was cut,
 * and what the workspace gate refused or redacted, one line each with why.
 */
export function contextMinutes(s: MeetingState): string[] {
  const c = s.context;
  if (!c) return [];
  const out = ['## Context', ''];
  if (c.items.length > 0) {
    out.push('| Kind | Path | sha256 | Tokens |', '| --- | --- | --- | --- |');
    for (const i of c.items)
      out.push(
        `| ${cell(i.kind)} | ${cell(i.path ?? '—')}${i.title ? ` — ${cell(i.title)}` : ''} | ${codeSpan(i.sha256)} | ${i.tokens}${i.truncated ? ' (cut)' : ''} |`,
      );
    out.push('');
  }
  out.push(`Context budget: ${c.budget} tokens.`, '');
  if (c.cut) out.push(`_${inline(c.cut)}_`, '');
  const redactions = c.items.filter((i) => i.redacted?.length);
  for (const r of c.refused) out.push(`- Refused ${codeSpan(r.path)}: ${inline(r.reason)}`);
  for (const i of redactions) out.push(`- Redacted in ${codeSpan(i.path ?? i.kind)}: ${redactedText(i)}`);
  if (c.refused.length + redactions.length > 0) out.push('');
  return out;
}

/** "line 3 (github), line 9 (jwt)": what the workspace gate redacted in one item. */
function redactedText(i: ContextItem): string {
  return (i.redacted ?? []).map((r) => `line ${r.line} (${inline(r.rule)})`).join(', ');
}

/** One line per refusal and the cut, for the terminal and the room. */
export function contextLines(c: NonNullable<MeetingState['context']>): string[] {
  const tokens = c.items.reduce((n, i) => n + i.tokens, 0);
  return [
    `context: ${c.items.length} item(s), ${tokens} of ${c.budget} tokens${c.items.length ? ` (${c.items.map((i) => i.path ?? i.kind).join(', ')})` : ''}`,
    ...c.refused.map((r) => `refused ${r.path}: ${r.reason}`),
    ...c.items.filter((i) => i.redacted?.length).map((i) => `redacted in ${i.path ?? i.kind}: ${redactedText(i)}`),
    ...(c.cut ? [c.cut] : []),
  ];
}

/** The minutes' "Workspace tool calls" section: who called what, with what, and what came back. */
export function toolMinutes(s: MeetingState): string[] {
  const calls = s.toolCalls ?? [];
  if (calls.length === 0) return [];
  const out = [
    '## Workspace tool calls',
    '',
    '| Round | Who | Tool | Arguments | Result | Tokens |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const c of calls)
    out.push(
      `| ${c.round} | ${cell(c.participant)} | ${cell(c.tool)} | ${codeSpan(c.args.slice(0, 200))} | ${c.ok ? '' : 'refused: '}${cell(c.summary)} | ${c.tokens} |`,
    );
  out.push('');
  return out;
}

/** One terminal line for a tool call. */
export function toolLine(c: { participant: string; tool: string; args: string; ok: boolean; tokens: number }): string {
  return `${c.participant} used ${c.tool} ${c.args.slice(0, 120)} → ${c.ok ? 'ok' : 'refused'} (${c.tokens} tokens)`;
}
