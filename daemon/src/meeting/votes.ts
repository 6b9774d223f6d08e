/**
 * Consensus ballots: pulled out of whatever a model wrote (bare JSON, a fenced block, JSON with
 * prose around it, a tool call or a draft before the final ballot, loose JSON mended), each vote
 * read with the names and scales models use (voteFields.ts). One bad vote costs that vote, not
 * the ballot: it is recorded as an abstention marked `unread`, with the reason, and the worker is
 * asked once more; a ballot with no vote that can be read is invalid as a whole.
 */
import type { ConsensusOption, OptionVote } from '@roundtable/protocol';
import { UNCERTAINTY_BELOW, isRecord } from '@roundtable/protocol';
import { extractJson, jsonValuesIn } from './jsonInReply';
import {
  ballotScale,
  confidenceAsWritten,
  confidenceOf,
  evidenceOf,
  optionFor,
  rationaleOf,
  voteOf,
  type FieldRead,
} from './voteFields';

/**
 * A ballot as read: `ok` when at least one vote could be read, with every option's vote (those
 * not read marked `unread`), the votes that could not be read (`problems`, one line each) and the
 * options no vote was given on (`missing`); else why nothing could be read.
 */
export type BallotCheck =
  { ok: true; votes: OptionVote[]; problems: string[]; missing: string[] } | { ok: false; reason: string };

const MAX_RATIONALE = 4_000;
const MAX_NOTE = 1_000;
const MAX_ASSUMPTIONS = 10;

type Notes = Pick<OptionVote, 'assumptions' | 'uncertainty' | 'compromise'>;

/** The optional notes of one vote: assumptions, an uncertainty note (required at low confidence), a compromise. */
function checkNotes(
  raw: Record<string, unknown>,
  at: string,
  vote: OptionVote['vote'],
  confidence: number,
): FieldRead<Notes> {
  const value: Notes = {};
  if (raw.assumptions !== undefined) {
    if (
      !Array.isArray(raw.assumptions) ||
      raw.assumptions.length > MAX_ASSUMPTIONS ||
      !raw.assumptions.every((a) => typeof a === 'string')
    )
      return { ok: false, reason: `${at}.assumptions must be a list of at most ${MAX_ASSUMPTIONS} strings` };
    const list = raw.assumptions.map((a) => a.trim().slice(0, MAX_NOTE)).filter(Boolean);
    if (list.length > 0) value.assumptions = list;
  }
  for (const key of ['uncertainty', 'compromise'] as const) {
    const v = raw[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') return { ok: false, reason: `${at}.${key} must be a string` };
    if (v.trim()) value[key] = v.trim().slice(0, MAX_NOTE);
  }
  if (vote !== 'abstain' && confidence < UNCERTAINTY_BELOW && !value.uncertainty)
    return {
      ok: false,
      reason: `${at}.uncertainty is missing: a confidence below ${UNCERTAINTY_BELOW} needs a note saying what you are unsure of`,
    };
  return { ok: true, value };
}

/**
 * The votes of a ballot however they are listed: `{"votes": [...]}`, keyed by option
 * (`{"votes": {"O1": {"vote": …}}}` or `{"1": …}`: the key names the option, whatever the value
 * says), or keyed by option at the top with no `votes` around them.
 */
function votesOf(json: Record<string, unknown>, options: ConsensusOption[]): unknown[] | undefined {
  const v = json.votes;
  const keyed = (o: Record<string, unknown>) =>
    Object.entries(o).map(([option, raw]) => (isRecord(raw) ? { ...raw, option } : { option, vote: raw }));
  if (Array.isArray(v)) return v as unknown[];
  if (isRecord(v)) return keyed(v);
  const byOption = Object.fromEntries(Object.entries(json).filter(([k]) => optionFor(k, options) !== undefined));
  return Object.keys(byOption).length > 0 ? keyed(byOption) : undefined;
}

/** A list that is a ballot's votes written without the object around it: objects naming an option. */
function isVoteList(v: unknown): v is Record<string, unknown>[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => isRecord(x) && x.option !== undefined);
}

