/**
 * What a meeting waits for and how it is named in the Meetings view, as pure functions of its
 * folded state or the daemon's summary (no VS Code API), so they are checked outside the editor.
 */
import type { MeetingSummary } from '@roundtable/protocol';
import { terminationLabel, visibleText } from '@roundtable/protocol';

import type { Need } from '@roundtable/protocol';

/** The same, from the daemon's list (no log needed). */
export function needOfSummary(m: MeetingSummary): Need | undefined {
  // A quarantined log cannot be read: there is nothing to review, retry or decide; a finished
  // review waits for no decision (its findings are in the Problems panel).
  if (m.quarantined !== undefined || m.review) return undefined;
  if (m.status === 'awaiting_human') return 'escalation';
  if (m.status !== 'closed' || m.decision) return undefined;
  if (m.terminatedBy === 'error' || m.noDecision) return 'failed';
  return m.digestReady ? 'review' : undefined;
}

/**
 * The topic's first line, cut to `max` characters, as it shows (bidi controls made visible): a
 * topic names a meeting in native labels, titles and messages that no webview sanitises.
 */
export function shortTopic(topic: string, max = 60): string {
  const line = visibleText(topic.split('\n')[0] ?? '');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** One line for a meeting's outcome: "Round 2 of 10", "Needs your decision", "Full consensus · review", "Failed". */
export function outcomeOf(m: MeetingSummary): string {
  if (m.quarantined !== undefined) return 'Quarantined · log unreadable';
  if (m.status === 'awaiting_human') return 'Needs your decision';
  if (m.status !== 'closed') return `Round ${m.round} of ${m.roundLimit ?? m.maxRounds}`;
  if (m.review) return reviewOutcomeLine(m.review);
  const ended = m.terminatedBy ? terminationLabel(m.terminatedBy) : 'Closed';
  // A meeting that failed outright says Failed (its label); one that only reached no decision says so.
  if (m.noDecision && !m.decision && m.terminatedBy !== 'error') return 'No decision · retry';
  if (needOfSummary(m) === 'review') return `${ended} · review`;
  if (m.decision === 'accepted') return `${ended} · accepted`;
  if (m.decision === 'rejected') return `${ended} · rejected`;
  return ended;
}

/** A finished review in one line: what it upheld, or that it could not be read or counted whole. */
function reviewOutcomeLine(r: NonNullable<MeetingSummary['review']>): string {
  if (r.incomplete) return 'Review · could not review';
  const upheld = [...(r.proven ? [`${r.proven} proven`] : []), ...(r.contested ? [`${r.contested} contested`] : [])];
  return `Review · ${upheld.length ? upheld.join(', ') : 'nothing upheld'}`;
}

export type Group = 'running' | 'awaiting' | 'closed';

/** Where a meeting sits in the Meetings view: anything waiting for the human is "Awaiting you". */
export function groupOf(m: MeetingSummary): Group {
  if (needOfSummary(m)) return 'awaiting';
  return m.status === 'closed' ? 'closed' : 'running';
}

/**
 * The context value menus match on: meeting.running, meeting.review, meeting.escalation, meeting.failed,
 * meeting.closed, meeting.quarantined (a log the daemon set aside at start: no action but Open, which says why).
 */
export function contextOf(m: MeetingSummary): string {
  if (m.quarantined !== undefined) return 'meeting.quarantined';
  const need = needOfSummary(m);
  if (need) return `meeting.${need}`;
  return m.status === 'closed' ? 'meeting.closed' : 'meeting.running';
}
