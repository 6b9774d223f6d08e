/**
 * The GitHub Action (action.yml): runs `roundtable review` on the pull request, keeps one comment on
 * it with the report, leaves the SARIF file for github/codeql-action/upload-sarif, and sets the
 * step's outcome from the exit code. Exit 1 (a finding at or above `fail-on` holds) fails the step;
 * exit 2 (bad inputs) fails it, as the workflow needs fixing; exit 3 (the review could not be done,
 * or not read and counted whole: no key on a fork, a server down, a reviewer below the quorum, a
 * governed file unread) fails it too by default, saying so, since a green check must mean the
 * change was read and reviewed (`on-incomplete: warn` makes it a warning, said in the comment).
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as core from '@actions/core';
import { Octokit } from '@octokit/rest';
import { REVIEW_COMMENT_MARKER, REVIEW_EXIT } from '@roundtable/protocol/review';
import { inline, oneLine } from '@roundtable/protocol/markdown';
import { commentBody, upsertComment } from './comment';
import { readPullRequest, type PullRequestRef } from './event';
import { runReview, type ReviewInputs, type ReviewRun } from './review';

/** The job summary takes at most 1 MiB per step (GitHub's documented limit). */
const MAX_SUMMARY_CHARS = 1_000_000;

const FORK_WHY =
  'this pull request comes from a fork, and GitHub gives the workflows of a fork no secrets: there is no API key';

/** What exit 3 does to the step: `fail` (default: a green check means read and reviewed) or `warn`. */
type OnIncomplete = 'fail' | 'warn';

function inputs(): ReviewInputs & { githubToken: string; onIncomplete: string } {
  return {
    baseUrl: core.getInput('base-url'),
    models: core.getInput('models'),
    apiKey: core.getInput('api-key'),
    budget: core.getInput('budget'),
    failOn: core.getInput('fail-on') || 'blocking',
    sarifFile: core.getInput('sarif-file') || 'roundtable.sarif',
    githubToken: core.getInput('github-token'),
    onIncomplete: core.getInput('on-incomplete') || 'fail',
    allowUnread: core.getInput('allow-unread') === 'true',
  };
}

function onIncompleteOf(v: string): OnIncomplete | undefined {
  return v === 'fail' || v === 'warn' ? v : undefined;
}

/** The comment when there is no report: the review was not run, and why. */
function notRunReport(why: string): string {
  return `${REVIEW_COMMENT_MARKER}\n### Roundtable review not run\n\nCould not review: ${inline(why)}\n`;
}

/**
 * A CLI that ends with 1 but wrote no report did not review anything (a crash says 1 too): that is
 * "could not review", never a failed review.
 */
function settled(run: ReviewRun): ReviewRun {
  if (run.exit === REVIEW_EXIT.failed && !run.report)
    return { exit: REVIEW_EXIT.couldNotReview, why: `the roundtable command failed without a report: ${run.why}` };
  return run;
}

async function postComment(token: string, pr: PullRequestRef | undefined, report: string): Promise<string> {
  if (!pr) {
    core.info('Not a pull request event: no comment to post; the report is in the job summary.');
    return '';
  }
  if (!token) {
    core.warning('No github-token: the report is in the job summary only.');
    return '';
  }
  try {
    const octokit = new Octokit({
      auth: token,
      baseUrl: process.env.GITHUB_API_URL || 'https://api.github.com',
      userAgent: 'roundtable-review-action',
    });
    return await upsertComment(octokit, pr, commentBody(report));
  } catch (e) {
    // A fork's pull_request run gets a read-only token: 403 "Resource not accessible by integration".
    core.warning(`Could not post the pull-request comment: ${oneLine((e as Error).message)}`);
    return '';
  }
}

/** The report in the job summary; a runner without one (GITHUB_STEP_SUMMARY unset) costs a warning, not the review. */
async function writeSummary(report: string): Promise<void> {
  try {
    await core.summary.addRaw(commentBody(report, MAX_SUMMARY_CHARS, 'the report is cut here')).write();
  } catch (e) {
    core.warning(`Could not write the job summary: ${oneLine((e as Error).message)}`);
  }
}

function conclude(run: ReviewRun, failOn: string, onIncomplete: OnIncomplete): void {
  switch (run.exit) {
    case REVIEW_EXIT.clean:
      core.info(`Roundtable review: no finding at or above fail-on (${failOn}) holds.`);
      return;
    case REVIEW_EXIT.failed:
      core.setFailed(`Roundtable review failed: a finding at or above fail-on (${failOn}) holds; see the report.`);
      return;
    case REVIEW_EXIT.usage:
      core.setFailed(`roundtable review: bad usage: ${run.why}`);
      return;
    default:
      // Not read and reviewed is never a green check unless the workflow said it may be.
      if (onIncomplete === 'warn') core.warning(`could not review: ${run.why}`);
      else core.setFailed(`could not review: ${run.why}`);
  }
}

async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const i = inputs();
  if (i.apiKey) core.setSecret(i.apiKey);
  const onIncomplete = onIncompleteOf(i.onIncomplete);
  if (!onIncomplete) {
    core.setOutput('exit-code', String(REVIEW_EXIT.usage));
    core.setFailed(
      `roundtable review: bad usage: on-incomplete must be fail or warn, got "${oneLine(i.onIncomplete)}"`,
    );
    return;
  }
  let run: ReviewRun;
  let pr: PullRequestRef | undefined;
  try {
    pr = readPullRequest(env.GITHUB_EVENT_PATH);
    for (const why of pr?.skipped ?? []) core.warning(why);
    if (pr?.fromFork && !i.apiKey) run = { exit: REVIEW_EXIT.couldNotReview, why: FORK_WHY };
    else {
      const cwd = env.GITHUB_WORKSPACE || process.cwd();
      // The pull request's exceptions, said in its body: the CLI reads its commits' trailers itself.
      const exceptions = pr?.exceptions.length
        ? { lines: pr.exceptions, from: `pull request #${pr.number}` }
        : undefined;
      run = settled(
        await runReview(
          { ...i, ...(exceptions ? { exceptions } : {}) },
          { cwd, tempDir: env.RUNNER_TEMP || tmpdir(), env },
        ),
      );
    }
  } catch (e) {
    run = { exit: REVIEW_EXIT.couldNotReview, why: oneLine((e as Error).message) };
  }
  const sarif = path.resolve(env.GITHUB_WORKSPACE || process.cwd(), i.sarifFile);
  core.setOutput('exit-code', String(run.exit));
  core.setOutput('sarif-file', run.exit !== REVIEW_EXIT.usage && existsSync(sarif) ? i.sarifFile : '');
  if (run.exit !== REVIEW_EXIT.usage) {
    const report = run.report ?? notRunReport(run.why);
    core.setOutput('comment-url', await postComment(i.githubToken, pr, report));
    await writeSummary(report);
  } else core.setOutput('comment-url', '');
  conclude(run, i.failOn, onIncomplete);
}

void main().catch((e: unknown) => {
  core.setFailed(`roundtable action: ${oneLine((e as Error).message)}`);
});
