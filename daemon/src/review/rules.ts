/**
 * The rulebook of a review: which decision records the reviewers are held to. Every record is
 * listed in the scope with its status (a finding that cites a superseded or rejected record is
 * refuted, so the reviewers must be able to name it); only accepted ones count as rules. An
 * accepted record whose `scope:` covers a changed path always applies; the others are ranked by the
 * words they share with the diff (the keyword relevance meetings are briefed with), up to a cap.
 */
import * as path from 'node:path';
import type { ReviewScope } from '@roundtable/protocol';
import type { DecisionRecord } from '../decisions/record';
import { governingDecisions } from '../decisions/rulebook';
import { rankRecords } from '../decisions/index';

/** Most records shown to the reviewers that no `scope:` named (ranked by relevance to the diff). */
export const MAX_RANKED_RULES = 5;

/**
 * A record's id as findings cite it: its number, four digits as MADR and adr-tools write it
 * ("0003"); the file name without `.md` when it has none or shares its number with another.
 */
export function recordIds(records: readonly DecisionRecord[]): Map<DecisionRecord, string> {
  const counts = new Map<number, number>();
  for (const r of records) if (r.number !== undefined) counts.set(r.number, (counts.get(r.number) ?? 0) + 1);
  const ids = new Map<DecisionRecord, string>();
  for (const r of records)
    ids.set(
      r,
      r.number !== undefined && counts.get(r.number) === 1
        ? String(r.number).padStart(4, '0')
        : path.posix.basename(r.path).replace(/\.md$/i, ''),
    );
  return ids;
}

/**
 * The records to show (scoped ones that govern a changed file first, then the best ranked, at most
 * `cap` of those) and the scope's list of every record with its id and status.
 */
export function chooseRules(
  records: readonly DecisionRecord[],
  changedFiles: readonly string[],
  diffText: string,
  cap = MAX_RANKED_RULES,
): { rules: DecisionRecord[]; decisions: ReviewScope['decisions']; ids: Map<DecisionRecord, string> } {
  const ids = recordIds(records);
  const accepted = records.filter((r) => r.state === 'accepted');
  const scoped = new Set<DecisionRecord>();
  for (const f of changedFiles) for (const g of governingDecisions(accepted, f)) scoped.add(g.record);
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
