/**
 * Consensus ballots: pulled out of whatever a model wrote (bare JSON, a fenced block, JSON with
 * prose around it, a tool call or a draft before the final ballot, loose JSON mended), read with
 * the synonyms models use for votes, confidences and options, validated strictly otherwise, and
 * turned into an explained error when invalid so the worker can be asked once more.
 */
import type { ConsensusOption, Evidence, OptionVote, VoteKind } from '@roundtable/protocol';
import { UNCERTAINTY_BELOW, isRecord } from '@roundtable/protocol';
import { extractJson, jsonValuesIn } from './jsonInReply';

export type BallotCheck = { ok: true; votes: OptionVote[] } | { ok: false; reason: string };

const MAX_RATIONALE = 4_000;
const MAX_EVIDENCE = 20;

/**
 * The option a vote names: its id, its label, or both (`"O2: SQLite"`, `"O2 - SQLite"`, `"O2 (SQLite)"`);
 * the id decides.
 */
function optionFor(ref: unknown, options: ConsensusOption[]): ConsensusOption | undefined {
  if (typeof ref !== 'string') return undefined;
  const r = ref.trim().toLowerCase();
  return (
    options.find((o) => o.id.toLowerCase() === r || o.label.trim().toLowerCase() === r) ??
    options.find((o) => new RegExp(`^${o.id.toLowerCase().replace(/[^a-z0-9]/g, '\\$&')}\\s*[-:–—.)(]`).test(r))
  );
}

const VOTE_WORDS = new Map<string, VoteKind>([
  ...['accept', 'accepted', 'yes', 'approve', 'approved', 'support', 'for', 'agree'].map((w) => [w, 'accept'] as const),
  ...['reject', 'rejected', 'no', 'oppose', 'against', 'disagree'].map((w) => [w, 'reject'] as const),
  ...['abstain', 'neutral', 'skip', 'pass'].map((w) => [w, 'abstain'] as const),
]);

/** A vote as written (`"Yes"`, `"oppose"`, `"ACCEPT"`) read as accept, reject or abstain. */
function voteOf(raw: unknown): VoteKind | undefined {
  return typeof raw === 'string' ? VOTE_WORDS.get(raw.trim().toLowerCase()) : undefined;
}

/** A confidence as written: 0–1, a whole percentage 2–100 (85 → 0.85), or "80%". */
function confidenceOf(raw: unknown): number | undefined {
  const pct = typeof raw === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(raw) : null;
  const n = pct ? Number(pct[1]) / 100 : raw;
  if (typeof n !== 'number' || !Number.isFinite(n)) return undefined;
  if (n >= 0 && n <= 1) return n;
  return Number.isInteger(n) && n > 1 && n <= 100 ? n / 100 : undefined;
}

/** Evidence: a list of `{file, section?, type?}`, or of plain paths (`"src/a.ts"` → `{file}`). */
function checkEvidence(raw: unknown, at: string): { ok: true; value: Evidence[] } | { ok: false; reason: string } {
  const list = raw ?? [];
  if (!Array.isArray(list) || list.length > MAX_EVIDENCE) {
    return { ok: false, reason: `${at}.evidence must be a list of at most ${MAX_EVIDENCE} {file, section, type}` };
  }
  const value: Evidence[] = [];
  for (const [j, item] of list.entries()) {
    const ev: unknown = typeof item === 'string' ? { file: item } : item;
    if (!isRecord(ev) || typeof ev.file !== 'string' || ev.file.trim() === '' || ev.file.length > 500) {
      return { ok: false, reason: `${at}.evidence[${j}] needs a "file"` };
    }
    const e: Evidence = { file: ev.file.trim(), status: 'unchecked' };
    if (typeof ev.section === 'string' && ev.section.trim()) e.section = ev.section.trim().slice(0, 200);
    if (typeof ev.type === 'string' && ev.type.trim()) e.type = ev.type.trim().slice(0, 40);
    value.push(e);
  }
  return { ok: true, value };
}

const MAX_NOTE = 1_000;
const MAX_ASSUMPTIONS = 10;

