/**
 * The action's one pull-request comment: one its token's identity wrote, whose body starts with the
 * marker, edited on every push; created when the pull request has none. Anyone can post the marker,
 * so a comment that starts with it is the action's only when its author is the token's identity
 * (else a contributor who posted it first would own the report and could edit it back to
 * "Passed"); an identity that cannot be established writes nothing. A pull request's comments are
 * an issue's comments in GitHub's REST API (GET/POST /repos/{owner}/{repo}/issues/{n}/comments,
 * PATCH /repos/{owner}/{repo}/issues/comments/{id}).
 */
import type { Octokit } from '@octokit/rest';
import { REVIEW_COMMENT_MARKER } from '@roundtable/protocol/review';
import type { PullRequestRef } from './event';

/**
 * GitHub refuses a comment body over 65536 characters with 422 "Body is too long (maximum is 65536
 * characters)" (seen in suzuki-shunsuke/github-comment#124, danger/danger#424).
 */
export const MAX_COMMENT_CHARS = 65_536;

/** What of a listed comment decides whether it is ours. */
export interface ListedComment {
  id: number;
  body?: string | null;
  user: { login: string; id: number } | null;
}

/** Who the token is: the login and user id its comments carry as `user`. */
export interface TokenIdentity {
  login: string;
  /** The user id, when GitHub gives it (GraphQL's `databaseId` is nullable). */
  id?: number;
}

/**
 * Who the token is, from GraphQL's `viewer`: the one question every kind of token answers. REST `GET
 * /user` refuses the workflow's GITHUB_TOKEN and any GitHub App installation token (403 "Resource
 * not accessible by integration"); `viewer` gives such a token's bot (`github-actions[bot]`) and a
 * personal token's user alike (marocchino/sticky-pull-request-comment#332 and
 * fullsend-ai/fullsend#1953 moved to it for that reason). Throws one line when there is no answer.
 */
export async function tokenIdentity(octokit: Octokit): Promise<TokenIdentity> {
  const unknown = (why: string, cause?: unknown) =>
    new Error(
      `GitHub did not say who the token is (${why}), so no comment can be proved the action's own and none was written; the report is in the job summary`,
      { cause },
    );
  let viewer: unknown;
  try {
    ({ viewer } = await octokit.graphql<{ viewer: unknown }>('query { viewer { login databaseId } }'));
  } catch (e) {
    throw unknown(`GraphQL viewer: ${(e as Error).message}`, e);
  }
  const v = (typeof viewer === 'object' && viewer !== null ? viewer : {}) as { login?: unknown; databaseId?: unknown };
  if (typeof v.login !== 'string' || !v.login) throw unknown('no viewer login');
  return { login: v.login, ...(Number.isSafeInteger(v.databaseId) ? { id: v.databaseId as number } : {}) };
}

/**
 * The body to post: the report, starting with the marker (added if the report lacks it), cut at a
 * line end to fit `max` with a closing line saying so.
 */
export function commentBody(
  report: string,
  max = MAX_COMMENT_CHARS,
  rest = 'the report is longer than a comment may be: the rest is in the job summary',
): string {
  const marked = report.startsWith(REVIEW_COMMENT_MARKER) ? report : `${REVIEW_COMMENT_MARKER}\n${report}`;
  if (marked.length <= max) return marked;
  const note = `\n\n_(${rest}.)_\n`;
  const cut = marked.slice(0, max - note.length);
  const lineEnd = cut.lastIndexOf('\n');
  const kept = lineEnd > REVIEW_COMMENT_MARKER.length ? cut.slice(0, lineEnd) : cut;
  return `${kept}${closingFence(kept)}${note}`;
}

/** The fence that closes a code block left open where the report was cut (else the note would show as code). */
function closingFence(text: string): string {
  let open = '';
  for (const m of text.matchAll(/^ {0,3}(`{3,}|~{3,})/gm)) {
    const fence = m[1] ?? '';
    if (!open) open = fence;
    else if (fence[0] === open[0] && fence.length >= open.length) open = '';
  }
  return open ? `\n${open}` : '';
}

/**
 * The comment to update: the first whose body starts with the marker and whose author is `me` (its
 * login, and its user id when known). Anyone else's marked comment is left alone, whoever they are.
 */
export function ownComment<C extends ListedComment>(comments: readonly C[], me: TokenIdentity): C | undefined {
  return comments.find(
    (c) =>
      (c.body ?? '').startsWith(REVIEW_COMMENT_MARKER) &&
      c.user?.login === me.login &&
      (me.id === undefined || c.user.id === me.id),
  );
}

/** Edits the action's comment on the pull request, or creates it; returns its address. */
export async function upsertComment(octokit: Octokit, pr: PullRequestRef, body: string): Promise<string> {
  const where = { owner: pr.owner, repo: pr.repo };
  // Before anything is read or written: with no identity, no comment can be proved ours.
  const me = await tokenIdentity(octokit);
  let existing: ListedComment | undefined;
  // Every page is read (a busy pull request has more than 100 comments) until our own marked comment.
  for await (const page of octokit.paginate.iterator(octokit.rest.issues.listComments, {
    ...where,
    issue_number: pr.number,
    per_page: 100,
  })) {
    existing = ownComment(page.data, me);
    if (existing) break;
  }
  const written = existing
    ? await octokit.rest.issues.updateComment({ ...where, comment_id: existing.id, body })
    : await octokit.rest.issues.createComment({ ...where, issue_number: pr.number, body });
  return written.data.html_url;
}