/** One vote read, or what is wrong with it in one line. */
function readVote(raw: unknown, at: string, options: ConsensusOption[], scale: 10 | 100): FieldRead<OptionVote> {
  if (!isRecord(raw)) return { ok: false, reason: `${at} is not an object` };
  const ref = raw.option ?? raw.id ?? raw.finding ?? raw.option_id;
  const option = optionFor(ref, options);
  if (!option)
    return {
      ok: false,
      reason: `${at}.option ${JSON.stringify(ref) ?? 'nothing'} is not one of ${options.map((o) => o.id).join(', ')}`,
    };
  const vote = voteOf(raw);
  if (!vote)
    return {
      ok: false,
      reason: `${at}.vote must be accept, reject or abstain, got ${JSON.stringify(raw.vote) ?? 'nothing'}`,
    };
  const confidence = confidenceOf(raw, scale) ?? (vote === 'abstain' && writtenNothing(raw) ? 0 : undefined);
  if (confidence === undefined)
    return { ok: false, reason: `${at}.confidence must be a number from 0.0 to 1.0, got ${confidenceAsWritten(raw)}` };
  const rationale = rationaleOf(raw);
  if (vote !== 'abstain' && rationale.length === 0) return { ok: false, reason: `${at}.rationale is missing` };
  const evidence = evidenceOf(raw, at);
  if (!evidence.ok) return evidence;
  const notes = checkNotes(raw, at, vote, confidence);
  if (!notes.ok) return notes;
  const value: OptionVote = {
    option: option.id,
    vote,
    confidence,
    rationale: rationale.slice(0, MAX_RATIONALE),
    evidence: evidence.value,
    ...notes.value,
  };
  return { ok: true, value };
}

/** An abstention that wrote no confidence at all (nothing to weigh: 0). */
const writtenNothing = (raw: Record<string, unknown>) => confidenceAsWritten(raw) === 'nothing';

/** The rationale of an unread vote on an option the worker left out of its ballot. */
export const NO_VOTE = 'no vote given';

/** An option's vote that was not read: an abstention, marked, with why. */
function unreadVote(option: string, why: string): OptionVote {
  return { option, vote: 'abstain', confidence: 0, rationale: why, evidence: [], unread: true };
}

/**
 * Checks a ballot against the options, vote by vote. An option voted on twice has neither vote
 * read (which one did the worker mean?); an option with no vote is an `unread` abstention, "no
 * vote given". Invalid as a whole only when not one vote could be read.
 */
export function checkBallot(json: unknown, options: ConsensusOption[]): BallotCheck {
  if (!isRecord(json)) return { ok: false, reason: 'the reply holds no JSON object' };
  const list = votesOf(json, options);
  if (!list) return { ok: false, reason: 'the JSON object has no "votes" list' };
  if (list.length === 0) return { ok: false, reason: 'the "votes" list is empty' };
  const scale = ballotScale(list);
  const read = list.map((raw, i) => readVote(raw, `votes[${i}]`, options, scale));
  const problems: string[] = [];
  // An option voted on twice has neither vote counted (which one did the worker mean?): null.
  const byOption = new Map<string, OptionVote | null>();
  for (const [i, r] of read.entries()) {
    if (!r.ok) problems.push(r.reason);
    else if (!byOption.has(r.value.option)) byOption.set(r.value.option, r.value);
    else {
      if (byOption.get(r.value.option)) problems.push(`votes[${i}] votes on ${r.value.option} a second time`);
      byOption.set(r.value.option, null);
    }
  }
  const counted = [...byOption.values()].filter((v): v is OptionVote => v !== null);
  if (counted.length === 0) return { ok: false, reason: problems[0] ?? 'no vote could be read' };
  const missing = options.filter((o) => !byOption.has(o.id)).map((o) => o.id);
  const votes = options.map(
    (o) =>
      byOption.get(o.id) ?? unreadVote(o.id, byOption.has(o.id) ? `unreadable vote: voted on ${o.id} twice` : NO_VOTE),
  );
  return { ok: true, votes, problems, missing };
}