type Notes = Pick<OptionVote, 'assumptions' | 'uncertainty' | 'compromise'>;

/** The optional notes of one vote: assumptions, an uncertainty note (required at low confidence), a compromise. */
function checkNotes(
  raw: Record<string, unknown>,
  at: string,
  vote: VoteKind,
  confidence: number,
): { ok: true; value: Notes } | { ok: false; reason: string } {
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
 * The votes of a ballot however they are listed: `{"votes": [...]}`, or keyed by option
 * (`{"votes": {"O1": {"vote": …}}}`: the key names the option, whatever the value says).
 */
function votesOf(json: Record<string, unknown>): unknown[] | undefined {
  const v = json.votes;
  if (Array.isArray(v)) return v as unknown[];
  if (!isRecord(v)) return undefined;
  return Object.entries(v).map(([option, raw]) => (isRecord(raw) ? { ...raw, option } : { option, vote: raw }));
}

/** A list that is a ballot's votes written without the object around it: objects naming an option. */
function isVoteList(v: unknown): v is Record<string, unknown>[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => isRecord(x) && x.option !== undefined);
}

/**
 * Validates a ballot against the options. An option the worker did not vote on is recorded as
 * an abstention; anything malformed (unknown option, a vote twice, confidence outside 0–1, a
 * missing rationale, bad evidence) makes the ballot invalid, with the reason.
 */
export function checkBallot(json: unknown, options: ConsensusOption[]): BallotCheck {
  if (!isRecord(json)) return { ok: false, reason: 'the reply holds no JSON object' };
  const list = votesOf(json);
  if (!list) return { ok: false, reason: 'the JSON object has no "votes" list' };
  const byOption = new Map<string, OptionVote>();
  for (const [i, raw] of list.entries()) {
    const at = `votes[${i}]`;
    if (!isRecord(raw)) return { ok: false, reason: `${at} is not an object` };
    const option = optionFor(raw.option, options);
    if (!option)
      return {
        ok: false,
        reason: `${at}.option ${JSON.stringify(raw.option)} is not one of ${options.map((o) => o.id).join(', ')}`,
      };
    if (byOption.has(option.id)) return { ok: false, reason: `${at} votes on ${option.id} a second time` };
    const vote = voteOf(raw.vote);
    if (!vote) {
      return { ok: false, reason: `${at}.vote must be accept, reject or abstain, got ${JSON.stringify(raw.vote)}` };
    }
    const confidence = confidenceOf(raw.confidence);
    if (confidence === undefined) {
      return {
        ok: false,
        reason: `${at}.confidence must be a number from 0.0 to 1.0, got ${JSON.stringify(raw.confidence)}`,
      };
    }
    const rationale = typeof raw.rationale === 'string' ? raw.rationale.trim() : '';
    if (vote !== 'abstain' && rationale.length === 0) return { ok: false, reason: `${at}.rationale is missing` };
    const evidence = checkEvidence(raw.evidence, at);
    if (!evidence.ok) return evidence;
    const notes = checkNotes(raw, at, vote, confidence);
    if (!notes.ok) return notes;
    byOption.set(option.id, {
      option: option.id,
      vote: vote,
      confidence,
      rationale: rationale.slice(0, MAX_RATIONALE),
      evidence: evidence.value,
      ...notes.value,
    });
  }
  if (byOption.size === 0) return { ok: false, reason: 'the "votes" list is empty' };
  const votes = options.map(
    (o) =>
      byOption.get(o.id) ?? {
        option: o.id,
        vote: 'abstain' as const,
        confidence: 0,
        rationale: 'no vote given',
        evidence: [],
      },
  );
  return { ok: true, votes };
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

/** The ballot of a worker whose answer stayed invalid: abstains on everything, with the reason. */
export function abstainAll(options: ConsensusOption[], reason: string): OptionVote[] {
  return options.map((o) => ({
    option: o.id,
    vote: 'abstain',
    confidence: 0,
    rationale: `invalid ballot: ${reason}`,
    evidence: [],
  }));
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
