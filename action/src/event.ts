/**
 * The pull request a workflow run is about, read from the event payload GitHub writes to
 * GITHUB_EVENT_PATH: where its comment goes (owner, repository, number) and whether it comes from a
 * fork, whose runs GitHub gives no secrets (so no API key). Only the fields used are checked; a
 * payload without a pull request (a push) is a run with no comment, not an error.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { check } from '@roundtable/protocol/schema';
import {
  EXCEPTION_KEY,
  MAX_EXCEPTIONS,
  MAX_EXCEPTION_CHARS,
  exceptionLines,
} from '@roundtable/protocol/decisionException';

export interface PullRequestRef {
  owner: string;
  repo: string;
  number: number;
  /** The head branch lives in another repository (a fork), or in one since deleted. */
  fromFork: boolean;
  /** The `Decision-Exception:` lines of its body, as written, for `roundtable review --exception`. */
  exceptions: string[];
  /** One line for each exception line of the body that is not passed on, and why. */
  skipped: string[];
}

/** GitHub keeps a pull request's body to 65,536 characters; a longer one in a payload is not read for exceptions. */
export const MAX_BODY_CHARS = 65_536;

/** The body's exception lines that `roundtable review --exception` takes (one line each, within its limits). */
export function bodyExceptions(body: string | null | undefined): { exceptions: string[]; skipped: string[] } {
  if (!body) return { exceptions: [], skipped: [] };
  if (body.length > MAX_BODY_CHARS)
    return {
      exceptions: [],
      skipped: [
        `the pull request's body is longer than ${MAX_BODY_CHARS} characters: its ${EXCEPTION_KEY} lines were not read`,
      ],
    };
  const exceptions: string[] = [];
  const skipped: string[] = [];
  for (const raw of exceptionLines(body)) {
    // eslint-disable-next-line no-control-regex -- a tab or other control character becomes a blank
    const line = raw.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').trim();
    if (line.length > MAX_EXCEPTION_CHARS)
      skipped.push(
        `a ${EXCEPTION_KEY} line of the pull request is longer than ${MAX_EXCEPTION_CHARS} characters: not passed on`,
      );
    else if (exceptions.length >= MAX_EXCEPTIONS)
      skipped.push(
        `more than ${MAX_EXCEPTIONS} ${EXCEPTION_KEY} lines in the pull request: "${line.slice(0, 60)}" not passed on`,
      );
    else exceptions.push(line);
  }
  return { exceptions, skipped };
}

const RepoSchema = z.object({ full_name: z.string().regex(/^[\w.-]+\/[\w.-]+$/) });

const PullRequestEventSchema = z.object({
  pull_request: z.object({
    number: z.number().int().min(1),
    body: z.string().nullable().optional(),
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
  return { owner, repo, number: pr.number, fromFork: pr.head.repo?.full_name !== base, ...bodyExceptions(pr.body) };
}
