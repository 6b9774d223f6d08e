/**
 * The action's one pull-request comment: found by the marker its body starts with and edited on
 * every push, created only when the pull request has none. A pull request's comments are an issue's
 * comments in GitHub's REST API (GET/POST /repos/{owner}/{repo}/issues/{n}/comments, PATCH
 * /repos/{owner}/{repo}/issues/comments/{id}).
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
  user: { type: string } | null;
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
 * The comment to update: one whose body starts with the marker, a bot's first (the workflow's
 * token posts as github-actions[bot]; someone who pastes the marker into a comment of their own
 * does not take the report's place), else anyone's (a personal token posts as a user).
 */
export function ownComment<C extends ListedComment>(comments: readonly C[]): C | undefined {
  const marked = comments.filter((c) => (c.body ?? '').startsWith(REVIEW_COMMENT_MARKER));
  return marked.find((c) => c.user?.type === 'Bot') ?? marked[0];
}

/** Edits the action's comment on the pull request, or creates it; returns its address. */
export async function upsertComment(octokit: Octokit, pr: PullRequestRef, body: string): Promise<string> {
  const where = { owner: pr.owner, repo: pr.repo };
  const found: ListedComment[] = [];
  // Every page is read (a busy pull request has more than 100 comments), stopping at a bot's marked comment.
  for await (const page of octokit.paginate.iterator(octokit.rest.issues.listComments, {
    ...where,
    issue_number: pr.number,
    per_page: 100,
  })) {
    found.push(...page.data);
    if (ownComment(page.data)?.user?.type === 'Bot') break;
  }
  const existing = ownComment(found);
  const written = existing
    ? await octokit.rest.issues.updateComment({ ...where, comment_id: existing.id, body })
    : await octokit.rest.issues.createComment({ ...where, issue_number: pr.number, body });
  return written.data.html_url;
}
