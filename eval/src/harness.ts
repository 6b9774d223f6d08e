/**
 * Runs a question set through the three systems with bounded concurrency, checkpointing every
 * finished question to a JSONL file so an interrupted run resumes without asking again, and
 * aggregates accuracy (95% Wilson interval), billed tokens and wall time per question.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, existsSync, lstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import { workersOf } from '@roundtable/protocol';
import { answerKey, isCorrect, majorityAnswer, parseAnswer, type Question } from './questions';
import {
  SYSTEMS,
  evalCore,
  independentAnswers,
  roundtableOn,
  type PanelSetup,
  type SystemAnswer,
  type SystemName,
} from './systems';
import { wilson95 } from './wilson';
import type { LocalCore } from '../../daemon/src/daemon/localCore';

/** What a checkpoint belongs to: a resume with other settings would mix two experiments. */
export interface RunKey {
  set: string;
  seed: number | null;
  models: string[];
  rounds: number;
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

/** The replies a question's answers were read from, kept so a resumed run scores them itself. */
export interface StoredReplies {
  /** Each model's independent reply, in panel order (the single system is the first). */
  independent: string[];
  /** Each roundtable worker's contributions, round by round ('' for a round it did not answer). */
  roundtable: string[][];
}

/** One checkpoint line: a question answered by every system. */
export interface QuestionRecord {
  id: string;
  expected: string;
  results: Record<SystemName, SystemAnswer & { correct: boolean }>;
  /** The roundtable's answer after its independent round 1 alone, and whether that was right. */
  round1?: { answer?: string; correct: boolean };
  /** What the answers were read from: on resume every answer and `correct` is read again from these. */
  replies?: StoredReplies;
}

/** What the rounds after the first did to the roundtable's answers. */
export interface DebateEffect {
  /** Questions whose answer differs from the round-1 majority's. */
  changed: number;
  /** Round 1 wrong, final right. */
  fixed: number;
  /** Round 1 right, final wrong: talked out of a right answer. */
  broken: number;
}

export interface SystemSummary {
  name: SystemName;
  /** What the system is, in words ("m1 alone", "majority of m1, m2, m3", ...). */
  label: string;
  correct: number;
  accuracy: number;
  ci95: [number, number];
  /** Mean billed tokens per question (server-reported usage; estimated where a server reports none). */
  billedTokens: number;
  /** Mean wall time per question, ms. */
  wallMs: number;
  billedTokensTotal: number;
  wallMsTotal: number;
}

export interface EvalResults {
  set: string;
  n: number;
  seed: number | null;
  models: string[];
  rounds: number;
  systems: SystemSummary[];
  /** The roundtable against its own round 1 (questions answered before this was recorded are left out). */
  debate: DebateEffect;
}

export function checkpointPathFor(outFile: string): string {
  return outFile.replace(/\.json$/i, '') + '.checkpoint.jsonl';
}

function sameKey(a: RunKey, b: RunKey): boolean {
  const canon = (k: RunKey) => JSON.stringify([k.set, k.seed, k.models, k.rounds, k.setHash ?? null]);
  return canon(a) === canon(b);
}

/** A checkpoint that is a symbolic link is refused: writing it would overwrite whatever it points at. */
export function refuseLink(file: string): void {
  let link: boolean;
  try {
    link = lstatSync(file).isSymbolicLink();
  } catch {
    return; // not there yet
  }
  if (link)
    throw new Error(
      `the checkpoint ${file} is a symbolic link: give --out a path of your own, not a link to another file`,
    );
}

/** Opens the checkpoint to write, refusing a symbolic link even if one appears after the check. */
function openCheckpoint(file: string, truncate: boolean): number {
  refuseLink(file);
  const flags =
    constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | (truncate ? constants.O_TRUNC : constants.O_APPEND);
  try {
    return openSync(file, flags, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') refuseLink(file);
    throw e;
  }
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
const isTexts = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * A checkpoint line scored again from its stored replies against the set's answer — a stored
 * `answer` or `correct` is never trusted (a hand-edited or stale line could claim anything).
 * Undefined when the line holds no usable replies — not one independent reply per model, not one
 * roundtable column per model, or more rounds than the run allows: the question is asked again.
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
  const independent = replies.independent.map((t) => parseAnswer(t));
  const latest = (texts: string[]) =>
    texts.reduce<string | undefined>((a, t) => (t ? (parseAnswer(t) ?? a) : a), undefined);
  const answers = {
    single: independent[0],
    majority: majorityAnswer(independent),
    roundtable: majorityAnswer(replies.roundtable.map(latest)),
  };
  const round1 = majorityAnswer(replies.roundtable.map((texts) => latest(texts.slice(0, 1))));
  const stored = (r.results ?? {}) as Partial<Record<SystemName, Partial<SystemAnswer>>>;
  const result = (name: SystemName) => {
    const answer = answers[name];
    return {
      ...(answer !== undefined ? { answer } : {}),
      billedTokens: num(stored[name]?.billedTokens),
      wallMs: num(stored[name]?.wallMs),
      correct: isCorrect(answer, q.answer),
    };
  };
  return {
    id: q.id,
    expected: q.answer,
    results: { single: result('single'), majority: result('majority'), roundtable: result('roundtable') },
    round1: { ...(round1 !== undefined ? { answer: round1 } : {}), correct: isCorrect(round1, q.answer) },
    replies: { independent: replies.independent, roundtable: replies.roundtable },
  };
}

/**
 * Records of a checkpoint written for the same run (same set — questions and answers —, seed,
 * models, rounds), each scored again from its replies; an error line when it belongs to another run.
 */
export function readCheckpoint(file: string, key: RunKey, questions: Question[] = []): Map<string, QuestionRecord> {
  const done = new Map<string, QuestionRecord>();
  refuseLink(file);
  if (!existsSync(file)) return done;
  const byId = new Map(questions.map((q) => [q.id, q]));
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  lines.forEach((line, i) => {
    let v: { key?: RunKey } & Partial<QuestionRecord>;
    try {
      v = JSON.parse(line) as typeof v;
    } catch {
      // A line cut short by a crash is the question that was being written: it is asked again.
      if (i === lines.length - 1) return;
      throw new Error(`${file}:${i + 1} is not JSON: delete the checkpoint or run without --resume`);
    }
    if (i === 0) {
      if (!v || typeof v !== 'object' || !v.key || !sameKey(v.key, key))
        throw new Error(
          `the checkpoint ${file} belongs to another run (set, its answers, seed, models or rounds differ): run without --resume to start over`,
        );
      return;
    }
    const q = typeof v?.id === 'string' ? byId.get(v.id) : undefined;
    const r = q ? rescore(v, q, key.models.length, key.rounds) : undefined;
    if (r) done.set(r.id, r);
  });
  return done;
}

export interface HarnessOptions {
  setup: PanelSetup;
  key: RunKey;
  questions: Question[];
  concurrency: number;
  checkpoint: string;
  resume: boolean;
  /** Called after each question (resumed ones included) with the records so far. */
  onProgress?: (done: number, total: number, records: QuestionRecord[]) => void;
}

async function answerAll(setup: PanelSetup, core: LocalCore, q: Question): Promise<QuestionRecord> {
  const { single, majority, replies: independent } = await independentAnswers(setup, q);
  const { state, round1Answer, ...roundtable } = await roundtableOn(setup, core, q);
  const score = (a: SystemAnswer) => ({ ...a, correct: isCorrect(a.answer, q.answer) });
  return {
    round1: {
      ...(round1Answer !== undefined ? { answer: round1Answer } : {}),
      correct: isCorrect(round1Answer, q.answer),
    },
    id: q.id,
    expected: q.answer,
    results: { single: score(single), majority: score(majority), roundtable: score(roundtable) },
    replies: {
      independent,
      roundtable: workersOf(state).map((w) => state.rounds.map((r) => r.contributions[w.name]?.text ?? '')),
    },
  };
}

export async function runEval(o: HarnessOptions): Promise<{ results: EvalResults; records: QuestionRecord[] }> {
  const key: RunKey = { ...o.key, setHash: o.key.setHash ?? setHashOf(o.questions) };
  const done = o.resume ? readCheckpoint(o.checkpoint, key, o.questions) : new Map<string, QuestionRecord>();
  const fresh = !o.resume || !existsSync(o.checkpoint);
  const fd = openCheckpoint(o.checkpoint, fresh);
  if (fresh) writeSync(fd, `${JSON.stringify({ key })}\n`);
  const byId = new Map<string, QuestionRecord>();
  for (const q of o.questions) {
    const r = done.get(q.id);
    if (r) byId.set(q.id, r);
  }
  const pending = o.questions.filter((q) => !byId.has(q.id));
  const report = () => o.onProgress?.(byId.size, o.questions.length, [...byId.values()]);
  report();
  let next = 0;
  const core = await evalCore(o.setup);
  const worker = async () => {
    for (let q = pending[next++]; q; q = pending[next++]) {
      const r = await answerAll(o.setup, core, q);
      // One line per finished question, appended at once: a crash loses at most the questions in flight.
      writeSync(fd, `${JSON.stringify(r)}\n`);
      byId.set(q.id, r);
      report();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, pending.length)) }, worker));
  } finally {
    closeSync(fd);
    await core.close();
  }
  const records = o.questions.map((q) => byId.get(q.id)).filter((r): r is QuestionRecord => r !== undefined);
  return { results: summarize(key, records), records };
}

