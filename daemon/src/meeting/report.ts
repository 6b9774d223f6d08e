/**
 * The consensus report: a deterministic Markdown rendering of a consensus meeting's log, plus
 * the one-line MANIFEST.jsonl entry that indexes it.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { MeetingState, OptionVote, RoundState } from '../../../protocol/src';
import { cell, codeBlock, codeSpan, heading, inline, jsonLine, quote, withoutMeeting } from './markdown';
import { UNCERTAINTY_BELOW } from './votes';
import { consensusOutcome } from './digest';

function lastVoted(s: MeetingState): RoundState | undefined {
  return [...s.rounds].reverse().find((r) => r.verdict);
}

function evidenceText(v: OptionVote): string {
  if (v.evidence.length === 0) return 'no evidence cited';
  return v.evidence
    .map((e) => {
      const flag =
        e.status === 'missing'
          ? ' ⚠ does not exist'
          : e.status === 'outside_workspace'
            ? ' ⚠ outside the workspace'
            : '';
      return `${codeSpan(e.file)}${e.section ? ` (${inline(e.section)})` : ''}${e.type ? ` [${inline(e.type)}]` : ''}${flag}`;
    })
    .join(', ');
}

export function missingEvidence(s: MeetingState): { worker: string; file: string; status: string }[] {
  const r = lastVoted(s);
  const out: { worker: string; file: string; status: string }[] = [];
  for (const [worker, b] of Object.entries(r?.ballots ?? {})) {
    for (const v of b.votes)
      for (const e of v.evidence)
        if (e.status === 'missing' || e.status === 'outside_workspace')
          out.push({ worker, file: e.file, status: e.status });
  }
  return out;
}

/** The seed's report status: `blocked` while the human must decide, `complete` once an option is decided. */
export type ReportStatus = 'complete' | 'partial' | 'blocked';

export function reportStatus(s: MeetingState): ReportStatus {
  if (s.status === 'awaiting_human') return 'blocked';
  return consensusOutcome(s).decision ? 'complete' : 'partial';
}

/** What to do next, as plain text (escaped by whoever renders it). */
export function nextSteps(s: MeetingState): string[] {
  const o = consensusOutcome(s);
  const steps: string[] = [];
  if (o.decision) steps.push(`Implement ${o.decision}: ${o.label ?? ''}.`);
  else if (s.status === 'awaiting_human')
    steps.push(`A human decision is needed: ${s.escalation?.reasons.join('; ') ?? ''}.`);
  else if (s.closed?.reason === 'deferred')
    steps.push('The decision was deferred: gather the missing evidence and run the meeting again.');
  else steps.push('No option was decided: narrow the options or add evidence and run the meeting again.');
  const r = lastVoted(s);
  for (const c of r?.verdict?.conflicts ?? []) {
    if (c.severity === 'critical' || c.severity === 'high')
      steps.push(`Resolve conflict ${c.conflictId} (${c.severity} ${c.conflictType}): ${c.resolution}.`);
  }
  const missing = missingEvidence(s);
  if (missing.length > 0)
    steps.push(`Check the evidence that could not be found: ${[...new Set(missing.map((m) => m.file))].join(', ')}.`);
  const invalid = Object.entries(r?.ballots ?? {}).filter(([, b]) => !b.valid);
  if (invalid.length > 0)
    steps.push(`${invalid.map(([w]) => w).join(', ')} gave no valid ballot; consider their view separately.`);
  return steps;
}

function pct(x: number): string {
  return `${Math.round(x * 100)}%`;
}

/** The seed's header: title, meeting, date, status, agent type. */
function header(s: MeetingState): string[] {
  return [
    heading(1, `Consensus Report: ${s.topic.split('\n')[0] ?? ''}`),
    '',
    `**Meeting**: ${codeSpan(s.meetingId)}`,
    `**Date**: ${new Date(s.openedAt).toISOString().slice(0, 10)}`,
    `**Status**: ${reportStatus(s)}`,
    `**Agent Type**: analysis`,
    '',
    '---',
    '',
  ];
}

