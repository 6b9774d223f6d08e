/**
 * A review as Markdown for a pull-request comment (`roundtable review --markdown FILE`), from one
 * ReviewOutcome, through the escaping builder: every claim, quote, path and rationale came from a
 * model or the repository and can open no heading, table row, link or HTML element. The first
 * line is a hidden marker the GitHub Action finds its own comment by, to update it on every push.
 */
import type { ReviewOutcome, ReviewedFinding } from '@roundtable/protocol';
import {
  REVIEW_EXIT,
  exceptionLine,
  invisibleNote,
  lineNumbers,
  recordEditLines,
  rulesSource,
  shownPath,
  waivedBy,
} from '@roundtable/protocol';
import { cell, codeBlock, codeSpan, heading, inline, quote } from '@roundtable/protocol/markdown';
import { reportedFindings } from './sarif';

/** The hidden first line of the comment: the Action updates the comment that starts with it. */
export const REVIEW_MARKER = '<!-- roundtable-review -->';

const VERDICT_LINE: Record<number, string> = {
  [REVIEW_EXIT.clean]: 'Passed: no finding at or above the bar was upheld by the panel.',
  [REVIEW_EXIT.failed]: 'Failed: the panel upheld at least one finding at or above the bar.',
  [REVIEW_EXIT.couldNotReview]: 'Could not review',
};

/** Most unread files listed one by one; a PR comment has a size limit, and the SARIF run lists them all. */
const MAX_UNREAD_LISTED = 50;

/** A path in a code span as reviewers were shown it, and what invisible characters it holds. */
function pathSpan(file: string): string {
  return `${codeSpan(shownPath(file) ?? file)}${noteOf(file)}`;
}

/** ` (holds U+200B ZERO WIDTH SPACE)` after a name that holds such characters, escaped; else ''. */
const noteOf = (file: string): string => (invisibleNote(file) ? ` ${inline(invisibleNote(file))}` : '');

function tally(f: ReviewedFinding): string {
  const n = (k: string) => f.votes.filter((v) => v.vote === k).length;
  return `${n('accept')} accept, ${n('reject')} reject, ${n('abstain')} abstain`;
}

/** One upheld or contested finding: where, what it breaks, the claim, the quoted lines, the votes. */
function findingSection(f: ReviewedFinding, recordPath: (id: string) => string | undefined): string[] {
  const cites = f.decision
    ? `breaks decision ${codeSpan(f.decision)}${recordPath(f.decision) ? ` (${codeSpan(recordPath(f.decision) as string)})` : ''}`
    : `defect: ${inline(f.defect ?? 'unclassified')}`;
  const shown = shownPath(f.file) ?? f.file;
  const out = [
    heading(3, `${f.waived ? `WAIVED (${f.verdict})` : f.verdict} · ${f.severity} · ${shown}:${lineNumbers(f.lines)}`),
    '',
    `${codeSpan(`${shown}:${lineNumbers(f.lines)}`)}${noteOf(f.file)} — ${cites}`,
    '',
    ...(f.waived ? [`**Waived** ${inline(waivedBy(f.waived))}`, ''] : []),
    ...(f.severityWritten === undefined
      ? []
      : [`Severity written as ${codeSpan(f.severityWritten)}, on no scale the review knows: read as blocking.`, '']),
    quote(f.claim),
    '',
  ];
  if (f.quote?.trim()) out.push(codeBlock(f.quote, 'diff'), '');
  out.push(`Votes: ${tally(f)}${f.proposedBy?.length ? ` · proposed by ${inline(f.proposedBy.join(', '))}` : ''}`, '');
  if (f.votes.length) {
    out.push('| Reviewer | Vote | Confidence | Why |', '| --- | --- | --- | --- |');
    for (const v of f.votes)
      out.push(`| ${cell(v.worker)} | ${cell(v.vote)} | ${v.confidence.toFixed(2)} | ${cell(v.rationale)} |`);
    out.push('');
  }
  return out;
}

