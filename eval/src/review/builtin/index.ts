/**
 * The built-in review set (`roundtable eval --review builtin`): small repositories with the kinds
 * of decisions teams record, each with a change, labelled with what a careful reviewer reports.
 * About half are clean controls (governed files changed without a breach, and changes that look
 * like one but that the record's own text allows); three break two records; three break a record
 * in a file its `scope:` does not name.
 */
import type { ReviewCase } from '../cases';
import { INTERFACE_CASES } from './interfaces';
import { PRACTICE_CASES } from './practice';
import { RULES_CASES } from './rules';
import { STORAGE_CASES } from './storage';

export const BUILTIN_SET_NAME = 'builtin';

export const BUILTIN_CASES: readonly ReviewCase[] = [
  ...STORAGE_CASES,
  ...RULES_CASES,
  ...INTERFACE_CASES,
  ...PRACTICE_CASES,
];
