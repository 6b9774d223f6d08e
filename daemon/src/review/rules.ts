/**
 * The rulebook of a review: which decision records the reviewers are held to. Every record is
 * listed in the scope with its status (a finding that cites a superseded or rejected record is
 * refuted, so the reviewers must be able to name it); only accepted ones count as rules. An
 * accepted record whose `scope:` covers a changed path always applies; the others are ranked by the
 * words they share with the diff (the keyword relevance meetings are briefed with), up to a cap.
 */
import type { ReviewScope, Unstatused } from '@roundtable/protocol';
import { recordIds } from '../decisions/ids';
import type { DecisionRecord } from '../decisions/record';
import { governingDecisions } from '../decisions/rulebook';
import { rankRecords } from '../decisions/index';

/** Most records shown to the reviewers that no `scope:` named (ranked by relevance to the diff). */
export const MAX_RANKED_RULES = 5;

/**
 * One line when `records` hold no rule at all (none accepted): how many there are, why none counts,
 * and the fix. Undefined when there are no records or at least one rule.
 */
export function noRuleLine(
  records: readonly DecisionRecord[],
  folder: string,
  unstatused: Unstatused,
): string | undefined {
  if (records.length === 0 || records.some((r) => r.state === 'accepted')) return undefined;
  const count = (what: (r: DecisionRecord) => boolean): number => records.filter(what).length;
  const bare = count((r) => r.unstatused === true && r.state === 'unknown');
  const unread = count((r) => !r.unstatused && r.state === 'unknown');
  const why = [
    bare ? `${bare} with no status (decisions.unstatused is ${unstatused})` : '',
    unread ? `${unread} with a status Roundtable does not read` : '',
    ...(['proposed', 'superseded', 'deprecated', 'rejected'] as const).map((s) => {
      const n = count((r) => r.state === s);
      return n ? `${n} ${s}` : '';
    }),
  ]
    .filter(Boolean)
    .join(', ');
  const fix = bare
    ? 'review with --unstatused accepted (VS Code: roundtable.decisions.unstatused), or mark the records in force "Status: accepted"'
    : 'mark the records in force "Status: accepted"';
  // The scope holds one line of at most 1,000 characters: a folder's name is cut, never the fix.
  return `${folder.slice(0, 200)} holds ${records.length} decision record(s) but none is a rule (${why}): ${fix}`;
}

/** The accepted records whose scope covers a file, each with the first glob that does (`governingDecisions`). */
export type Governing = ReturnType<typeof governingDecisions>;

/** The accepted records of `records` governing each of `files`, by file: each file's scopes matched once. */
export function governingByFile(records: readonly DecisionRecord[], files: readonly string[]): Map<string, Governing> {
  const accepted = records.filter((r) => r.state === 'accepted');
  return new Map(files.map((f) => [f, governingDecisions(accepted, f)]));
}

/**
 * The records to show (scoped ones that govern a changed file first, then the best ranked, at most
 * `cap` of those) and the scope's list of every record with its id and status. `governing` holds
 * each changed file's governing records (`governingByFile` of the same records): given, they are
 * not matched again.
 */
export function chooseRules(
  records: readonly DecisionRecord[],
  changedFiles: readonly string[],
  diffText: string,
  cap = MAX_RANKED_RULES,
  governing: ReadonlyMap<string, Governing> = governingByFile(records, changedFiles),
): { rules: DecisionRecord[]; decisions: ReviewScope['decisions']; ids: Map<DecisionRecord, string> } {
  const ids = recordIds(records);
  const accepted = records.filter((r) => r.state === 'accepted');
  const scoped = new Set<DecisionRecord>();
  for (const f of changedFiles) for (const g of governing.get(f) ?? []) scoped.add(g.record);
  const ranked = rankRecords(
    accepted.filter((r) => !scoped.has(r)),
    diffText,
    cap,
  );
  const decisions = records.map((r) => ({
    id: ids.get(r) ?? r.path,
    title: r.title,
    path: r.path,
    status: r.state,
  }));
  return { rules: [...scoped, ...ranked], decisions, ids };
}