export function systemLabel(name: SystemName, key: RunKey): string {
  if (name === 'single') return `${key.models[0] ?? '?'} alone`;
  if (name === 'majority') return `majority vote of ${key.models.join(', ')}`;
  return `roundtable of ${key.models.join(', ')} (${key.rounds} round${key.rounds === 1 ? '' : 's'} at most)`;
}

export function summarize(key: RunKey, records: QuestionRecord[]): EvalResults {
  const n = records.length;
  const systems = SYSTEMS.map((name): SystemSummary => {
    const rs = records.map((r) => r.results[name]);
    const correct = rs.filter((r) => r.correct).length;
    const tokens = rs.reduce((t, r) => t + r.billedTokens, 0);
    const ms = rs.reduce((t, r) => t + r.wallMs, 0);
    return {
      name,
      label: systemLabel(name, key),
      correct,
      accuracy: n ? correct / n : 0,
      ci95: wilson95(correct, n),
      billedTokens: n ? Math.round(tokens / n) : 0,
      wallMs: n ? Math.round(ms / n) : 0,
      billedTokensTotal: tokens,
      wallMsTotal: ms,
    };
  });
  const debate: DebateEffect = { changed: 0, fixed: 0, broken: 0 };
  for (const r of records) {
    if (!r.round1) continue;
    const before = r.round1.answer;
    const after = r.results.roundtable.answer;
    const same =
      before !== undefined && after !== undefined ? answerKey(before) === answerKey(after) : before === after;
    if (!same) debate.changed++;
    if (!r.round1.correct && r.results.roundtable.correct) debate.fixed++;
    if (r.round1.correct && !r.results.roundtable.correct) debate.broken++;
  }
  return { set: key.set, n, seed: key.seed, models: key.models, rounds: key.rounds, systems, debate };
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

/** The side-by-side Markdown table. */
export function renderTable(r: EvalResults): string {
  const rows = r.systems.map(
    (s) =>
      `| ${s.name} | ${s.label.replace(/\|/g, '\\|')} | ${s.correct}/${r.n} | ${pct(s.accuracy)} | ${pct(s.ci95[0])}–${pct(s.ci95[1])} | ${s.billedTokens.toLocaleString('en-US')} | ${s.wallMs.toLocaleString('en-US')} |`,
  );
  return [
    `Eval of ${r.set}${r.seed !== null ? ` (seed ${r.seed})` : ''}: ${r.n} question${r.n === 1 ? '' : 's'}`,
    '',
    '| System | What | Correct | Accuracy | 95% CI (Wilson) | Billed tokens / question | Wall ms / question |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Debate: the roundtable's answer differs from its own round-1 majority on ${r.debate.changed} of ${r.n} questions (fixed ${r.debate.fixed}, broke ${r.debate.broken}).`,
  ].join('\n');
}
