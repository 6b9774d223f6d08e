/**
 * One vote's fields as models write them (test/fixtures/real-replies/ballot.json and review/): the
 * option by id, label or number (`"1"` for O1), the vote as a word or a boolean (`accept: true`),
 * the confidence from 0–1, out of 10 or a percentage, the rationale under `reasoning` or `reason`,
 * and evidence as a list or a single location object. Each reader says what is wrong in one line.
 */
import type { ConsensusOption, Evidence, VoteKind } from '@roundtable/protocol';
import { isRecord, lineSpan } from '@roundtable/protocol';
import { locationOf } from './reviewFinding';

export type FieldRead<T> = { ok: true; value: T } | { ok: false; reason: string };

const MAX_EVIDENCE = 20;

/**
 * The option a vote names: its id, its label, both (`"O2: SQLite"`, `"O2 (SQLite)"`: the id
 * decides), or its number (`1`, `"1"`, `"#1"`, `"Option 1"`, `"finding 1"` for O1).
 */
export function optionFor(ref: unknown, options: ConsensusOption[]): ConsensusOption | undefined {
  if (typeof ref === 'number') return Number.isInteger(ref) ? options.find((o) => o.id === `O${ref}`) : undefined;
  if (typeof ref !== 'string') return undefined;
  const r = ref.trim().toLowerCase();
  const byName =
    options.find((o) => o.id.toLowerCase() === r || o.label.trim().toLowerCase() === r) ??
    options.find((o) => r.startsWith(o.id.toLowerCase()) && /^\s*[-:–—.)(]/.test(r.slice(o.id.length)));
  if (byName) return byName;
  const n = /^(?:#|o|option|finding|f)?\s*[-#]?\s*(\d{1,4})$/.exec(r)?.[1];
  return n === undefined ? undefined : options.find((o) => o.id === `O${Number(n)}`);
}

const VOTE_WORDS = new Map<string, VoteKind>([
  ...[
    'accept',
    'accepted',
    'yes',
    'approve',
    'approved',
    'support',
    'for',
    'agree',
    'agreed',
    'valid',
    'confirmed',
    'confirm',
    'upheld',
    'holds',
    'true',
  ].map((w) => [w, 'accept'] as const),
  ...['reject', 'rejected', 'no', 'oppose', 'against', 'disagree', 'invalid', 'refuted', 'false positive', 'false'].map(
    (w) => [w, 'reject'] as const,
  ),
  ...['abstain', 'neutral', 'skip', 'pass', 'unsure', 'uncertain', 'unknown'].map((w) => [w, 'abstain'] as const),
]);

/** Keys whose boolean is the vote (`"accept": true`, `"valid": false`). */
const BOOLEAN_VOTES = ['accept', 'accepted', 'agree', 'agrees', 'valid', 'holds', 'upheld', 'confirmed'] as const;

/**
 * The vote as written: `"Yes"`, `"ACCEPT"`, `"false positive"`, `true`, or a boolean under
 * `accept`/`valid`. A `vote` the reader does not know is no vote (never guessed from the other
 * fields); `verdict`, `decision`, `stance` count only when they hold a vote word (a review's vote
 * may carry the decision it cites under `decision`).
 */
export function voteOf(raw: Record<string, unknown>): VoteKind | undefined {
  for (const k of ['vote', 'verdict', 'decision', 'stance', 'position']) {
    const v = raw[k];
    if (typeof v === 'boolean') return v ? 'accept' : 'reject';
    const word = typeof v === 'string' ? VOTE_WORDS.get(v.trim().toLowerCase().replace(/[_-]/g, ' ')) : undefined;
    if (word || (k === 'vote' && v !== undefined)) return word;
  }
  for (const k of BOOLEAN_VOTES) if (typeof raw[k] === 'boolean') return raw[k] ? 'accept' : 'reject';
  return undefined;
}

const CONFIDENCE_KEYS = ['confidence', 'confidence_score', 'confidenceScore', 'score', 'certainty'] as const;

/** The confidence as written, before its scale is known. */
function writtenConfidence(raw: Record<string, unknown>): unknown {
  for (const k of CONFIDENCE_KEYS) if (raw[k] !== undefined) return raw[k];
  return undefined;
}

/**
 * The scale a ballot writes its confidences in: out of 100 when any of them is a whole number
 * above 10 or a percentage, else out of 10 for whole numbers 2–10. One ballot, one scale: a 9
 * beside an 85 is 9%, a 9 beside a 7 is 0.9.
 */
export function ballotScale(votes: unknown[]): 10 | 100 {
  const over10 = votes.some((v) => {
    const c = isRecord(v) ? writtenConfidence(v) : undefined;
    return (typeof c === 'number' && c > 10) || (typeof c === 'string' && /%\s*$/.test(c));
  });
  return over10 ? 100 : 10;
}

/** A confidence from 0 to 1, from `0.9`, `9` (out of 10), `90` (out of 100), `"90%"`, `"9/10"`. */
export function confidenceOf(raw: Record<string, unknown>, scale: 10 | 100): number | undefined {
  const c = writtenConfidence(raw);
  const pct = typeof c === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(c) : null;
  const frac = typeof c === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*\/\s*(10|100)\s*$/.exec(c) : null;
  const n = pct ? Number(pct[1]) / 100 : frac ? Number(frac[1]) / Number(frac[2]) : c;
  if (typeof n !== 'number' || !Number.isFinite(n)) return undefined;
  if (n >= 0 && n <= 1) return n;
  if (!Number.isInteger(n) || n < 2 || n > 100) return undefined;
  return n <= 10 && scale === 10 ? n / 10 : n / 100;
}

/** What the confidence was written as, for the one-line reason when it cannot be read. */
export function confidenceAsWritten(raw: Record<string, unknown>): string {
  return JSON.stringify(writtenConfidence(raw)) ?? 'nothing';
}

/** The rationale, under whichever name the model gave it. */
export function rationaleOf(raw: Record<string, unknown>): string {
  for (const k of ['rationale', 'reasoning', 'reason', 'explanation', 'justification', 'why', 'comment']) {
    const v = raw[k];
    if (typeof v === 'string' && v.trim()) return v.trim();
  }
  return '';
}

/**
 * Evidence: a list of `{file, section?, type?}` (or `path`, a nested `location`, `line`/`lines`
 * for the section), of plain paths (`"src/a.ts"`, `"src/a.ts:12-14"`), or one such object alone.
 */
export function evidenceOf(raw: Record<string, unknown>, at: string): FieldRead<Evidence[]> {
  const given = raw.evidence ?? raw.citations ?? [];
  const list: unknown = isRecord(given) || typeof given === 'string' ? [given] : given;
  if (!Array.isArray(list) || list.length > MAX_EVIDENCE) {
    return { ok: false, reason: `${at}.evidence must be a list of at most ${MAX_EVIDENCE} {file, section, type}` };
  }
  const value: Evidence[] = [];
  for (const [j, item] of list.entries()) {
    // A path as text (`src/a.ts`, `src/a.ts:12-14`) is read as an object naming that file.
    const ev: unknown = typeof item === 'string' ? { file: item } : item;
    const where = isRecord(ev) ? locationOf(ev) : {};
    const file = where.file?.trim();
    if (!isRecord(ev) || !file || file.length > 500)
      return { ok: false, reason: `${at}.evidence[${j}] needs a "file"` };
    const e: Evidence = { file, status: 'unchecked' };
    const lines = where.lines;
    const section = typeof ev.section === 'string' && ev.section.trim() ? ev.section.trim() : undefined;
    if (section) e.section = section.slice(0, 200);
    else if (lines) e.section = lineSpan(lines);
    if (typeof ev.type === 'string' && ev.type.trim()) e.type = ev.type.trim().slice(0, 40);
    value.push(e);
  }
  return { ok: true, value };
}
