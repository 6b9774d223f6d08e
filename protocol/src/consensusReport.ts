/**
 * The consensus report: a deterministic Markdown rendering of a consensus meeting's log, in the
 * seed's format (manifest.ts makes the MANIFEST.jsonl line that indexes it), and a ballot as text.
 */
import { UNCERTAINTY_BELOW, type OptionVote } from './consensus';
import { consensusOutcome } from './debate';
import { cell, codeBlock, codeSpan, heading, inline, quote } from './markdown';
import { reviewNextSteps, reviewOutcome, reviewSummary, votingRoundOf } from './reviewOutcome';
import { reviewNotes } from './reviewNotes';
import type { MeetingState, RoundState } from './state';
import { isVerified, linesRead, type LineRead } from './verifiedEvidence';

/** The last round that was voted on (its verdict computed). */
export function lastVoted(s: MeetingState): RoundState | undefined {
  return [...s.rounds].reverse().find((r) => r.verdict);
}

/** `reads`: the line ranges read_file returned to the voter before its ballot (verified evidence). */
function evidenceText(v: OptionVote, reads: readonly LineRead[]): string {
  if (v.evidence.length === 0) return 'no evidence cited';
  return v.evidence
    .map((e) => {
      const flag =
        e.status === 'missing'
          ? ' ⚠ does not exist'
          : e.status === 'outside_workspace'
            ? ' ⚠ outside the workspace'
            : e.status === 'refused'
              ? ' ⚠ refused by the workspace gate'
              : isVerified(e, reads)
                ? ' ✓ verified (read by a tool call)'
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
  // A review is complete once it closed with its verdicts: it decides on findings, not between options.
  if (s.config.review) return s.closed?.reason === 'verdict_reached' ? 'complete' : 'partial';
  return consensusOutcome(s).decision ? 'complete' : 'partial';
}

/** What to do next, as plain text (escaped by whoever renders it). */
export function nextSteps(s: MeetingState): string[] {
  const o = consensusOutcome(s);
  const steps: string[] = [];
  if (s.config.review) steps.push(...reviewNextSteps(s));
  else if (o.decision) steps.push(`Implement ${o.decision}: ${o.label ?? ''}.`);
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
    if (opt.finding?.refuted !== undefined) {
      out.push(`**REFUTED before the vote** — ${inline(opt.finding.refuted)}.`, '');
      continue;
    }
    if (opt.finding?.quote) out.push(codeBlock(opt.finding.quote, 'diff'), '');
    if (res) {
      out.push(
        `**${res.verdict}** — ${res.accept} accept, ${res.reject} reject, ${res.abstain} abstain; weighted acceptance ${pct(res.weightedAccept)}, weighted rejection ${pct(res.weightedReject)}; existing evidence ${res.evidenceFor} for, ${res.evidenceAgainst} against.`,
        '',
      );
    }
    const pros: string[] = [];
    const cons: string[] = [];
    const abstained: string[] = [];
    // A review's votes on a finding are those of the last round that voted on it (a challenge
    // round votes only on the findings left CONTESTED).
    const voting = s.config.review ? votingRoundOf(s, opt.id) : r;
    for (const w of workers) {
      const b = voting?.ballots[w];
      const v = b?.votes.find((x) => x.option === opt.id);
      if (!b || !v) continue;
      const line = `- **${inline(w)}** (${v.vote}, confidence ${v.confidence.toFixed(2)}): ${inline(v.rationale)} — evidence: ${evidenceText(v, linesRead(s, w, b.seq))}`;
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
      const voted = s.config.review ? votingRoundOf(s, x.id)?.ballots[w] : b;
      const v = voted?.votes.find((y) => y.option === x.id);
      return v ? `${v.vote} (${v.confidence.toFixed(2)})` : '—';
    });
    out.push(
      `| ${cell(w)} | ${cells.join(' | ')} | ${b?.valid ? `valid${b.retried ? ' (asked twice)' : ''}` : `invalid: ${cell(b?.invalidReason ?? '?')}`}${b?.fromReasoning ? '; answer taken from the reasoning field' : ''} |`,
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
  if (s.config.review) {
    const outcome = reviewOutcome(s, 'blocking');
    out.push(`**Review: ${inline(reviewSummary(s, outcome.findings))}** (${inline(s.closed?.reason ?? 'open')})`, '');
    // Where the rules came from, the change's edits to them and its exceptions (waived findings).
    const notes = reviewNotes(outcome);
    if (notes.length)
      out.push(...notes.map((n) => (n.startsWith('  - ') ? `  - ${inline(n.slice(4))}` : `- ${inline(n)}`)), '');
  } else if (o.decision) {
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
  // A review's findings are judged one by one: no agreement on one option to measure.
  if (!s.config.review) {
    out.push(`- Consensus: ${o.level}`);
    out.push(`- actualConsensus: ${pct(o.actualConsensus)} (confidence-weighted agreement)`);
    out.push(`- consensusThreshold: ${pct(s.config.consensusThreshold)}`);
  }
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
    const before = opt.finding?.refuted;
    const why =
      before !== undefined
        ? `REFUTED before the vote: ${inline(before)}`
        : refuted
          ? 'REFUTED'
          : `not chosen${res ? ` (${res.verdict})` : ''}`;
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

/** Renders a ballot as readable text, for peers (as evidence), the room and the minutes. */
export function renderBallot(s: MeetingState, votes: RoundState['ballots'][string]['votes']): string {
  return votes
    .map((v) => {
      const label = s.options.find((o) => o.id === v.option)?.label ?? v.option;
      const ev = v.evidence
        .map((e) => `${e.file}${e.section ? ` §${e.section}` : ''}${e.status === 'missing' ? ' (MISSING)' : ''}`)
        .join(', ');
      const notes = [
        ...(v.assumptions?.length ? [`assumes: ${v.assumptions.join('; ')}`] : []),
        ...(v.uncertainty ? [`unsure: ${v.uncertainty}`] : []),
        ...(v.compromise ? [`compromise: ${v.compromise}`] : []),
      ];
      return `${v.option} (${label}): ${v.vote.toUpperCase()} at ${v.confidence.toFixed(2)} — ${v.rationale}${ev ? ` [evidence: ${ev}]` : ''}${notes.length ? ` [${notes.join(' | ')}]` : ''}`;
    })
    .join('\n');
}
