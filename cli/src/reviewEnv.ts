/**
 * The change `roundtable review` reads in GitHub Actions when no --base or --worktree is given: the
 * pull request's base and head from the event payload (`GITHUB_EVENT_PATH`: `pull_request.base.sha`
 * and `pull_request.head.sha`, as GitHub documents the pull_request event), else the base branch
 * name (`GITHUB_BASE_REF`, set for pull_request events) as fetched from origin. Read here, in the
 * CLI: the daemon is told only a ref, checked like any other.
 */
import { readFileSync, statSync } from 'node:fs';
import { COMMIT_ID_PATTERN, GIT_REF_PATTERN, isRecord } from '@roundtable/protocol';
import { UsageError } from '@roundtable/client/usage';

/** An event payload larger than this is not read (GitHub caps webhook payloads at 25 MB). */
const MAX_EVENT_BYTES = 25_000_000;

export interface PullRequestChange {
  base: string;
  /** One line for stderr: what is reviewed. */
  notice: string;
}

function shaAt(v: unknown, side: 'base' | 'head'): string | undefined {
  const sha = isRecord(v) && isRecord(v[side]) ? v[side].sha : undefined;
  if (sha === undefined) return undefined;
  if (typeof sha !== 'string' || !COMMIT_ID_PATTERN.test(sha))
    throw new UsageError(`GITHUB_EVENT_PATH: pull_request.${side}.sha is not a commit hash`);
  return sha;
}

function eventPullRequest(file: string): unknown {
  let json: unknown;
  try {
    if (statSync(file).size > MAX_EVENT_BYTES)
      throw new UsageError(`GITHUB_EVENT_PATH: ${file} is larger than ${MAX_EVENT_BYTES} bytes`);
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`GITHUB_EVENT_PATH: cannot read ${file} as JSON: give --base REF`);
  }
  return isRecord(json) ? json.pull_request : undefined;
}

/** The pull request's change in GitHub Actions, or undefined outside a pull request's workflow. */
export function pullRequestChange(env: NodeJS.ProcessEnv): PullRequestChange | undefined {
  if (env.GITHUB_ACTIONS !== 'true') return undefined;
  const pr = env.GITHUB_EVENT_PATH ? eventPullRequest(env.GITHUB_EVENT_PATH) : undefined;
  const base = shaAt(pr, 'base');
  if (base) {
    const head = shaAt(pr, 'head');
    return {
      base,
      notice: `reviewing the pull request: base ${base.slice(0, 7)}${head ? `, head ${head.slice(0, 7)}` : ''} (the checked-out HEAD)`,
    };
  }
  const ref = env.GITHUB_BASE_REF?.trim();
  if (!ref) return undefined;
  const branch = `origin/${ref}`;
  if (!GIT_REF_PATTERN.test(branch)) throw new UsageError(`GITHUB_BASE_REF "${ref}" is not a branch name`);
  return { base: branch, notice: `reviewing the pull request against ${branch} (GITHUB_BASE_REF)` };
}