/**
 * A ballot from a reply: the last JSON object holding "votes" (a list, or keyed by option; a tool
 * call or a draft may come first), else the last bare list of votes (`[{"option": "O1", …}]`).
 */
export function parseBallot(reply: string, options: ConsensusOption[]): BallotCheck {
  const json = extractJson(reply, (r) => Array.isArray(r.votes) || isRecord(r.votes));
  if (isRecord(json) && json.votes !== undefined) return checkBallot(json, options);
  const bare = jsonValuesIn(reply, '[').filter(isVoteList).at(-1);
  if (bare) return checkBallot({ votes: bare }, options);
  if (json === undefined) return { ok: false, reason: 'the reply holds no JSON object' };
  return checkBallot(json, options);
}

/**
 * A ballot's votes, asked once (`second` is `first`) or twice: per option, the vote read in the
 * second answer, else the one read in the first; what neither answer gave stays unread (an answer
 * that held no ballot: every vote unread, with the reason).
 */
export function mergeBallots(first: BallotCheck, second: BallotCheck, options: ConsensusOption[]): OptionVote[] {
  const read = (c: BallotCheck, id: string) => (c.ok ? c.votes.find((v) => v.option === id && !v.unread) : undefined);
  const last = second.ok ? second : first.ok ? first : undefined;
  return options.map(
    (o) =>
      read(second, o.id) ??
      read(first, o.id) ??
      last?.votes.find((v) => v.option === o.id) ??
      unreadVote(o.id, `invalid ballot: ${second.ok ? NO_VOTE : second.reason}`),
  );
}

/** One proposed option: a string, or an object naming it by `label`, `option`, `title` or `text`. */
function proposalLabel(o: unknown): string | undefined {
  const v = isRecord(o) ? [o.label, o.option, o.title, o.text].find((x) => typeof x === 'string') : o;
  return typeof v === 'string' && v.trim() ? v.trim().slice(0, 300) : undefined;
}