/** Where the rules came from, what of them was not read, the change's edits to them, its exceptions. */
function rulesSection(outcome: ReviewOutcome): string[] {
  const rules = outcome.scope?.rules;
  const exceptions = outcome.exceptions ?? [];
  const out: string[] = [];
  if (exceptions.length) {
    out.push(heading(3, 'Exceptions'), '');
    for (const e of exceptions) out.push(`- ${inline(exceptionLine(e))}`);
    out.push('');
  }
  if (!rules) return out;
  out.push(heading(3, 'Rules'), '', `Reviewed against ${inline(rulesSource(rules))}.`, '');
  const edits = recordEditLines(rules);
  if (edits) {
    out.push(`**${inline(edits.head)}**`, '');
    for (const e of edits.edits) out.push(`- ${inline(e)}`);
    out.push('', `${inline(edits.then)} ${codeSpan(edits.command)}`, '');
  }
  const notRead = [...(rules.unread ?? []), ...(rules.refused ?? [])];
  for (const u of notRead) out.push(`- Not read: ${codeSpan(u.path)} ${inline(u.reason)}`);
  if (notRead.length) out.push('');
  return out;
}

/** The pull-request comment for one review. */
export function reviewMarkdown(outcome: ReviewOutcome, opts: { failOn: string; minutesPath?: string }): string {
  const shown = reportedFindings(outcome);
  const refuted = outcome.findings.filter((f) => f.verdict === 'REFUTED').length;
  const other = outcome.findings.length - shown.length - refuted;
  const verdict = VERDICT_LINE[outcome.exit] ?? '';
  const out = [REVIEW_MARKER, heading(2, 'Roundtable review'), ''];
  out.push(
    outcome.exit === REVIEW_EXIT.couldNotReview
      ? `**${verdict}:** ${inline(outcome.why ?? 'the review did not finish')}`
      : `**${verdict}** (fails on: ${inline(opts.failOn)})`,
    '',
  );
  // Records but no rule: the review held the change to nothing, and the reader must know why.
  if (outcome.scope?.rulebookNote) out.push(`**Rulebook:** ${inline(outcome.scope.rulebookNote)}`, '');
  out.push('| Verdict | Findings |', '| --- | --- |');
  for (const v of ['PROVEN', 'CONTESTED'] as const)
    out.push(`| ${v} | ${shown.filter((f) => f.verdict === v && !f.waived).length} |`);
  const waived = shown.filter((f) => f.waived).length;
  if (waived > 0) out.push(`| WAIVED | ${waived} |`);
  out.push(`| REFUTED | ${refuted} |`);
  if (other > 0) out.push(`| INSUFFICIENT_EVIDENCE | ${other} |`);
  out.push('');
  const byId = new Map((outcome.scope?.decisions ?? []).map((d) => [d.id, d.path]));
  for (const f of shown) out.push(...findingSection(f, (id) => byId.get(id)));
  const unread = outcome.scope?.unread ?? [];
  if (unread.length) {
    out.push(heading(3, 'Not read'), '');
    if (outcome.scope?.unreadAllowed)
      out.push('The review was asked to pass without these files (`--allow-unread`): nobody read them.', '');
    for (const u of unread.slice(0, MAX_UNREAD_LISTED)) {
      const governed = u.governedBy?.length ? ` (under decision ${inline(u.governedBy.join(', '))})` : '';
      out.push(`- ${pathSpan(u.file)}: ${inline(u.reason)}${governed}`);
    }
    if (unread.length > MAX_UNREAD_LISTED) out.push(`- and ${unread.length - MAX_UNREAD_LISTED} more`);
    out.push('');
  }
  const skipped = outcome.scope?.skipped ?? [];
  if (skipped.length)
    out.push(
      `Not read as decision records: ${skipped.map((k) => `${codeSpan(k.path)} (${inline(k.reason)})`).join(', ')}.`,
      '',
    );
  out.push(...rulesSection(outcome));
  if (opts.minutesPath) out.push(`Minutes: ${codeSpan(opts.minutesPath)}`, '');
  return `${out.join('\n').trimEnd()}\n`;
}
