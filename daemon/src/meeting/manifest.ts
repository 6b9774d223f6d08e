/**
 * MANIFEST.jsonl: one line per consensus meeting, with exactly the seed's keys, pointing at the
 * meeting's one report file. The line is replaced (not appended again) when the meeting moves from
 * blocked to complete or partial, and the report file is found again through it.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { MeetingState } from '@roundtable/protocol';
import { consensusOutcome } from '@roundtable/protocol';
import { jsonLine, withoutMeeting } from '@roundtable/protocol/markdown';
import { replaceFile } from './atomicFile';
import { lastVoted, nextSteps, reportStatus, type ReportStatus } from './report';

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

/** The report file MANIFEST.jsonl in `dir` names for a meeting, if any (the last line wins). */
export async function manifestFileFor(dir: string, meetingId: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dir, 'MANIFEST.jsonl'), 'utf8');
  } catch {
    return undefined;
  }
  let file: string | undefined;
  for (const line of text.split('\n')) {
    try {
      const e = JSON.parse(line) as { id?: unknown; file?: unknown };
      if (e.id === meetingId && typeof e.file === 'string') file = e.file;
    } catch {
      // not ours to judge: keep other lines as they are
    }
  }
  return file;
}

/**
 * Writes the manifest line for a report written into `dir`: the meeting's earlier line (written
 * when it was blocked) is replaced, so the manifest holds one line per meeting. Lines of other
 * meetings, even ones that do not parse, are kept as they are.
 */
export async function appendManifest(dir: string, s: MeetingState, reportPath: string): Promise<void> {
  const line = manifestLine(s, path.relative(dir, reportPath));
  const manifest = path.join(dir, 'MANIFEST.jsonl');
  let before = '';
  try {
    before = await fs.readFile(manifest, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  await replaceFile(manifest, `${withoutMeeting(before, s.meetingId)}${line}\n`);
}