/** `Option 1: …`, `Translation candidate 2 — …`, `- **Candidate 3:** …`: a label of up to three words, a number, a separator. */
const NUMBERED_RE = /^\s*(?:[-*+•]\s+)?([A-Za-z]+(?:\s+[A-Za-z]+){0,2})\s+#?(\d+)\s*(?::|—|–|\s-\s)\s*(\S.*)$/;
/** `Affirmative side: "…"`: a label of up to three words, then a quotation. */
const QUOTED_RE = /^\s*(?:[-*+•]\s+)?[A-Za-z]+(?:\s+[A-Za-z]+){0,2}\s*:\s*(["“].*)$/;

/** A value without the one pair of quotes around all of it (`"This colour is too light."` → its words). */
function unquoted(v: string): string {
  return /^["“][^"“”]*["”][.!]?$/.test(v) ? v.replace(/^["“]|["”][.!]?$/g, '') : v;
}

/**
 * Options written as labelled lines: the same label numbered from 1 in order (`Candidate 1: …`,
 * `Candidate 2: …`), or a reply that is nothing but `Label: "quotation"` lines (`Affirmative: "…"`,
 * `Negative: "…"`); at least two either way, else none.
 */
function labelledOptions(lines: string[]): string[] {
  const numbered = lines.map((l) => NUMBERED_RE.exec(l)).filter((m): m is RegExpExecArray => m !== null);
  const stem = numbered[0]?.[1]?.toLowerCase();
  const run = numbered.filter((m) => m[1]?.toLowerCase() === stem);
  if (run.length >= 2 && run.every((m, i) => Number(m[2]) === i + 1)) return run.map((m) => unquoted(m[3] ?? ''));
  const own = lines.filter((l) => l.trim() !== '');
  const quoted = own.map((l) => QUOTED_RE.exec(l)?.[1]);
  if (own.length >= 2 && quoted.every((q) => q !== undefined)) return quoted.map((q) => unquoted(q ?? ''));
  return [];
}

/**
 * Options from a proposal reply: JSON — `{"options": [...]}` or a bare array, of strings or of
 * objects with a label — or, failing that, labelled lines (`Candidate 1: …`, see `labelledOptions`),
 * or bullet and numbered lines.
 */
export function parseProposals(reply: string): string[] {
  for (const v of [...jsonValuesIn(reply, '['), extractJson(reply, (r) => Array.isArray(r.options))]) {
    const list = Array.isArray(v) ? v : isRecord(v) && Array.isArray(v.options) ? v.options : [];
    const labels = list.map(proposalLabel).filter((o): o is string => o !== undefined);
    if (labels.length > 0) return labels;
  }
  const lines = reply.split('\n').map((l) => l.replace(/\*\*|__/g, '').trimEnd());
  const labelled = labelledOptions(lines);
  const listed =
    labelled.length > 0
      ? labelled
      : lines.map((l) => /^\s*(?:[-*+•]|\d+[.)])\s+(.+)$/.exec(l)?.[1]?.trim()).filter((o): o is string => Boolean(o));
  // A numbered list written on one line ("1. A 2. B 3. C"): split where the numbers run 1, 2, 3.
  const inline = listed.length > 1 ? [] : (lines.map(inlineNumbered).find((l) => l.length > 1) ?? []);
  return (inline.length > 1 ? inline : listed).map((o) => o.trim().slice(0, 300));
}

/** A line's items numbered 1, 2, 3… in order (`Options: 1. SQLite, 2. Postgres and 3. files`), or none. */
function inlineNumbered(line: string): string[] {
  const chain: RegExpExecArray[] = [];
  for (const m of line.matchAll(/(?:^|[\s:(])(\d{1,2})[.)]\s+/g)) if (Number(m[1]) === chain.length + 1) chain.push(m);
  if (chain.length < 2) return [];
  return chain
    .map((m, k) => withoutJoiner(line.slice(m.index + m[0].length, chain[k + 1]?.index)).trim())
    .filter(Boolean);
}

/** An item without what joins it to the next: trailing commas, semicolons, "and", "or" (read from the end, once). */
function withoutJoiner(item: string): string {
  let end = item.length;
  for (;;) {
    while (end > 0 && /[\s,;]/.test(item[end - 1] as string)) end--;
    const joiner = /(?:^|\s)(?:and|or)$/i.exec(item.slice(Math.max(0, end - 4), end));
    if (!joiner) return item.slice(0, end);
    end -= joiner[0].length;
  }
}

function words(s: string): Set<string> {
  return new Set(
    s
      .toLowerCase()
      .replace(/[^a-z0-9 ]+/g, ' ')
      .split(/\s+/)
      .filter((w) => w.length > 2),
  );
}

/**
 * Merges proposals into at most `max` options: exact duplicates (ignoring case, punctuation and
 * spacing) and near-duplicates (word overlap of 80% or more) count once; the options proposed by
 * the most workers come first, ties in order of first proposal.
 */
export function dedupeOptions(proposals: string[][], max: number): string[] {
  const kept: { label: string; words: Set<string>; votes: number; first: number }[] = [];
  let n = 0;
  for (const list of proposals) {
    for (const label of list) {
      const w = words(label);
      const same = kept.find((k) => {
        const inter = [...w].filter((x) => k.words.has(x)).length;
        const union = new Set([...w, ...k.words]).size;
        return union === 0 ? k.label.toLowerCase() === label.toLowerCase() : inter / union >= 0.8;
      });
      if (same) same.votes++;
      else kept.push({ label, words: w, votes: 1, first: n++ });
    }
  }
  return kept
    .sort((a, b) => b.votes - a.votes || a.first - b.first)
    .slice(0, max)
    .map((k) => k.label);
}
