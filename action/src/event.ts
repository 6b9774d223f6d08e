/**
 * The pull request a workflow run is about, read from the event payload GitHub writes to
 * GITHUB_EVENT_PATH: where its comment goes (owner, repository, number) and whether it comes from a
 * fork, whose runs GitHub gives no secrets (so no API key). Only the fields used are checked; a
 * payload without a pull request (a push) is a run with no comment, not an error.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { check } from '@roundtable/protocol/schema';

export interface PullRequestRef {
  owner: string;
  repo: string;
  number: number;
  /** The head branch lives in another repository (a fork), or in one since deleted. */
  fromFork: boolean;
}

const RepoSchema = z.object({ full_name: z.string().regex(/^[\w.-]+\/[\w.-]+$/) });

const PullRequestEventSchema = z.object({
  pull_request: z.object({
    number: z.number().int().min(1),
    // null when the fork the pull request came from was deleted.
    head: z.object({ repo: RepoSchema.nullable() }),
    base: z.object({ repo: RepoSchema }),
  }),
});

/** The pull request of the event at `eventPath`, undefined when the event is not about one; throws one line when unreadable. */
export function readPullRequest(eventPath: string | undefined): PullRequestRef | undefined {
  if (!eventPath) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(readFileSync(eventPath, 'utf8'));
  } catch (e) {
    throw new Error(`the event payload ${eventPath} could not be read: ${(e as Error).message}`, { cause: e });
  }
  if (typeof payload !== 'object' || payload === null || !('pull_request' in payload)) return undefined;
  const parsed = check(PullRequestEventSchema, payload, 'event payload');
  if (!parsed.ok) throw new Error(parsed.error);
  const pr = parsed.value.pull_request;
  const base = pr.base.repo.full_name;
  const [owner = '', repo = ''] = base.split('/');
  return { owner, repo, number: pr.number, fromFork: pr.head.repo?.full_name !== base };
}
