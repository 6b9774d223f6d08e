/**
 * The file and the record a finding names, as the review reads what a reviewer wrote: a path made
 * repository-relative and matched to a file of the change (read or not, by its real name or the
 * name it was shown), a citation resolved to the rulebook's id. Pure; used by the engine's merging
 * and refutation (meeting/reviewFindings.ts) and by the review eval, which reads the lone
 * reviewers' findings the same way.
 */
import type { Finding, ReviewScope } from '@roundtable/protocol';
import { resolveCitation } from '../decisions/ids';

/**
 * A decision id as cited, for comparison: `ADR-0003`, `0003`, `3` all read 3; anything more (a
 * record's file name, the id of one of two records sharing a number) is compared whole.
 * `reviewOptions` writes each citation as the rulebook's id first (`resolveCitation`).
 */
export function decisionKey(id: string): string {
  const digits = /^\D*?0*(\d+)$/.exec(id.trim());
  return digits ? String(Number(digits[1])) : id.trim().toLowerCase();
}

/**
 * A path as a model wrote it, made repository-relative where that is certain: backslashes as
 * slashes, a `file://` URI's path, the workspace root taken off an absolute path inside it,
 * `./` and repeated slashes dropped. Whatever it names, it stays data: never a pattern.
 */
export function repoRelative(raw: string, root?: string): string {
  let p = raw.trim().replace(/\\/g, '/');
  if (/^file:\/\//i.test(p)) p = p.replace(/^file:\/\/(?:localhost)?/i, '').replace(/^\/([A-Za-z]:\/)/, '$1');
  p = p.replace(/\/{2,}/g, '/').replace(/\/(?:\.\/)+/g, '/');
  const base = root?.replace(/\\/g, '/').replace(/\/+$/, '');
  if (base && p.startsWith(`${base}/`)) p = p.slice(base.length + 1);
  return p.replace(/^(?:\.\/)+/, '');
}

const isAbsolute = (p: string) => p.startsWith('/') || /^[A-Za-z]:\//.test(p);

/**
 * The changed file a finding's path names, matched on the repository-relative form of what the
 * reviewer wrote against each file's real name and the name it was shown (`shown`): as written,
 * then without a diff side's `a/` or `b/`, then, for an absolute path outside the workspace (a
 * root the model made up: it is never shown one), the one changed file it ends with.
 */
export function changedFileOf<C extends { file: string; shown?: string }>(
  written: string,
  scope: { changed: C[] },
  root?: string,
): C | undefined {
  const p = repoRelative(written, root);
  const named = (q: string) =>
    scope.changed.find((c) => c.file === q || (c.shown !== undefined && repoRelative(c.shown) === q));
  const exact = named(p) ?? (/^[ab]\//.test(p) ? named(p.slice(2)) : undefined);
  if (exact || !isAbsolute(p)) return exact;
  const tails = scope.changed.filter(
    (c) => p.endsWith(`/${c.file}`) || (c.shown !== undefined && p.endsWith(`/${repoRelative(c.shown)}`)),
  );
  return tails.length === 1 ? tails[0] : undefined;
}

/** The file of the change a finding's path names among those the review could not read. */
export const unreadFileOf = (written: string, scope: ReviewScope, root?: string) =>
  changedFileOf(written, { changed: scope.unread ?? [] }, root);

/**
 * A finding as the review reads it before merging: on the real name of the file it names (so the
 * same finding written two ways is one) and citing the rulebook's id of its record (so two records
 * sharing a number stay apart). The review eval reads the lone reviewers' findings so too.
 */
export function findingAsRead(f: Finding, scope: ReviewScope, root?: string): Finding {
  const cited = f.decision === undefined ? undefined : resolveCitation(f.decision, scope.decisions);
  return {
    ...f,
    file: (changedFileOf(f.file, scope, root) ?? unreadFileOf(f.file, scope, root))?.file ?? repoRelative(f.file, root),
    ...(cited?.ok ? { decision: cited.decision.id } : {}),
  };
}