function optionsSection(s: MeetingState, r: RoundState | undefined, workers: string[]): string[] {
  const out: string[] = ['## Options Evaluated', ''];
  for (const opt of s.options) {
    const res = r?.verdict?.results.find((x) => x.option === opt.id);
    out.push(heading(3, `${opt.id}: ${opt.label}`), '');
    if (res) {
      out.push(
        `**${res.verdict}** — ${res.accept} accept, ${res.reject} reject, ${res.abstain} abstain; weighted acceptance ${pct(res.weightedAccept)}, weighted rejection ${pct(res.weightedReject)}; existing evidence ${res.evidenceFor} for, ${res.evidenceAgainst} against.`,
        '',
      );
    }
    const pros: string[] = [];
    const cons: string[] = [];
    const abstained: string[] = [];
    for (const w of workers) {
      const v = r?.ballots[w]?.votes.find((x) => x.option === opt.id);
      if (!v) continue;
      const line = `- **${inline(w)}** (${v.vote}, confidence ${v.confidence.toFixed(2)}): ${inline(v.rationale)} — evidence: ${evidenceText(v)}`;
      if (v.vote === 'accept') pros.push(line);
      else if (v.vote === 'reject') cons.push(line);
      else abstained.push(line);
    }
    out.push('**Pros**', '', ...(pros.length > 0 ? pros : ['- none stated']), '');
    out.push('**Cons**', '', ...(cons.length > 0 ? cons : ['- none stated']), '');
    if (abstained.length > 0) out.push('**Abstained**', '', ...abstained, '');
  }
  return out;
}

function matrixSection(s: MeetingState, r: RoundState | undefined, workers: string[]): string[] {
  const out: string[] = ['## Voting Matrix', ''];
  out.push(`| Worker | ${s.options.map((x) => cell(x.id)).join(' | ')} | Ballot |`);
  out.push(`| --- | ${s.options.map(() => '---').join(' | ')} | --- |`);
  for (const w of workers) {
    const b = r?.ballots[w];
    const cells = s.options.map((x) => {
      const v = b?.votes.find((y) => y.option === x.id);
      return v ? `${v.vote} (${v.confidence.toFixed(2)})` : '—';
    });
    out.push(
      `| ${cell(w)} | ${cells.join(' | ')} | ${b?.valid ? `valid${b.retried ? ' (asked twice)' : ''}` : `invalid: ${cell(b?.invalidReason ?? '?')}`} |`,
    );
  }
  out.push('');
  if (s.rounds.length > 1) {
    out.push('Votes by round (accepting options):', '');
    out.push(`| Worker | ${s.rounds.map((x) => `R${x.round}`).join(' | ')} |`);
    out.push(`| --- | ${s.rounds.map(() => '---').join(' | ')} |`);
    for (const w of workers) {
      const accepted = s.rounds.map((x) =>
        cell(
          x.ballots[w]?.votes
            .filter((v) => v.vote === 'accept')
            .map((v) => v.option)
            .join(', ') || '—',
        ),
      );
      out.push(`| ${cell(w)} | ${accepted.join(' | ')} |`);
    }
    out.push('');
  }
  return out;
}

function verdictSection(s: MeetingState, r: RoundState | undefined): string[] {
  const o = consensusOutcome(s);
  const out: string[] = ['## Verdict', ''];
  if (o.decision) {
    out.push(
      `**Decision: ${inline(o.decision)} — ${inline(o.label ?? '')}**${o.by === 'human' ? ' (picked by the human after escalation)' : ''}`,
      '',
    );
  } else {
    out.push(
      `**No decision** (${s.status === 'awaiting_human' ? 'awaiting the human' : inline(s.closed?.reason ?? 'open')})`,
      '',
    );
  }
  out.push(`- Consensus: ${o.level}`);
  out.push(`- actualConsensus: ${pct(o.actualConsensus)} (confidence-weighted agreement)`);
  out.push(`- consensusThreshold: ${pct(s.config.consensusThreshold)}`);
  if (r?.verdict?.reasons.length) out.push(`- Escalated because: ${inline(r.verdict.reasons.join('; '))}`);
  for (const res of s.resolutions)
    out.push(
      `- Human: ${res.action}${res.option ? ` ${inline(res.option)}` : ''}${res.instruction ? ` — "${inline(res.instruction)}"` : ''}`,
    );
  out.push('');
  if (s.status === 'awaiting_human') {
    out.push(
      '**Your decision is needed.** Pick an option, ask for another round, or defer — in the review panel of VS Code, or with:',
      '',
      codeBlock(`roundtable resolve ${s.meetingId} --pick <option> | --another-round "<instruction>" | --defer`, 'sh'),
      '',
    );
  }
  return out;
}

