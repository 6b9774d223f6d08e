/**
 * Minutes: a deterministic Markdown rendering of a meeting's log. Same events in, same bytes out,
 * so minutes can be re-rendered from the store at any time and diffed in review.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { MeetingEvent, MeetingState, PostedMessage } from '../../../protocol/src';
import { fold, slugify, stanceMatrix } from '../../../protocol/src';
import { cell, codeBlock, codeSpan, heading, inline, quote } from './markdown';
import { renderBallot } from './prompts';
import { writeTemp } from './atomicFile';
import { appendManifest, manifestFileFor, replaceFile } from './manifest';
import { renderConsensusReport } from './report';
import { contextMinutes, toolMinutes } from '../context/render';

function iso(ms: number | undefined): string {
  return ms === undefined ? '—' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function renderMinutes(events: MeetingEvent[]): string {
  const s: MeetingState = fold(events);
  const out: string[] = [];
  if (s.mode === 'consensus') {
    // The consensus report leads; the meeting record follows it.
    out.push(renderConsensusReport(s), '---', '');
    out.push(`## Meeting record`, '');
  } else {
    out.push(heading(1, `Roundtable minutes: ${s.topic.split('\n')[0] ?? ''}`), '');
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
  if (s.mode !== 'consensus') out.push('', '## Topic', '', quote(s.topic), '');
  else out.push('');

  out.push('## Participants', '', '| Name | Role | Provider | Model |', '| --- | --- | --- | --- |');
  for (const p of s.participants)
    out.push(`| ${cell(p.name)} | ${cell(p.role)} | ${cell(p.provider)} | ${cell(p.model)} |`);
  out.push('');

  out.push(...contextMinutes(s));
  if (s.briefing)
    out.push('## Briefing', '', `**${inline(s.briefing.from)}** (assistant):`, '', quote(s.briefing.text), '');

  const announcements = s.messages.filter((m) => m.kind === 'announcement');
  const before = s.pendingHumanPosts;
  if (before.length > 0) {
    out.push('## Before round 1', '');
    for (const m of before) out.push(`**${inline(m.from)}** (human):`, '', quote(m.text), '');
  }

  for (const r of s.mode === 'consensus' ? [] : s.rounds) {
    out.push(`## Round ${r.round}${r.final ? ' (final)' : ''}`, '');
    out.push(`Speaking order: ${inline(r.speakers.join(', ')) || '(nobody)'}`, '');
    for (const w of r.speakers) {
      const m = r.contributions[w];
      const failure = r.failures[w];
      if (m) out.push(heading(3, w), '', quote(m.text), '');
      else if (failure)
        out.push(
          heading(3, w),
          '',
          `_${failure.reason === 'timeout' ? 'Timed out' : 'Failed'}: ${inline(failure.detail)}_`,
          '',
        );
    }
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

  if (s.interruptions.length > 0) {
    out.push('## Interruptions', '');
    for (const i of s.interruptions) out.push(`- ${iso(i.at)}: ${inline(i.detail)}`);
    out.push('');
  }

  if (s.mode === 'consensus') {
    for (const r of s.rounds) {
      out.push(`## Ballots, round ${r.round}${r.round > 1 ? ' (challenge)' : ''}`, '');
      for (const [w, b] of Object.entries(r.ballots)) {
        out.push(heading(3, `${w}${b.valid ? '' : ' (invalid ballot)'}`), '', quote(renderBallot(s, b.votes)), '');
      }
      for (const h of r.humanPosts) out.push(heading(3, `${h.from} (human)`), '', quote(h.text), '');
    }
  }

  const matrix = stanceMatrix(s);
  if (s.mode !== 'consensus' && matrix.rounds.length > 0) {
    out.push('## Stance matrix', '');
    out.push(`| Worker | ${matrix.rounds.map((r) => `R${r}`).join(' | ')} |`);
    out.push(`| --- | ${matrix.rounds.map(() => '---').join(' | ')} |`);
    for (const w of matrix.workers) {
      out.push(`| ${cell(w)} | ${matrix.rounds.map((r) => matrix.cells[w]?.[r] || '·').join(' | ')} |`);
    }
    out.push('');
  }

  out.push(...toolMinutes(s));
  if (s.digest) out.push('## Digest', '', codeBlock(s.digest.text, 'text'), '');
  if (s.decision) {
    out.push('## Decision', '', `**${s.decision.decision}** on ${iso(s.decision.at)}`, '');
    if (s.decision.instruction) out.push(quote(s.decision.instruction), '');
  }

  out.push(
    '## Token accounting',
    '',
    '| Participant | Calls | Prompt tokens | Completion tokens | Estimated calls |',
    '| --- | --- | --- | --- | --- |',
  );
  let prompt = 0;
  let completion = 0;
  for (const [name, u] of Object.entries(s.usageByParticipant)) {
    prompt += u.promptTokens;
    completion += u.completionTokens;
    out.push(`| ${cell(name)} | ${u.calls} | ${u.promptTokens} | ${u.completionTokens} | ${u.estimatedCalls} |`);
  }
  out.push(`| **total** | | **${prompt}** | **${completion}** | |`, '');
  out.push('| Role | Calls | Prompt tokens | Completion tokens |', '| --- | --- | --- | --- |');
  for (const [role, u] of Object.entries(s.usageByRole))
    out.push(`| ${cell(role)} | ${u.calls} | ${u.promptTokens} | ${u.completionTokens} |`);
  out.push('');
  return out.join('\n');
}

/**
 * Writes text to `dir/<base>.md` atomically (temp file, fsync, link) and never overwrites:
 * an existing name gets `-2`, `-3`, ... Returns the path written.
 */
export async function writeNewFile(dir: string, base: string, text: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  const tmp = await writeTemp(dir, base, text);
  try {
    for (let n = 1; n < 10_000; n++) {
      const target = path.join(dir, `${base}${n === 1 ? '' : `-${n}`}.md`);
      try {
        // link() fails if the target exists, so two writers can never clobber each other's minutes.
        await fs.link(tmp, target);
        return target;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
    }
    throw new Error(`too many files named ${base} in ${dir}`);
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

/** `YYYY-MM-DD-<slug>` (consensus meetings: `YYYY-MM-DD-consensus-<slug>`), without extension. */
export function minutesFileBase(s: MeetingState): string {
  const date = new Date(s.openedAt).toISOString().slice(0, 10);
  return `${date}-${s.mode === 'consensus' ? 'consensus-' : ''}${slugify(s.topic)}`;
}

/**
 * Writes the minutes of a meeting as `YYYY-MM-DD-<slug>.md` into `dir`. A consensus meeting
 * (whose minutes lead with the consensus report) has one file: written when it escalates
 * (`Status: blocked`), replaced atomically when the human resolves it, and indexed by one line
 * of `MANIFEST.jsonl`, which is how the file is found again. The history stays in the log.
 */
export async function writeMinutes(dir: string, events: MeetingEvent[]): Promise<string> {
  const s = fold(events);
  const text = renderMinutes(events);
  if (s.mode !== 'consensus') return writeNewFile(dir, minutesFileBase(s), text);
  const known = await manifestFileFor(dir, s.meetingId);
  const previous = known && !path.isAbsolute(known) && !known.includes('..') ? path.join(dir, known) : undefined;
  let file: string;
  if (previous && (await isFile(previous))) {
    await replaceFile(previous, text);
    file = previous;
  } else file = await writeNewFile(dir, minutesFileBase(s), text);
  await appendManifest(dir, s, file);
  return file;
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await fs.lstat(p)).isFile();
  } catch {
    return false;
  }
}
