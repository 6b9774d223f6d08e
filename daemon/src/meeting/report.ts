/**
 * The consensus report: a deterministic Markdown rendering of a consensus meeting's log, plus
 * the one-line MANIFEST.jsonl entry that indexes it.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { MeetingState, OptionVote, RoundState } from '../../../protocol/src';
import { cell, quote } from './markdown';
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
      return `\`${e.file}\`${e.section ? ` (${e.section})` : ''}${e.type ? ` [${e.type}]` : ''}${flag}`;
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
    steps.push(
      `Check the evidence that could not be found: ${[...new Set(missing.map((m) => `\`${m.file}\``))].join(', ')}.`,
    );
  const invalid = Object.entries(r?.ballots ?? {}).filter(([, b]) => !b.valid);
  if (invalid.length > 0)
    steps.push(`${invalid.map(([w]) => w).join(', ')} gave no valid ballot; consider their view separately.`);
  return steps;
}

export function renderConsensusReport(s: MeetingState): string {
  const out: string[] = [];
  const r = lastVoted(s);
  const o = consensusOutcome(s);
  const workers = Object.keys(r?.ballots ?? {});
  out.push(`# Consensus report: ${s.topic.split('\n')[0] ?? ''}`, '');
  out.push('## Decision Question', '', quote(s.topic), '');
  out.push(
    `Options were ${s.options.length > 0 && s.requestedOptions?.length ? 'given by the user' : 'proposed by the workers'}; ${s.rounds.length} voting round${s.rounds.length === 1 ? '' : 's'} (${Math.max(0, s.rounds.length - 1)} challenge).`,
    '',
  );

  out.push('## Options Evaluated', '');
  for (const opt of s.options) {
    const res = r?.verdict?.results.find((x) => x.option === opt.id);
    out.push(`### ${opt.id}: ${opt.label}`, '');
    if (res) {
      out.push(
        `**${res.verdict}** — ${res.accept} accept, ${res.reject} reject, ${res.abstain} abstain; weighted acceptance ${Math.round(res.weightedAccept * 100)}%, weighted rejection ${Math.round(res.weightedReject * 100)}%; existing evidence ${res.evidenceFor} for, ${res.evidenceAgainst} against.`,
        '',
      );
    }
    const pros: string[] = [];
    const cons: string[] = [];
    const abstained: string[] = [];
    for (const w of workers) {
      const v = r?.ballots[w]?.votes.find((x) => x.option === opt.id);
      if (!v) continue;
      const line = `- **${w}** (${v.vote}, confidence ${v.confidence.toFixed(2)}): ${cell(v.rationale)} — evidence: ${evidenceText(v)}`;
      if (v.vote === 'accept') pros.push(line);
      else if (v.vote === 'reject') cons.push(line);
      else abstained.push(line);
    }
    out.push('**Pros**', '', ...(pros.length > 0 ? pros : ['- none stated']), '');
    out.push('**Cons**', '', ...(cons.length > 0 ? cons : ['- none stated']), '');
    if (abstained.length > 0) out.push('**Abstained**', '', ...abstained, '');
  }

  out.push('## Voting Matrix', '');
  out.push(`| Worker | ${s.options.map((x) => x.id).join(' | ')} | Ballot |`);
  out.push(`| --- | ${s.options.map(() => '---').join(' | ')} | --- |`);
  for (const w of workers) {
    const b = r?.ballots[w];
    const cells = s.options.map((x) => {
      const v = b?.votes.find((y) => y.option === x.id);
      return v ? `${v.vote} (${v.confidence.toFixed(2)})` : '—';
    });
    out.push(
      `| ${w} | ${cells.join(' | ')} | ${b?.valid ? `valid${b.retried ? ' (asked twice)' : ''}` : `invalid: ${cell(b?.invalidReason ?? '?')}`} |`,
    );
  }
  out.push('');
  if (s.rounds.length > 1) {
    out.push('Votes by round (accepting options):', '');
    out.push(`| Worker | ${s.rounds.map((x) => `R${x.round}`).join(' | ')} |`);
    out.push(`| --- | ${s.rounds.map(() => '---').join(' | ')} |`);
    for (const w of workers) {
      out.push(
        `| ${w} | ${s.rounds
          .map(
            (x) =>
              x.ballots[w]?.votes
                .filter((v) => v.vote === 'accept')
                .map((v) => v.option)
                .join(', ') || '—',
          )
          .join(' | ')} |`,
      );
    }
    out.push('');
  }

  out.push('## Verdict', '');
  if (o.decision) {
    out.push(
      `**Decision: ${o.decision} — ${o.label ?? ''}**${o.by === 'human' ? ' (picked by the human after escalation)' : ''}`,
      '',
    );
  } else {
    out.push(
      `**No decision** (${s.status === 'awaiting_human' ? 'awaiting the human' : (s.closed?.reason ?? 'open')})`,
      '',
    );
  }
  out.push(`- Consensus: ${o.level}`);
  out.push(`- actualConsensus: ${Math.round(o.actualConsensus * 100)}% (confidence-weighted agreement)`);
  out.push(`- consensusThreshold: ${Math.round(s.config.consensusThreshold * 100)}%`);
  if (r?.verdict?.reasons.length) out.push(`- Escalated because: ${r.verdict.reasons.join('; ')}`);
  for (const res of s.resolutions)
    out.push(
      `- Human: ${res.action}${res.option ? ` ${res.option}` : ''}${res.instruction ? ` — "${cell(res.instruction)}"` : ''}`,
    );
  out.push('');

  out.push('## Conflicts', '');
  const conflicts = r?.verdict?.conflicts ?? [];
  if (conflicts.length === 0) out.push('None.', '');
  else {
    out.push('| Id | Severity | Type | Positions | Resolution |', '| --- | --- | --- | --- | --- |');
    for (const c of conflicts) {
      out.push(
        `| ${c.conflictId} | ${c.severity} | ${c.conflictType} | ${c.positions.map((p) => `${p.worker}: ${p.vote} ${p.option} (${p.confidence.toFixed(2)})`).join('; ')} | ${cell(c.resolution)} |`,
      );
    }
    out.push('');
  }

  out.push('## Next Steps', '', ...nextSteps(s).map((x) => `- ${x}`), '');
  return out.join('\n');
}

/** One line of MANIFEST.jsonl for a consensus report. */
export function manifestEntry(s: MeetingState, file: string): Record<string, unknown> {
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
  return {
    id: s.meetingId,
    file,
    title: s.topic.split('\n')[0] ?? '',
    date: new Date(s.openedAt).toISOString().slice(0, 10),
    status: o.decision
      ? 'decided'
      : s.status === 'awaiting_human'
        ? 'escalated'
        : s.closed?.reason === 'deferred'
          ? 'deferred'
          : 'undecided',
    topics,
    keyFindings: (r?.verdict?.results ?? []).map(
      (x) =>
        `${x.option} ${s.options.find((y) => y.id === x.option)?.label ?? ''}: ${x.verdict} (${Math.round(x.weightedAccept * 100)}% weighted acceptance)`,
    ),
    actionable: Boolean(o.decision),
  };
}

/** Appends the manifest line for a report written into `dir`. */
export async function appendManifest(dir: string, s: MeetingState, reportPath: string): Promise<void> {
  const line = `${JSON.stringify(manifestEntry(s, path.relative(dir, reportPath)))}\n`;
  const fh = await fs.open(path.join(dir, 'MANIFEST.jsonl'), 'a', 0o644);
  try {
    await fh.appendFile(line);
    await fh.sync();
  } finally {
    await fh.close();
  }
}
