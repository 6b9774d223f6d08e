/**
 * Runs a question set through the three systems with bounded concurrency, checkpointing every
 * finished question to a JSONL file so an interrupted run resumes without asking again, and
 * aggregates accuracy (95% Wilson interval), billed tokens and wall time per question.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { answerKey, isCorrect, type Question } from './questions';
import {
  SYSTEMS,
  independentAnswers,
  roundtableOn,
  type PanelSetup,
  type SystemAnswer,
  type SystemName,
} from './systems';
import { wilson95 } from './wilson';

/** What a checkpoint belongs to: a resume with other settings would mix two experiments. */
export interface RunKey {
  set: string;
  seed: number | null;
  models: string[];
  rounds: number;
}

/** One checkpoint line: a question answered by every system. */
export interface QuestionRecord {
  id: string;
  expected: string;
  results: Record<SystemName, SystemAnswer & { correct: boolean }>;
  /** The roundtable's answer after its independent round 1 alone, and whether that was right. */
  round1?: { answer?: string; correct: boolean };
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

const sameKey = (a: RunKey, b: RunKey) => JSON.stringify(a) === JSON.stringify(b);

/** Records of a checkpoint written for the same run; an error line when it belongs to another run. */
export function readCheckpoint(file: string, key: RunKey): Map<string, QuestionRecord> {
  const done = new Map<string, QuestionRecord>();
  if (!existsSync(file)) return done;
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
      if (!v.key || !sameKey(v.key, key))
        throw new Error(
          `the checkpoint ${file} belongs to another run (set, seed, models or rounds differ): run without --resume to start over`,
        );
      return;
    }
    if (v.id !== undefined && v.results) done.set(v.id, v as QuestionRecord);
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

async function answerAll(setup: PanelSetup, q: Question): Promise<QuestionRecord> {
  const { single, majority } = await independentAnswers(setup, q);
  const { state: _state, round1Answer, ...roundtable } = await roundtableOn(setup, q);
  const score = (a: SystemAnswer) => ({ ...a, correct: isCorrect(a.answer, q.answer) });
  return {
    round1: {
      ...(round1Answer !== undefined ? { answer: round1Answer } : {}),
      correct: isCorrect(round1Answer, q.answer),
    },
    id: q.id,
    expected: q.answer,
    results: { single: score(single), majority: score(majority), roundtable: score(roundtable) },
  };
}

export async function runEval(o: HarnessOptions): Promise<{ results: EvalResults; records: QuestionRecord[] }> {
  const done = o.resume ? readCheckpoint(o.checkpoint, o.key) : new Map<string, QuestionRecord>();
  if (!o.resume || !existsSync(o.checkpoint)) writeFileSync(o.checkpoint, `${JSON.stringify({ key: o.key })}\n`);
  const byId = new Map<string, QuestionRecord>();
  for (const q of o.questions) {
    const r = done.get(q.id);
    if (r) byId.set(q.id, r);
  }
  const pending = o.questions.filter((q) => !byId.has(q.id));
  const report = () => o.onProgress?.(byId.size, o.questions.length, [...byId.values()]);
  report();
  let next = 0;
  const worker = async () => {
    for (let q = pending[next++]; q; q = pending[next++]) {
      const r = await answerAll(o.setup, q);
      // One line per finished question, appended at once: a crash loses at most the questions in flight.
      appendFileSync(o.checkpoint, `${JSON.stringify(r)}\n`);
      byId.set(q.id, r);
      report();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, pending.length)) }, worker));
  const records = o.questions.map((q) => byId.get(q.id)).filter((r): r is QuestionRecord => r !== undefined);
  return { results: summarize(o.key, records), records };
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
