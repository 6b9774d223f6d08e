/**
 * A decision record's id, defined once for every surface (`roundtable decisions`, its `--json`,
 * the Decisions view, the review's rulebook, its findings and SARIF's `decision/<id>` rules):
 *
 *  - its number as its file name writes it: `0005` for `0005-use-postgres.md`, `001` for
 *    `001-record.md`, `015` for `ADR015-aws.md` (the team's own digits, as they cite them);
 *  - a number only its title gives (`# 5. Use X` in `use-x.md`): four digits, `0005`, as adr-tools
 *    and MADR write numbers;
 *  - no number (log4brains' date-named files, `use-x.md`): its file name without `.md`, which is
 *    the id log4brains itself gives a record;
 *  - two records with one number (`0007-a.md`, `0007-b.md`; `001-x.md` and `0001-y.md`): each its
 *    file name without `.md`, so neither takes the other's id; and if even those are alike (one name
 *    in two subfolders), the workspace path without `.md`.
 *
 * A citation (`ADR-0003`, `3`, `0003-postgres.md`, `0007-iso-dates`) resolves to exactly one record
 * or to none, never to a guess between two (`resolveCitation`).
 */
import { stem, type DecisionRecord } from './record';
import { nameNumber } from '@roundtable/protocol';

/** Every record's id, unique within `records`. */
export function recordIds(records: readonly DecisionRecord[]): Map<DecisionRecord, string> {
  const sharing = new Map<number, number>();
  for (const r of records) if (r.number !== undefined) sharing.set(r.number, (sharing.get(r.number) ?? 0) + 1);
  const first = new Map<DecisionRecord, string>();
  for (const r of records) {
    const shared = r.number !== undefined && (sharing.get(r.number) ?? 0) > 1;
    const id = shared
      ? stem(r.path)
      : (nameNumber(r.path) ?? (r.number !== undefined ? String(r.number).padStart(4, '0') : stem(r.path)));
    first.set(r, id);
  }
  const taken = new Map<string, number>();
  for (const id of first.values()) taken.set(id.toLowerCase(), (taken.get(id.toLowerCase()) ?? 0) + 1);
  const ids = new Map<DecisionRecord, string>();
  for (const [r, id] of first) ids.set(r, (taken.get(id.toLowerCase()) ?? 0) > 1 ? r.path.replace(/\.md$/i, '') : id);
  return ids;
}

/** What a citation came to: the one record it names, or why none. */
export type Citation<D> =
  { ok: true; decision: D } | { ok: false; why: 'unknown' } | { ok: false; why: 'ambiguous'; candidates: D[] };

/** The number an id or a citation stands for: `ADR-0003`, `adr 3`, `0003`, `#3` → 3; `0003-postgres` → 3 too. */
function citedNumber(text: string): number | undefined {
  const m = /^(?:adr|decision|record)?[-_ #:.]*0*(\d{1,6})(?!\d)/i.exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * The record a finding's citation names, among the rulebook's `decisions` (each with the id above
 * and its path): the id itself (any case), else its file name or path with or without `.md`, else
 * its number when exactly one record has it. Two records with that number: ambiguous, never a guess.
 */
export function resolveCitation<D extends { id: string; path: string }>(
  cited: string,
  decisions: readonly D[],
): Citation<D> {
  const c = cited
    .trim()
    .replace(/^[`'"[(]+|[`'")\]]+$/g, '')
    .trim()
    .toLowerCase();
  if (c === '') return { ok: false, why: 'unknown' };
  const one = (hits: D[]): Citation<D> | undefined =>
    hits.length === 1 ? { ok: true, decision: hits[0] as D } : undefined;
  const byId = decisions.filter((d) => d.id.toLowerCase() === c);
  const named = c.replace(/\.md$/, '');
  const byName = byId.length
    ? []
    : decisions.filter((d) => {
        const p = d.path.toLowerCase().replace(/\.md$/, '');
        return stem(p) === named || p === named || p.endsWith(`/${named}`);
      });
  const found = one(byId) ?? one(byName);
  if (found) return found;
  const n = citedNumber(c);
  const numbered =
    n === undefined
      ? []
      : decisions.filter((d) => (/^\d+$/.test(d.id) ? Number(d.id) : citedNumber(stem(d.path))) === n);
  if (numbered.length === 1) return { ok: true, decision: numbered[0] as D };
  return numbered.length > 1 ? { ok: false, why: 'ambiguous', candidates: numbered } : { ok: false, why: 'unknown' };
}
