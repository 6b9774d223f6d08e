/**
 * The digest of a convened meeting as the Markdown a chat or an agent receives: verdict and
 * confidence first, then the digest's own sections (outcome, dissent, contributions, standing,
 * was the debate worth it), then the meeting id with a link that opens its room. Built through
 * the escaping builder: a model's text cannot add a section, a link or HTML.
 */
import type { MeetingState } from '@roundtable/protocol';
import { terminationLabel } from '@roundtable/protocol';
import { codeSpan, heading, inline, markdownBody } from '@roundtable/protocol/markdown';
import {
  chosenOption,
  consensusLevelLabel,
  DIGEST_SECTIONS,
  digestMarkdown,
  digestSections,
  type DigestSection,
} from '@roundtable/protocol/digestMarkdown';

/** A `command:` link that opens a meeting's room (VS Code passes the JSON array as the arguments). */
export function openRoomLink(meetingId: string): string {
  return `command:roundtable.openMeeting?${encodeURIComponent(JSON.stringify([meetingId]))}`;
}

/** The verdict in a few words: the option chosen (a vote), or how far the room agreed. */
export function verdictOf(s: MeetingState): string {
  const d = s.digest?.digest;
  if (s.status === 'awaiting_human') return 'Escalated to you: the vote did not settle';
  if (!d) return 'No digest';
  if (d.noDecision) return 'No decision';
  if (s.mode === 'consensus') {
    const chosen = chosenOption(s);
    return chosen ? `Chosen: ${chosen}` : 'No option chosen';
  }
  return consensusLevelLabel(d.consensus);
}

function sectionsOf(s: MeetingState): string[] {
  const sections = digestSections(digestMarkdown(s));
  return (Object.keys(DIGEST_SECTIONS) as DigestSection[])
    .filter((k) => sections[k] !== undefined)
    .map((k) => `${heading(3, DIGEST_SECTIONS[k])}\n\n${markdownBody(sections[k] ?? '') || '—'}`);
}

/** The whole report; `cut` says the caller cancelled it. */
export function digestReport(s: MeetingState, opts: { cut: boolean }): string {
  const d = s.digest?.digest;
  const ended = d ? terminationLabel(d.terminatedBy) : s.closed ? terminationLabel(s.closed.reason) : 'still open';
  const head = [
    `**Verdict:** ${inline(verdictOf(s))}`,
    ...(d ? [`**Confidence:** ${d.confidence.toFixed(2)}`] : []),
    `**Ended:** ${inline(ended)}${opts.cut ? ' (cancelled by whoever convened it)' : ''}`,
  ].join(' · ');
  const escalation = s.status === 'awaiting_human' ? (s.escalation?.reasons ?? []).map((r) => `- ${inline(r)}`) : [];
  return [
    heading(2, `Roundtable: ${s.topic}`),
    head,
    ...(escalation.length ? [escalation.join('\n')] : []),
    ...(d?.noDecision ? [`**Why:** ${inline(d.noDecision)}`] : []),
    ...sectionsOf(s),
    '---',
    `Meeting ${codeSpan(s.meetingId)} · [Open the room](${openRoomLink(s.meetingId)}) · ` +
      'The decision waits for your review in VS Code ("Roundtable: Review Digest"): nothing was accepted or rejected on your behalf.',
  ].join('\n\n');
}
