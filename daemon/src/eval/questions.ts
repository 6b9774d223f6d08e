/**
 * Question sets for `roundtable eval`: a seeded generator of Du et al.'s arithmetic expressions
 * (`a+b*c+d-e*f`, integers 0–29, exact answers; nothing to download) and JSONL files of
 * `{id, question, answer}`. Answers are read from the `ANSWER: …` marker and checked exactly or
 * numerically.
 */
import { readFileSync } from 'node:fs';
import { rng } from '../meeting/order';

export interface Question {
  id: string;
  question: string;
  /** The expected answer as written in the set. */
  answer: string;
}

/** `n` expressions `a+b*c+d-e*f` with integers 0–29 (Du et al. 2023), ids `arith-<seed>-<k>`. */
export function arithmeticSet(n: number, seed: number): Question[] {
  // The meetings' seeded PRNG (mulberry32): a seed gives the same set on every machine.
  const rnd = rng(seed);
  const int = () => Math.floor(rnd() * 30);
  const out: Question[] = [];
  for (let k = 0; k < n; k++) {
    const [a, b, c, d, e, f] = [int(), int(), int(), int(), int(), int()];
    out.push({
      id: `arith-${seed}-${k + 1}`,
      question: `${a}+${b}*${c}+${d}-${e}*${f}`,
      answer: String(a + b * c + d - e * f),
    });
  }
  return out;
}

/** Loads a JSONL question set; a bad line is one error naming the file and the line. */
export function loadJsonlSet(file: string): Question[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(
      `cannot read the question set ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'}): give --set arithmetic or a JSONL file`,
      { cause: e },
    );
  }
  const out: Question[] = [];
  const ids = new Set<string>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    const where = `${file}:${i + 1}`;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      throw new Error(`${where} is not JSON: each line must be {"id", "question", "answer"}`, { cause: e });
    }
    const r = v as Record<string, unknown>;
    const okScalar = (x: unknown) => typeof x === 'string' || typeof x === 'number';
    if (
      typeof v !== 'object' ||
      v === null ||
      Array.isArray(v) ||
      !okScalar(r.id) ||
      typeof r.question !== 'string' ||
      !okScalar(r.answer)
    )
      throw new Error(`${where} needs "id" (string or number), "question" (string) and "answer" (string or number)`);
    const id = String(r.id);
    if (ids.has(id)) throw new Error(`${where} repeats the id "${id}": every id must be unique`);
    ids.add(id);
    if (!r.question.trim()) throw new Error(`${where} has an empty "question"`);
    out.push({ id, question: r.question, answer: String(r.answer) });
  });
  if (out.length === 0) throw new Error(`${file} holds no questions: give one {"id", "question", "answer"} per line`);
  return out;
}

/**
 * The answer a reply gives: the text after the LAST `ANSWER:` marker on its line (case-insensitive,
 * Markdown emphasis and a trailing period dropped), or undefined when there is none.
 */
export function parseAnswer(reply: string): string | undefined {
  const re = /ANSWER\s*:\s*([^\n]*)/gi;
  let last: string | undefined;
  for (let m = re.exec(reply); m; m = re.exec(reply)) last = m[1];
  if (last === undefined) return undefined;
  const v = last
    .replace(/[*_`]/g, '')
    .replace(/\[STANCE:[^\]]*\]/gi, '')
    .trim()
    .replace(/\.$/, '')
    .trim();
  return v || undefined;
}

/** A number as written ("1,234", "-5", "3.50", "$12") or undefined. */
function asNumber(s: string): number | undefined {
  const t = s.replace(/[,$\s]/g, '');
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t)) return undefined;
  return Number(t);
}

/**
 * Numeric checking when the expected answer is a number (equal within 1e-9 relative), otherwise
 * exact match after trimming and case-folding.
 */
export function isCorrect(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const e = asNumber(expected);
  if (e !== undefined) {
    const g = asNumber(given);
    return g !== undefined && Math.abs(g - e) <= 1e-9 * Math.max(1, Math.abs(e));
  }
  return given.trim().toLowerCase() === expected.trim().toLowerCase();
}

/** Answers that mean the same (numbers compare as numbers) share one key, for votes. */
export function answerKey(a: string): string {
  const n = asNumber(a);
  return n !== undefined ? `#${n}` : a.trim().toLowerCase();
}

/**
 * Plain majority: the answer given by more than half of the voters (a missing answer counts as a
 * voter without one). No strict majority = undefined, scored wrong.
 */
export function majorityAnswer(answers: (string | undefined)[]): string | undefined {
  const counts = new Map<string, { n: number; first: string }>();
  for (const a of answers) {
    if (a === undefined) continue;
    const k = answerKey(a);
    const c = counts.get(k);
    if (c) c.n++;
    else counts.set(k, { n: 1, first: a });
  }
  for (const c of counts.values()) if (c.n * 2 > answers.length) return c.first;
  return undefined;
}
