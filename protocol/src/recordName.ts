/**
 * What a decision record's file name says of its number, read the same way by the daemon (its ids,
 * daemon/src/decisions/ids.ts) and by the extension (the next record's number): `0007-x.md`,
 * `ADR-12_x.md`, `007.md` carry a number; a date-named file (`2024-05-16-x.md`, `20240516-x.md`)
 * carries none, its digits are a date.
 */

/** A file name that starts with a date (`2024-05-16`, `20240516`, optionally a time): not a record number. */
export const DATED_NAME = /^(?:19|20)\d{2}(?:-?)(?:0[1-9]|1[0-2])(?:-?)(?:0[1-9]|[12]\d|3[01])(?:\d{4,6})?(?=[-_. ]|$)/;

/** The number a record's file name gives it, as written (`"0007"`, `"12"`), or undefined (no number, or a date). */
export function nameNumber(relPath: string): string | undefined {
  const base = relPath.slice(relPath.lastIndexOf('/') + 1);
  if (DATED_NAME.test(base)) return undefined;
  return /^(?:adr[-_ ]?)?(\d{1,6})(?=[-_. ]|$)/i.exec(base)?.[1];
}
