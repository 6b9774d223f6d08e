/**
 * Consensus ballots: pulled out of whatever a model wrote (bare JSON, a fenced block, JSON with
 * prose around it), validated strictly, and turned into an explained error when invalid so the
 * worker can be asked once more.
 */
import type { ConsensusOption, Evidence, OptionVote, VoteKind } from '../../../protocol/src';
import { isRecord } from '../../../protocol/src';

/** Every balanced `{...}` object in a text, outermost first, with strings and escapes respected. */
function objectsIn(text: string): string[] {
  const out: string[] = [];
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    let escaped = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === '\\') escaped = true;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}') {
        depth--;
        if (depth === 0) {
          out.push(text.slice(start, i + 1));
          start = i;
          break;
        }
      }
    }
  }
  return out;
}

/** The first JSON object found in a reply: a ```json fence first, then any balanced object. */
export function extractJson(text: string): unknown {
  const candidates: string[] = [];
  for (const m of text.matchAll(/```(?:json|JSON)?\s*\n?([\s\S]*?)```/g)) if (m[1]) candidates.push(m[1].trim());
  candidates.push(text.trim(), ...objectsIn(text));
  for (const c of candidates) {
    try {
      const v: unknown = JSON.parse(c);
      if (isRecord(v)) return v;
    } catch {
      // try the next candidate
    }
  }
  return undefined;
}

export type BallotCheck = { ok: true; votes: OptionVote[] } | { ok: false; reason: string };

const MAX_RATIONALE = 4_000;
const MAX_EVIDENCE = 20;

function optionFor(ref: unknown, options: ConsensusOption[]): ConsensusOption | undefined {
  if (typeof ref !== 'string') return undefined;
  const r = ref.trim().toLowerCase();
  return options.find((o) => o.id.toLowerCase() === r || o.label.trim().toLowerCase() === r);
}

/** Below this confidence a vote must say why the worker is unsure (seed CONS-013). */
export const UNCERTAINTY_BELOW = 0.5;
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
 * Validates a ballot against the options. An option the worker did not vote on is recorded as
 * an abstention; anything malformed (unknown option, a vote twice, confidence outside 0–1, a
 * missing rationale, bad evidence) makes the ballot invalid, with the reason.
 */
export function checkBallot(json: unknown, options: ConsensusOption[]): BallotCheck {
  if (!isRecord(json)) return { ok: false, reason: 'the reply holds no JSON object' };
  if (!Array.isArray(json.votes)) return { ok: false, reason: 'the JSON object has no "votes" list' };
  const byOption = new Map<string, OptionVote>();
  for (const [i, raw] of json.votes.entries()) {
    const at = `votes[${i}]`;
    if (!isRecord(raw)) return { ok: false, reason: `${at} is not an object` };
    const option = optionFor(raw.option, options);
    if (!option)
      return {
        ok: false,
        reason: `${at}.option ${JSON.stringify(raw.option)} is not one of ${options.map((o) => o.id).join(', ')}`,
      };
    if (byOption.has(option.id)) return { ok: false, reason: `${at} votes on ${option.id} a second time` };
    const vote = typeof raw.vote === 'string' ? raw.vote.trim().toLowerCase() : raw.vote;
    if (vote !== 'accept' && vote !== 'reject' && vote !== 'abstain') {
      return { ok: false, reason: `${at}.vote must be accept, reject or abstain, got ${JSON.stringify(raw.vote)}` };
    }
    const confidence = raw.confidence;
    if (typeof confidence !== 'number' || !Number.isFinite(confidence) || confidence < 0 || confidence > 1) {
      return {
        ok: false,
        reason: `${at}.confidence must be a number from 0.0 to 1.0, got ${JSON.stringify(confidence)}`,
      };
    }
    const rationale = typeof raw.rationale === 'string' ? raw.rationale.trim() : '';
    if (vote !== 'abstain' && rationale.length === 0) return { ok: false, reason: `${at}.rationale is missing` };
    const evidenceRaw = raw.evidence ?? [];
    if (!Array.isArray(evidenceRaw) || evidenceRaw.length > MAX_EVIDENCE) {
      return { ok: false, reason: `${at}.evidence must be a list of at most ${MAX_EVIDENCE} {file, section, type}` };
    }
    const evidence: Evidence[] = [];
    for (const [j, ev] of evidenceRaw.entries()) {
      if (!isRecord(ev) || typeof ev.file !== 'string' || ev.file.trim() === '' || ev.file.length > 500) {
        return { ok: false, reason: `${at}.evidence[${j}] needs a "file"` };
      }
      const item: Evidence = { file: ev.file.trim(), status: 'unchecked' };
      if (typeof ev.section === 'string' && ev.section.trim()) item.section = ev.section.trim().slice(0, 200);
      if (typeof ev.type === 'string' && ev.type.trim()) item.type = ev.type.trim().slice(0, 40);
      evidence.push(item);
    }
    const notes = checkNotes(raw, at, vote, confidence);
    if (!notes.ok) return notes;
    byOption.set(option.id, {
      option: option.id,
      vote: vote,
      confidence,
      rationale: rationale.slice(0, MAX_RATIONALE),
      evidence,
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

export function parseBallot(reply: string, options: ConsensusOption[]): BallotCheck {
  const json = extractJson(reply);
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

/** Options from a proposal reply: a JSON {"options": [...]} or, failing that, bullet lines. */
export function parseProposals(reply: string): string[] {
  const json = extractJson(reply);
  if (isRecord(json) && Array.isArray(json.options)) {
    return json.options
      .filter((o): o is string => typeof o === 'string' && o.trim().length > 0)
      .map((o) => o.trim().slice(0, 300));
  }
  return reply
    .split('\n')
    .map((l) => /^\s*(?:[-*•]|\d+[.)])\s+(.+)$/.exec(l)?.[1]?.trim())
    .filter((o): o is string => Boolean(o))
    .map((o) => o.slice(0, 300));
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
