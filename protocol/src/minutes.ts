/**
 * Minutes: a deterministic Markdown rendering of a meeting's folded log. Same state in, same bytes
 * out, so minutes can be re-rendered from the store at any time and diffed in review, by the daemon
 * or by any client from the state it already holds. The file is written by client/src/minutesFile.ts.
 */
import { billOf, formatBill, formatUsd, type Bill, type BillLine } from './billing';
import { renderBallot, renderConsensusReport } from './consensusReport';
import { contextMinutes, toolMinutes } from './contextMinutes';
import { debateMinutes } from './debateMinutes';
import { CANNED_NOTE, ignoresTopic } from './demo';
import { cell, codeBlock, codeSpan, heading, inline, quote } from './markdown';
import { stanceMatrix, type MeetingState, type PostedMessage, type RoundState } from './state';
import { formatCount, slugify } from './text';

function iso(ms: number | undefined): string {
  return ms === undefined ? '—' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** How the minutes are rendered. */
export interface MinutesOptions {
  /**
   * Include each model's thinking as a labelled quote (`roundtable minutes --thinking`). By default
   * the minutes only say how much there was: thinking is long, unspoken and hostile model text.
   */
  thinking?: boolean;
}

/** The line (or labelled quote) a message's thinking leaves in the minutes; none without thinking. */
export function thinkingMinutes(m: PostedMessage, opts: MinutesOptions = {}): string[] {
  if (!m.thinking && m.thinkingTokens === undefined) return [];
  // The engine logs the tokens with every thinking it keeps; a log without them says so, uncounted.
  const tokens = m.thinkingTokens === undefined ? 'an unrecorded number of' : n(m.thinkingTokens);
  if (!opts.thinking || !m.thinking) return [`_(thought for ${tokens} tokens; not included)_`, ''];
  return [`**Thinking of ${inline(m.from)}** (${tokens} tokens, never spoken in the room):`, '', quote(m.thinking), ''];
}

/** The minutes of a meeting, from its folded log (`fold(events)`, or the state a mirror holds). */
export function renderMinutes(s: MeetingState, opts: MinutesOptions = {}): string {
  const bill = billOf(s);
  return [
    ...headerMinutes(s, bill),
    ...participantsMinutes(s),
    ...contextMinutes(s),
    ...briefingMinutes(s, opts),
    ...roundsMinutes(s, opts),
    ...interruptionsMinutes(s),
    ...ballotsMinutes(s),
    ...stanceMatrixMinutes(s),
    // A review decides no option: "did the debate change the outcome" says nothing of it.
    ...(s.rounds.length > 0 && !s.config.review ? debateMinutes(s) : []),
    ...toolMinutes(s),
    ...outcomeMinutes(s),
    ...tokenAccounting(s, bill),
  ].join('\n');
}

/** Title, the canned-reply note, the facts list and (roundtables) the topic. */
function headerMinutes(s: MeetingState, bill: Bill): string[] {
  const out: string[] = [];
  // Canned replies on another topic are never presented as an answer to it: said under the title.
  const canned = ignoresTopic(s) ? [`> **${CANNED_NOTE}.**`, ''] : [];
  if (s.mode === 'consensus') {
    // The consensus report leads; the meeting record follows it.
    const report = renderConsensusReport(s).split('\n');
    report.splice(2, 0, ...canned);
    out.push(report.join('\n'), '---', '');
    out.push(`## Meeting record`, '');
  } else {
    out.push(heading(1, `Roundtable minutes: ${s.topic.split('\n')[0] ?? ''}`), '', ...canned);
  }
  out.push(`- **Meeting:** ${codeSpan(s.meetingId)}`);
  out.push(`- **Mode:** ${s.mode}`);
  out.push(`- **Started:** ${iso(s.openedAt)}`);
  out.push(`- **Ended:** ${iso(s.closedAt)}`);
  out.push(
    `- **Terminated by:** ${codeSpan(s.closed?.reason ?? 'still running')}${s.closed?.detail ? ` (${inline(s.closed.detail)})` : ''}`,
  );
  const lastConsensus = [...s.rounds].reverse().find((r) => r.consensus)?.consensus;
  out.push(
    `- **Consensus:** ${lastConsensus ? `${lastConsensus.level} (${lastConsensus.agree} agree, ${lastConsensus.disagree} disagree, ${lastConsensus.neutral} neutral of ${lastConsensus.voters})` : 'not evaluated'}`,
  );
  out.push(`- **Rounds:** ${s.rounds.length} of at most ${s.config.maxRounds} (${s.config.order} order)`);
  out.push(
    `- **Tokens spoken:** ${s.spokenTokens.toLocaleString('en-US')} / ${s.config.tokenBudget.toLocaleString('en-US')}`,
  );
  out.push(`- **Bill:** ${inline(formatBill(s, bill))}`);
  if (s.mode !== 'consensus') out.push('', '## Topic', '', quote(s.topic), '');
  else out.push('');
  return out;
}

function participantsMinutes(s: MeetingState): string[] {
  const out = ['## Participants', '', '| Name | Role | Provider | Model |', '| --- | --- | --- | --- |'];
  for (const p of s.participants)
    out.push(`| ${cell(p.name)} | ${cell(p.role)} | ${cell(p.provider)} | ${cell(p.model)} |`);
  out.push('');
  return out;
}

/** The briefing and the human posts made before round 1. */
function briefingMinutes(s: MeetingState, opts: MinutesOptions): string[] {
  const out: string[] = [];
  if (s.briefing)
    out.push(
      '## Briefing',
      '',
      `**${inline(s.briefing.from)}** (assistant):`,
      '',
      quote(s.briefing.text),
      '',
      ...thinkingMinutes(s.briefing, opts),
    );
  const before = s.pendingHumanPosts;
  if (before.length > 0) {
    out.push('## Before round 1', '');
    for (const m of before) out.push(`**${inline(m.from)}** (human):`, '', quote(m.text), '');
  }
  return out;
}

/** A roundtable's rounds: contributions, human posts, announcements, stances, judge, summary. */
function roundsMinutes(s: MeetingState, opts: MinutesOptions): string[] {
  if (s.mode === 'consensus') return [];
  const out: string[] = [];
  const announcements = s.messages.filter((m) => m.kind === 'announcement');
  for (const r of s.rounds) {
    out.push(`## Round ${r.round}${r.final ? ' (final)' : ''}`, '');
    out.push(`Speaking order: ${inline(r.speakers.join(', ')) || '(nobody)'}`, '');
    for (const w of r.speakers) out.push(...contributionMinutes(w, r, opts));
    for (const h of r.humanPosts) out.push(heading(3, `${h.from} (human)`), '', quote(h.text), '');
    for (const a of announcements.filter((m: PostedMessage) => m.round === r.round)) {
      out.push(`**${inline(a.from)}** (assistant): ${inline(a.text)}`, '');
    }
    out.push('| Worker | Stance |', '| --- | --- |');
    for (const w of r.speakers)
      out.push(`| ${cell(w)} | ${r.stances[w]?.stance ?? '—'}${r.stances[w]?.passed ? ' (passed)' : ''} |`);
    out.push('');
    if (r.consensus) out.push(`Consensus after round ${r.round}: **${r.consensus.level}**`, '');
    if (r.judge) {
      if (r.judge.converged) out.push(`**Judge:** CONVERGED — ${inline(r.judge.converged)}`, '');
      else if (r.judge.text) out.push('**Judge notes:**', '', quote(r.judge.text), '');
      else out.push('**Judge:** no corrections.', '');
    }
    if (r.summary !== undefined)
      out.push('<details><summary>Rolling summary</summary>', '', quote(r.summary || '(empty)'), '', '</details>', '');
  }
  return out;
}

function contributionMinutes(w: string, r: RoundState, opts: MinutesOptions): string[] {
  const m = r.contributions[w];
  if (m) return [heading(3, w), '', quote(m.text), '', ...thinkingMinutes(m, opts)];
  const failure = r.failures[w];
  if (!failure) return [];
  return [
    heading(3, w),
    '',
    `_${failure.reason === 'timeout' ? 'Timed out' : 'Failed'}: ${inline(failure.detail)}_`,
    '',
  ];
}

function interruptionsMinutes(s: MeetingState): string[] {
  if (s.interruptions.length === 0) return [];
  return ['## Interruptions', '', ...s.interruptions.map((i) => `- ${iso(i.at)}: ${inline(i.detail)}`), ''];
}

function ballotsMinutes(s: MeetingState): string[] {
  if (s.mode !== 'consensus') return [];
  const out: string[] = [];
  for (const r of s.rounds) {
    out.push(`## Ballots, round ${r.round}${r.round > 1 ? ' (challenge)' : ''}`, '');
    for (const [w, b] of Object.entries(r.ballots)) {
      out.push(heading(3, `${w}${b.valid ? '' : ' (invalid ballot)'}`), '', quote(renderBallot(s, b.votes)), '');
    }
    for (const h of r.humanPosts) out.push(heading(3, `${h.from} (human)`), '', quote(h.text), '');
  }
  return out;
}

function stanceMatrixMinutes(s: MeetingState): string[] {
  const matrix = stanceMatrix(s);
  if (s.mode === 'consensus' || matrix.rounds.length === 0) return [];
  const out = ['## Stance matrix', ''];
  out.push(`| Worker | ${matrix.rounds.map((r) => `R${r}`).join(' | ')} |`);
  out.push(`| --- | ${matrix.rounds.map(() => '---').join(' | ')} |`);
  for (const w of matrix.workers) {
    out.push(`| ${cell(w)} | ${matrix.rounds.map((r) => matrix.cells[w]?.[r] || '·').join(' | ')} |`);
  }
  out.push('');
  return out;
}

/** The digest and the decision recorded on it. */
function outcomeMinutes(s: MeetingState): string[] {
  const out: string[] = [];
  if (s.digest) out.push('## Digest', '', codeBlock(s.digest.text, 'text'), '');
  if (s.decision) {
    out.push('## Decision', '', `**${s.decision.decision}** on ${iso(s.decision.at)}`, '');
    if (s.decision.instruction) out.push(quote(s.decision.instruction), '');
  }
  return out;
}

const n = formatCount;
const money = (l: BillLine): string => (l.costUsd === undefined ? '—' : formatUsd(l.costUsd));
const figures = (l: BillLine): string =>
  `${l.calls} | ${n(l.promptTokens)} | ${n(l.completionTokens)} | ${n(l.cachedTokens)} | ${n(l.totalTokens)} | ${money(l)}`;

/**
 * What every call billed (the servers' usage), per participant and per role, next to the spoken
 * budget; money where a price is known, and the requests made to VS Code's models.
 */
function tokenAccounting(s: MeetingState, bill: ReturnType<typeof billOf>): string[] {
  const out = [
    '## Token accounting',
    '',
    `Spoken (what the budget${(s.config.budgetBasis ?? 'spoken') === 'spoken' ? ' caps' : ' does not cap here'}): ${n(s.spokenTokens)} of ${n(s.config.tokenBudget)}. ` +
      `Billed (prompt + completion of every call${s.config.budgetBasis === 'billed' ? ', what the budget caps' : ''}): ${n(bill.totalTokens)}.`,
    '',
    '| Participant | Model | Calls | Prompt | Completion | Cached | Total | Cost | Estimated calls |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const [name, l] of Object.entries(bill.byParticipant))
    out.push(`| ${cell(name)} | ${cell(l.model)} | ${figures(l)} | ${l.estimatedCalls} |`);
  out.push(`| **total** | | ${figures(bill)} | ${bill.estimatedCalls} |`, '');
  out.push(
    '| Role | Calls | Prompt | Completion | Cached | Total | Cost |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const [role, l] of Object.entries(bill.byRole)) {
    // Roles have no model of their own: their cost is the sum over the participants holding them.
    const cost = Object.values(s.participants)
      .filter((p) => p.role === role)
      .map((p) => bill.byParticipant[p.name]?.costUsd)
      .filter((c): c is number => c !== undefined);
    const priced: BillLine = cost.length ? { ...l, costUsd: cost.reduce((a, b) => a + b, 0) } : l;
    out.push(`| ${cell(role)} | ${figures(priced)} |`);
  }
  out.push('');
  if (bill.reasoningTokens)
    out.push(
      `Thinking: ${n(bill.reasoningTokens)} of the ${n(bill.completionTokens)} completion tokens (billed, never spoken).`,
      '',
    );
  const lm = bill.requestsByProvider['vscode-lm'];
  if (lm) out.push(`VS Code language model requests: ${n(lm)} (what Copilot counts as premium requests).`, '');
  if (bill.estimatedCalls > 0)
    out.push(
      `${bill.estimatedCalls} call${bill.estimatedCalls === 1 ? '' : 's'} reported no usage: counted locally with a tokenizer.`,
      '',
    );
  if (bill.costUsd !== undefined && bill.unpricedModels.length > 0)
    out.push(`No price known for ${bill.unpricedModels.map(codeSpan).join(', ')}: the cost above leaves them out.`, '');
  return out;
}

/** `YYYY-MM-DD-<slug>` (consensus meetings: `YYYY-MM-DD-consensus-<slug>`), without extension. */
export function minutesFileBase(s: MeetingState): string {
  const date = new Date(s.openedAt).toISOString().slice(0, 10);
  return `${date}-${s.mode === 'consensus' ? 'consensus-' : ''}${slugify(s.topic)}`;
}
