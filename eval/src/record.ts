/**
 * One question's record: the replies every system gave and what they are scored as. Every answer
 * and every `correct` is read from the replies by one function (`scoreReplies`), for a question
 * just asked and for one resumed from a checkpoint alike, so a stored verdict is never believed.
 */
import { createHash } from 'node:crypto';
import { pickedSeat } from './bestOf';
import { isCorrect, majorityAnswer, parseAnswer, type Question } from './questions';
import { SYSTEMS, type Cost, type SystemAnswer, type SystemName } from './systems';

/** What a checkpoint belongs to: a resume with other settings would mix two experiments. */
export interface RunKey {
  set: string;
  seed: number | null;
  models: string[];
  rounds: number;
  /** The model that picks the best round-1 answer (absent: the first of `models`). */
  judge?: string;
  /**
   * sha256 of the whole set — every id, question AND answer — before `--limit`: a set whose answers
   * changed is another experiment. Computed from the questions asked when not given.
   */
  setHash?: string;
}

/** The hash a run key carries for a set: ids, questions and answers, in order. */
export function setHashOf(questions: Question[]): string {
  const h = createHash('sha256');
  for (const q of questions) h.update(JSON.stringify([q.id, q.question, q.answer])).update('\n');
  return h.digest('hex');
}

/** Two keys of the same experiment (a key written before the judge was named used the first model). */
export function sameKey(a: RunKey, b: RunKey): boolean {
  const canon = (k: RunKey) =>
    JSON.stringify([k.set, k.seed, k.models, k.rounds, k.judge ?? k.models[0] ?? null, k.setHash ?? null]);
  return canon(a) === canon(b);
}

/** The replies a question's answers were read from, kept so a resumed run scores them itself. */
export interface StoredReplies {
  /** Each model's independent reply, in panel order (the single system is the first). */
  independent: string[];
  /** Each roundtable worker's contributions, round by round ('' for a round it did not answer). */
  roundtable: string[][];
  /** The judge's reply picking the best independent reply (absent in a checkpoint older than the arm). */
  best?: string;
}

/** Per seat, in panel order, whether its answer was right. */
export interface SeatAnswers {
  /** Its independent answer (the round the majority vote and the best-of arm use). */
  independent: boolean[];
  /** Its answer in round 1 of the roundtable. */
  round1: boolean[];
  /** Its latest answer by the end of the roundtable. */
  final: boolean[];
}

/** One checkpoint line: a question answered by every system. */
export interface QuestionRecord {
  id: string;
  expected: string;
  results: Record<SystemName, SystemAnswer & { correct: boolean }>;
  /** The roundtable's answer after its independent round 1 alone, and whether that was right. */
  round1?: { answer?: string; correct: boolean };
  /** The seat (0-based, panel order) whose reply the judge picked; absent when it named none. */
  picked?: number;
  seats?: SeatAnswers;
  /** What the answers were read from: on resume every answer and `correct` is read again from these. */
  replies?: StoredReplies;
}

/** A worker's latest answer over its contributions (a later round without one keeps the last). */
const latest = (texts: string[]) =>
  texts.reduce<string | undefined>((a, t) => (t ? (parseAnswer(t) ?? a) : a), undefined);

/**
 * A question's record from its replies: single = the first independent answer, majority = more
 * than half of them, best = the independent answer the judge picked, roundtable = the majority of
 * each worker's latest answer; round 1 = that majority over round 1 alone. Costs as measured.
 */
export function scoreReplies(q: Question, replies: StoredReplies, costs: Record<SystemName, Cost>): QuestionRecord {
  const independent = replies.independent.map((t) => parseAnswer(t));
  const round1Seats = replies.roundtable.map((texts) => latest(texts.slice(0, 1)));
  const finalSeats = replies.roundtable.map(latest);
  const picked = replies.best !== undefined ? pickedSeat(q, replies.best, independent.length) : undefined;
  const answers: Record<SystemName, string | undefined> = {
    single: independent[0],
    majority: majorityAnswer(independent),
    best: picked !== undefined ? independent[picked] : undefined,
    roundtable: majorityAnswer(finalSeats),
  };
  const right = (a: string | undefined) => isCorrect(a, q.answer);
  const results = Object.fromEntries(
    SYSTEMS.map((name) => {
      const answer = answers[name];
      const { billedTokens, wallMs } = costs[name];
      return [name, { ...(answer !== undefined ? { answer } : {}), billedTokens, wallMs, correct: right(answer) }];
    }),
  ) as QuestionRecord['results'];
  const round1 = majorityAnswer(round1Seats);
  return {
    id: q.id,
    expected: q.answer,
    results,
    round1: { ...(round1 !== undefined ? { answer: round1 } : {}), correct: right(round1) },
    ...(picked !== undefined ? { picked } : {}),
    seats: { independent: independent.map(right), round1: round1Seats.map(right), final: finalSeats.map(right) },
    replies,
  };
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
const isTexts = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * A checkpoint line scored again from its stored replies against the set's answer — a stored
 * `answer` or `correct` is never trusted (a hand-edited or stale line could claim anything).
 * Undefined when the line holds no usable replies — not one independent reply per model, not one
 * roundtable column per model, more rounds than the run allows, or no judge's reply (a line
 * written before the best-of arm): the question is asked again.
 */
export function rescore(v: unknown, q: Question, models: number, rounds = Infinity): QuestionRecord | undefined {
  const r = v as Partial<QuestionRecord> | null;
  const replies = r?.replies;
  if (!r || r.id !== q.id || !replies || !isTexts(replies.independent) || replies.independent.length !== models)
    return undefined;
  const columns = replies.roundtable;
  // A forged extra worker could outvote the real ones; a missing one would leave the question unscored.
  if (!Array.isArray(columns) || columns.length !== models) return undefined;
  if (!columns.every((c) => isTexts(c) && c.length <= rounds)) return undefined;
  if (typeof replies.best !== 'string') return undefined;
  const stored = (r.results ?? {}) as Partial<Record<SystemName, Partial<SystemAnswer>>>;
  const cost = (name: SystemName): Cost => ({
    billedTokens: num(stored[name]?.billedTokens),
    wallMs: num(stored[name]?.wallMs),
  });
  return scoreReplies(
    q,
    { independent: replies.independent, roundtable: columns, best: replies.best },
    { single: cost('single'), majority: cost('majority'), best: cost('best'), roundtable: cost('roundtable') },
  );
}
