/**
 * MANIFEST.jsonl: one line per consensus meeting, with exactly the seed's keys, pointing at the
 * meeting's one report file. The line is replaced (not appended again) when the meeting moves from
 * blocked to complete or partial, and the report file is found again through it. The file itself
 * is written by the minutes writer (client/src/minutesFile.ts).
 */
import { lastVoted, nextSteps, reportStatus, type ReportStatus } from './consensusReport';
import { consensusOutcome } from './debate';
import { jsonLine } from './markdown';
import type { MeetingState } from './state';

/** The seed's MANIFEST.jsonl keys, in its order; tools that read the seed's manifests read ours. */
export const MANIFEST_KEYS = [
  'id',
  'file',
  'title',
  'date',
  'status',
  'agent_type',
  'topics',
  'key_findings',
  'actionable',
  'needs_followup',
  'linked_tasks',
] as const;

export type ManifestEntry = {
  id: string;
  file: string;
  title: string;
  date: string;
  status: ReportStatus;
  agent_type: 'analysis';
  topics: string[];
  key_findings: string[];
  actionable: boolean;
  needs_followup: string[];
  linked_tasks: string[];
};

/** One line of MANIFEST.jsonl for a consensus report. */
export function manifestEntry(s: MeetingState, file: string): ManifestEntry {
  const o = consensusOutcome(s);
  const r = lastVoted(s);
  const stop = new Set([
    'should',
    'would',
    'could',
    'which',
    'their',
    'there',
    'about',
    'these',
    'those',
    'between',
    'where',
    'what',
  ]);
  const topics = [...new Set(s.topic.toLowerCase().match(/[a-z][a-z0-9-]{3,}/g) ?? [])]
    .filter((w) => !stop.has(w))
    .slice(0, 6);
  const steps = nextSteps(s);
  return {
    id: s.meetingId,
    file,
    title: `Consensus: ${s.topic.split('\n')[0] ?? ''}`,
    date: new Date(s.openedAt).toISOString().slice(0, 10),
    status: reportStatus(s),
    agent_type: 'analysis',
    topics: ['consensus', ...topics.filter((t) => t !== 'consensus')],
    key_findings: (r?.verdict?.results ?? []).map(
      (x) =>
        `${x.option} ${s.options.find((y) => y.id === x.option)?.label ?? ''}: ${x.verdict} (${Math.round(x.weightedAccept * 100)}% weighted acceptance)`,
    ),
    actionable: Boolean(o.decision),
    // The first step restates the decision; what follows it is what still needs doing.
    needs_followup: o.decision ? steps.slice(1) : steps,
    linked_tasks: [],
  };
}

/** The manifest entry as one JSON line. */
export function manifestLine(s: MeetingState, file: string): string {
  return jsonLine(manifestEntry(s, file));
}