function conflictsSection(r: RoundState | undefined): string[] {
  const out: string[] = ['## Conflicts', ''];
  const conflicts = r?.verdict?.conflicts ?? [];
  if (conflicts.length === 0) return [...out, 'None.', ''];
  out.push('| Id | Severity | Type | Positions | Resolution |', '| --- | --- | --- | --- | --- |');
  for (const c of conflicts) {
    const positions = c.positions
      .map((p) => `${p.worker}: ${p.vote} ${p.option} (${p.confidence.toFixed(2)})`)
      .join('; ');
    out.push(
      `| ${cell(c.conflictId)} | ${c.severity} | ${c.conflictType} | ${cell(positions)} | ${cell(c.resolution)} |`,
    );
  }
  return [...out, ''];
}

/** Seed CONS-012: the options not chosen (or refuted), with the reasons the workers gave against them. */
function rejectedSection(s: MeetingState, r: RoundState | undefined): string[] {
  const o = consensusOutcome(s);
  const out: string[] = ['## Rejected Alternatives', ''];
  let any = false;
  for (const opt of s.options) {
    const res = r?.verdict?.results.find((x) => x.option === opt.id);
    const refuted = res?.verdict === 'REFUTED';
    if (opt.id === o.decision || (!o.decision && !refuted)) continue;
    any = true;
    const why = refuted ? 'REFUTED' : `not chosen${res ? ` (${res.verdict})` : ''}`;
    out.push(`- **${inline(`${opt.id}: ${opt.label}`)}** — ${why}`);
    for (const [w, b] of Object.entries(r?.ballots ?? {})) {
      const v = b.votes.find((x) => x.option === opt.id);
      if (v?.vote === 'reject') out.push(`  - ${inline(w)}: ${inline(v.rationale)}`);
    }
  }
  if (!any) out.push(o.decision ? 'None: there was only one option.' : 'None yet: no option is refuted.');
  return [...out, ''];
}

/** Seed CONS-011 and CONS-013 (and CONS-020): assumptions, uncertainty at low confidence, compromises. */
function notesSections(r: RoundState | undefined): string[] {
  const assumptions: string[] = [];
  const uncertain: string[] = [];
  const compromises: string[] = [];
  for (const [w, b] of Object.entries(r?.ballots ?? {})) {
    for (const v of b.votes) {
      const who = `**${inline(w)}** on ${inline(v.option)}`;
      for (const a of v.assumptions ?? []) assumptions.push(`- ${who}: ${inline(a)}`);
      if (v.uncertainty || (v.vote !== 'abstain' && v.confidence < UNCERTAINTY_BELOW))
        uncertain.push(
          `- ${who} (${v.vote}, confidence ${v.confidence.toFixed(2)}): ${v.uncertainty ? inline(v.uncertainty) : 'no note given'}`,
        );
      if (v.compromise) compromises.push(`- ${who}: ${inline(v.compromise)}`);
    }
  }
  const out: string[] = ['## Hidden Assumptions', ''];
  out.push(...(assumptions.length > 0 ? assumptions : ['None named by the workers.']), '');
  out.push('## Uncertainty Notes', '');
  out.push(...(uncertain.length > 0 ? uncertain : ['None: every vote was given with confidence.']), '');
  if (compromises.length > 0) out.push('## Compromise Proposals', '', ...compromises, '');
  return out;
}

export function renderConsensusReport(s: MeetingState): string {
  const r = lastVoted(s);
  const workers = Object.keys(r?.ballots ?? {});
  const out: string[] = header(s);
  out.push('## Decision Question', '', quote(s.topic), '');
  out.push(
    `Options were ${s.options.length > 0 && s.requestedOptions?.length ? 'given by the user' : 'proposed by the workers'}; ${s.rounds.length} voting round${s.rounds.length === 1 ? '' : 's'} (${Math.max(0, s.rounds.length - 1)} challenge).`,
    '',
  );
  out.push(...optionsSection(s, r, workers));
  out.push(...matrixSection(s, r, workers));
  out.push(...verdictSection(s, r));
  out.push(...conflictsSection(r));
  out.push(...rejectedSection(s, r));
  out.push(...notesSections(r));
  out.push('## Next Steps', '', ...nextSteps(s).map((x) => `- ${inline(x)}`), '');
  return out.join('\n');
}

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

/** Writes `file` atomically: a temp file beside it, fsync, rename over. */
export async function replaceFile(file: string, text: string): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await fs.open(tmp, 'wx', 0o644);
  try {
    await fh.writeFile(text, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
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
