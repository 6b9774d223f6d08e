/**
 * What `roundtable review` leaves once its meeting ended, every output read from the one
 * ReviewOutcome: the minutes (as for any meeting), `--sarif FILE`, `--markdown FILE`, `--json`
 * (report v1 on stdout) or the findings on the terminal (control characters stripped), and the exit
 * code (REVIEW_EXIT: 0 clean, 1 failed, 3 could not review, with one line saying why).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  ExceptionUse,
  FailOn,
  MeetingEvent,
  MeetingState,
  ReviewOutcome,
  ReviewScope,
} from '@roundtable/protocol';
import {
  REVIEW_EXIT,
  invisibleNote,
  lineNumbers,
  pathForPeople,
  reviewNotes,
  reviewOutcome,
  shownPath,
  waiverText,
} from '@roundtable/protocol';
import { reviewMarkdown } from '../../daemon/src/review/markdown';
import { fingerprintOf, reportedFindings, reviewSarif, ruleIdOf } from '../../daemon/src/review/sarif';
import { summarize, type RunSummary } from './summary';
import { writeMinutesOrExplain } from '@roundtable/client/minutesOutput';
import { terminalLine, terminalSafe } from '@roundtable/protocol/terminal';
import { ensureDir, writeProblem } from '@roundtable/client/outputDir';

export interface ReviewOutputs {
  failOn: FailOn;
  outDir: string;
  json: boolean;
  sarif?: string;
  markdown?: string;
  /** The repository root: paths in the outputs are relative to it. */
  workspace: string;
}

/** `--json`: the report, version 1 (docs/review.md). */
export interface ReviewReportV1 {
  version: 1;
  exit: 0 | 1 | 3;
  why?: string;
  failOn: FailOn;
  meetingId: string;
  minutesPath: string | null;
  findings: (ReviewOutcome['findings'][number] & { ruleId: string; fingerprint: string })[];
  /** Every exception the change carries, with what it did (`waived`, `unused`, `invalid`). */
  exceptions: ExceptionUse[];
  scope: ReviewScope | null;
  tokens: RunSummary['tokens'];
  cost?: RunSummary['cost'];
}

export function reviewReport(outcome: ReviewOutcome, state: MeetingState, o: ReviewOutputs, minutesPath?: string) {
  const summary = summarize(state, minutesPath ?? '');
  const report: ReviewReportV1 = {
    version: 1,
    exit: outcome.exit,
    ...(outcome.why ? { why: outcome.why } : {}),
    failOn: o.failOn,
    meetingId: state.meetingId,
    minutesPath: minutesPath ?? null,
    findings: outcome.findings.map((f) => ({ ...f, ruleId: ruleIdOf(f), fingerprint: fingerprintOf(f) })),
    exceptions: outcome.exceptions ?? [],
    scope: outcome.scope ?? null,
    tokens: summary.tokens,
    ...(summary.cost ? { cost: summary.cost } : {}),
  };
  return report;
}

/**
 * A decision record's absolute URI for SARIF's helpUri: its blob on GitHub in Actions (the server,
 * repository and commit from the environment GitHub sets), else its file URL.
 */
export function recordUriFor(workspace: string, env: NodeJS.ProcessEnv): (p: string) => string {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_SHA: sha } = env;
  if (
    server &&
    repo &&
    sha &&
    /^https:\/\/[^\s/]+$/.test(server) &&
    /^[\w.-]+\/[\w.-]+$/.test(repo) &&
    /^[0-9a-f]{40}$/.test(sha)
  )
    return (p) => `${server}/${repo}/blob/${sha}/${p.split('/').map(encodeURIComponent).join('/')}`;
  return (p) => pathToFileURL(path.join(workspace, p)).href;
}

/** Text from a model or the repository as one terminal line (controls stripped, breaks folded). */
const termLine = (text: string): string => `${terminalSafe(text).replace(/\s*\n\s*/g, ' ')}\n`;

