/**
 * Was the debate worth it, in words: the digest's one line and the minutes' section. The figures
 * come from `debateMetrics` (protocol), which the room reads too.
 */
import type { DebateMetrics, FollowedPost, MeetingState } from '@roundtable/protocol';
import { debateMetrics, flipText } from '@roundtable/protocol';
import { cell, inline } from '@roundtable/protocol/markdown';

/** The digest's line: "Debate changed the outcome: yes · rounds after the first cost 1,234 billed tokens". */
export function debateLine(m: DebateMetrics): string {
  const line = `Debate changed the outcome: ${m.changedOutcome ? 'yes' : 'no'} (round 1 majority: ${m.round1Majority}; final: ${m.finalOutcome}) · rounds after the first cost ${m.laterRoundsBilledTokens.toLocaleString('en-US')} billed tokens`;
  // Who moved, and after what: the digest is what the room, the review and the record show.
  return m.flips.length ? `${line} · changed position: ${m.flips.map(flipText).join('; ')}` : line;
}

function followedText(f: FollowedPost): string {
  return f.kind === 'post'
    ? `${f.from}'s post (seq ${f.seq})`
    : f.kind === 'judge'
      ? `judge's note (seq ${f.seq})`
      : `human post by ${f.from} (seq ${f.seq})`;
}

/** The minutes' section, as Markdown lines (names go through the escaping builders). */
export function debateMinutes(s: MeetingState): string[] {
  const m = debateMetrics(s);
  const out = ['## Was the debate worth it?', ''];
  if (s.mode !== 'consensus')
    out.push("- **Round 1 was independent:** every worker answered the topic before seeing any other worker's post.");
  out.push(
    `- **Plain majority of round 1${s.mode === 'consensus' ? ' ballots' : ' stances'}:** ${inline(m.round1Majority)} · **final outcome:** ${inline(m.finalOutcome)}`,
    `- **Debate changed the outcome:** ${m.changedOutcome ? 'yes' : 'no'}`,
    `- **Rounds after the first cost:** ${m.laterRoundsBilledTokens.toLocaleString('en-US')} billed tokens`,
  );
  if (s.mode === 'consensus') return [...out, ''];
  if (m.flips.length === 0) return [...out, '- **Stance flips:** none', ''];
  out.push(
    '',
    '| Worker | Round | Flip | After | Toward the majority | Possible conformity |',
    '| --- | --- | --- | --- | --- | --- |',
  );
  for (const f of m.flips)
    out.push(
      `| ${cell(f.worker)} | ${f.round} | ${f.from} → ${f.to} | ${cell(f.followed.map(followedText).join(', ') || '—')} | ${f.towardMajority ? 'yes' : 'no'} | ${f.possibleConformity ? '**possible conformity**: no new argument' : 'no'} |`,
    );
  return [...out, ''];
}