/** The findings on the terminal, one line each, then the verdict. */
function printFindings(outcome: ReviewOutcome, out: NodeJS.WritableStream): void {
  const shown = reportedFindings(outcome);
  for (const f of shown) {
    const lines = lineNumbers(f.lines);
    const what = f.decision ? `breaks decision ${f.decision}` : (f.defect ?? 'defect');
    const accept = f.votes.filter((v) => v.vote === 'accept').length;
    const tally = `${accept}/${f.votes.length} accept`;
    const file = shownPath(f.file) ?? f.file;
    const odd = invisibleNote(f.file);
    out.write(
      termLine(
        f.waived
          ? `WAIVED ${f.severity} ${file}:${lines}${odd} — ${what}: ${f.claim} (${tally}; ${f.verdict}, ${waiverText(f.waived)})`
          : `${f.verdict} ${f.severity} ${file}:${lines}${odd} — ${what}: ${f.claim} (${tally})`,
      ),
    );
  }
  for (const line of reviewNotes(outcome)) out.write(termLine(line));
  const waived = shown.filter((f) => f.waived).length;
  const refuted = outcome.findings.filter((f) => f.verdict === 'REFUTED').length;
  const verdict =
    outcome.exit === REVIEW_EXIT.failed
      ? 'failed'
      : outcome.exit === REVIEW_EXIT.clean
        ? 'passed'
        : 'could not be done';
  const unread = printUnread(outcome, out);
  out.write(
    `review ${verdict}: ${shown.length - waived} finding(s) upheld or contested, ${waived ? `${waived} waived, ` : ''}${refuted} refuted${unread}\n`,
  );
}

/** Most unread files named on the terminal (the JSON, Markdown and SARIF reports list them all). */
const MAX_UNREAD_PRINTED = 20;

/** The changed files the review did not read, one line each; the verdict line's note on them. */
function printUnread(outcome: ReviewOutcome, out: NodeJS.WritableStream): string {
  const unread = outcome.scope?.unread ?? [];
  for (const u of unread.slice(0, MAX_UNREAD_PRINTED)) {
    const governed = u.governedBy?.length ? ` (under decision ${u.governedBy.join(', ')})` : '';
    out.write(`${terminalSafe(`not read: ${pathForPeople(u.file)} — ${u.reason}${governed}`).replace(/\s+/g, ' ')}\n`);
  }
  if (unread.length > MAX_UNREAD_PRINTED) out.write(`not read: and ${unread.length - MAX_UNREAD_PRINTED} more\n`);
  if (unread.length === 0) return '';
  return `, ${unread.length} file(s) not read${outcome.scope?.unreadAllowed ? ' (passed without them: --allow-unread)' : ''}`;
}

/**
 * Writes one output file, or says in one line why it could not. The place was checked before the
 * review started (reviewCommand); what changed since does not change the verdict: the exit still
 * follows the findings (a PROVEN finding is exit 1 with or without its SARIF file).
 */
async function writeOutput(flag: string, file: string, text: string, stderr: NodeJS.WritableStream): Promise<void> {
  try {
    await ensureDir(path.dirname(file));
    await fs.writeFile(file, text);
  } catch (e) {
    stderr.write(`${terminalLine(`roundtable: ${flag}: could not write ${file}: ${writeProblem(e)}`)}\n`);
  }
}

/** The end of a review: minutes, outputs, and the exit code. */
export async function finishReview(
  state: MeetingState,
  events: readonly MeetingEvent[],
  o: ReviewOutputs,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv },
): Promise<number> {
  const minutesPath = await writeMinutesOrExplain(o.outDir, state, io.stderr);
  const outcome = reviewOutcome(state, o.failOn);
  if (o.sarif)
    await writeOutput(
      '--sarif',
      o.sarif,
      `${JSON.stringify(reviewSarif(outcome, { recordUri: recordUriFor(o.workspace, io.env) }), null, 2)}\n`,
      io.stderr,
    );
  if (o.markdown) {
    const rel = minutesPath ? path.relative(o.workspace, minutesPath) : undefined;
    await writeOutput(
      '--markdown',
      o.markdown,
      reviewMarkdown(outcome, { failOn: o.failOn, ...(rel ? { minutesPath: rel } : {}) }),
      io.stderr,
    );
  }
  if (o.json) io.stdout.write(`${JSON.stringify(reviewReport(outcome, state, o, minutesPath))}\n`);
  else {
    printFindings(outcome, io.stdout);
    if (minutesPath) io.stdout.write(`Minutes: ${terminalSafe(minutesPath)}\n`);
  }
  if (outcome.scope?.rulebookNote) io.stderr.write(`roundtable: ${terminalSafe(outcome.scope.rulebookNote)}\n`);
  if (outcome.exit === REVIEW_EXIT.couldNotReview)
    io.stderr.write(`roundtable: could not review: ${terminalSafe(outcome.why ?? 'the review did not finish')}\n`);
  return outcome.exit;
}
