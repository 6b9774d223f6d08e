/**
 * Question sets for `roundtable eval`: a seeded generator of Du et al.'s arithmetic expressions
 * (`a+b*c+d-e*f`, integers 0–29, exact answers; nothing to download) and JSONL files of
 * `{id, question, answer}`. Answers are read from the `ANSWER: …` marker and checked exactly or
 * numerically.
 */
import { readFileSync } from 'node:fs';
import { rng } from '@roundtable/protocol/random';
import { ownLines, stripStanceMarkers } from '@roundtable/protocol/stance';

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

/** A question longer than this is refused: it would be sent once per model and per turn. */
export const MAX_QUESTION_CHARS = 8 * 1024;
/** An id longer than this is refused: it is a label, repeated in every checkpoint line. */
export const MAX_ID_CHARS = 200;
/** An expected answer longer than this is refused. */
export const MAX_ANSWER_CHARS = 1024;
/** A line longer than this is refused before it is parsed. */
const MAX_LINE_CHARS = 64 * 1024;

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
    if (line.length > MAX_LINE_CHARS)
      throw new Error(
        `${where} is ${line.length.toLocaleString('en-US')} characters long: a question may hold at most ${MAX_QUESTION_CHARS.toLocaleString('en-US')}`,
      );
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
    const over = (what: string, n: number, max: number) =>
      new Error(
        `${where}: the ${what} is ${n.toLocaleString('en-US')} characters; the most is ${max.toLocaleString('en-US')}`,
      );
    if (id.length > MAX_ID_CHARS) throw over('"id"', id.length, MAX_ID_CHARS);
    if (r.question.length > MAX_QUESTION_CHARS) throw over('"question"', r.question.length, MAX_QUESTION_CHARS);
    if (String(r.answer).length > MAX_ANSWER_CHARS) throw over('"answer"', String(r.answer).length, MAX_ANSWER_CHARS);
    if (ids.has(id)) throw new Error(`${where} repeats the id "${id}": every id must be unique`);
    ids.add(id);
    if (!r.question.trim()) throw new Error(`${where} has an empty "question"`);
    out.push({ id, question: r.question, answer: String(r.answer) });
  });
  if (out.length === 0) throw new Error(`${file} holds no questions: give one {"id", "question", "answer"} per line`);
  return out;
}

/** An answer label at the start of a line: `ANSWER:`, `Final Answer:`, `The final answer is:` (after emphasis and heading marks). */
const LABEL_RE = /^(?:[-*+]\s+)?(?:the\s+|my\s+)?(?:final\s+)?answer(?:\s+is)?\s*(?:[:：]\s*(.*))?$/i;

/** The content of the last `\boxed{…}` in a text, braces balanced, or undefined. */
function lastBoxed(text: string): string | undefined {
  const at = text.lastIndexOf('\\boxed{');
  if (at === -1) return undefined;
  let depth = 0;
  for (let i = at + '\\boxed'.length; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(at + '\\boxed{'.length, i);
  }
  return undefined;
}

/** A value as written, with LaTeX and Markdown around it dropped: `$$\boxed{\frac{1}{2}}$$` → `1/2`, `−5` → `-5`. */
function cleanAnswer(raw: string): string | undefined {
  const v = stripStanceMarkers(lastBoxed(raw) ?? raw)
    .replace(/\\text(?:bf|rm)?\{([^{}]*)\}/g, '$1')
    .replace(/\\d?frac\{([^{}]*)\}\{([^{}]*)\}/g, '$1/$2')
    .replace(/\\[,;!: ]|\\left|\\right/g, '')
    .replace(/\\%/g, '%')
    .replace(/\$\$|\\[()[\]]/g, '')
    .replace(/^\s*\$([^$]*)\$\s*$/, '$1')
    .replace(/[*`]|^_+|_+$/g, '')
    .replace(/\u2212/g, '-')
    .trim()
    .replace(/\.$/, '')
    .trim();
  return v || undefined;
}

/**
 * "The answer is 42" said at the start of a sentence ("So the answer is 4.", "Thus the unique
 * whole-number answer is 235.", "So, the correct answer is (A).", "my answer is (C)", "the answer
 * would be (D)", "I think the answer is B", "After weighing it, my answer is (C)": one short clause
 * before it): only affirming adjectives between "the" and "answer".
 */
const SAID_RE =
  /^(?:[-*+]\s+)?(?:(?:so|thus|therefore|hence)\s*,?\s+|[\w' ]{1,40},\s+)?(?:I\s+(?:think|believe)\s+)?(?:the\s+|my\s+)?(?:(?:final|correct|unique|only|exact|whole-number|numerical|numeric|integer)\s+){0,2}answer\s+(?:is|would\s+be|should\s+be|will\s+be|must\s+be)\s+(.+)$/i;
/**
 * A multiple-choice pick said without "answer": "Therefore, the correct statement is (B).", "the
 * closest option is (F) 9.8 m/s", "The most likely explanation for these findings is (D)." Read
 * only when what follows is an option letter.
 */
const PICKED_RE =
  /^(?:(?:so|thus|therefore|hence)\s*,?\s+)?the\s+(?:correct|right|best|closest|most\s+likely)\s+(?:[\w-]+\s+){0,4}?is\s+(.+)$/i;
/** "I'd go with C", "I would choose (B)", "I'll pick option D": the tail names the option. */
const GO_WITH_RE =
  /^I(?:'d|’d|\s+would|'ll|’ll|\s+will)\s+(?:go|choose|pick|select)\s+(?:with\s+)?(?:option\s+|choice\s+)?(.+)$/i;
/** "(C) is correct.", "Option C is the right one", "C is correct": a letter said to be right. */
const CORRECT_RE =
  /^(?:(?:option|choice)\s+\(?([A-J])\)?|\(([A-J])\)|([A-J]))\s+is\s+(?:the\s+)?(?:correct|right|best)\b(.*)$/i;

/** The letter a sentence says is right (CORRECT_RE): a bare letter only when nothing follows but "answer"/"option". */
function correctLetter(sentence: string): string | undefined {
  const m = CORRECT_RE.exec(sentence.replace(/[*_`]/g, ''));
  if (!m) return undefined;
  const bare = m[3];
  if (bare !== undefined && !/^\s*(?:answer|option|choice|one)?\s*[.!]?$/i.test(m[4] ?? '')) return undefined;
  return (m[1] ?? m[2] ?? bare)?.toUpperCase();
}

/**
 * An option letter A–J as an answer gives it: `(B)`, `(B) 20 rolls`, `(I).`, or a lone capital
 * `C`, `C.`, `C. 22.3%, 1.85`. A capital followed by a word ("I think") is not one.
 */
const OPTION_RE = /^\(([A-J])\)(?!\w)|^([A-J])(?:[.):]?$|[.):]\s)/;

/** The option letter a value starts with (see OPTION_RE), emphasis dropped, or undefined. */
function optionLetter(value: string | undefined): string | undefined {
  const m = OPTION_RE.exec((value ?? '').replace(/[*_`]/g, '').trim());
  return m ? (m[1] ?? m[2]) : undefined;
}

/**
 * The sentences of a line (a new one starts after `.`, `!` or `?` and a space), each followed by
 * the clauses after its ", but": "The answer is not listed, but the closest option is (F)" says F.
 * The sentence itself stays whole, so "The answer is 4, but only if…" is still no answer.
 */
function sentences(line: string): string[] {
  return line.split(/(?<=[.!?])\s+/).flatMap((s) => [s, ...s.split(/,\s+but\s+/i).slice(1)]);
}

/**
 * What a sentence says the answer is: an option letter ("The answer is (B) 20 rolls." → B, "the
 * closest is (E)" → E), or a number or a box ("So the answer is 4."); else undefined.
 */
function saidAnswer(sentence: string): string | undefined {
  const tail = SAID_RE.exec(sentence)?.[1];
  const letter =
    optionLetter(tail ?? PICKED_RE.exec(sentence)?.[1] ?? GO_WITH_RE.exec(sentence)?.[1]) ??
    (tail === undefined ? correctLetter(sentence) : undefined);
  if (letter !== undefined || tail === undefined) return letter;
  const value = cleanAnswer(tail);
  return value !== undefined && (asNumber(value) !== undefined || lastBoxed(tail) !== undefined) ? value : undefined;
}

/**
 * A base model that goes on to the next few-shot item after answering ("The answer is (J).", then
 * "Question" or "Q: …"): what follows is not its answer to this question.
 */
const NEXT_QUESTION_RE = /^(?:question|q)(?:\s*\d+)?\s*(?:[:：.]|$)/i;
/** GSM8K's answer line: `#### 42`. */
const GSM8K_RE = /^\s*####\s+(\S.*)$/;

/**
 * The value a labelled line gives: beside the label, or, for a label alone, the last `\boxed{…}`
 * of its section (up to the next label) or else the next line (`### Final Answer:` then `$$\boxed{42}$$`).
 */
function valueAfter(lines: string[], i: number, inline: string | undefined): string | undefined {
  if (inline?.trim()) return labelledValue(inline.trim());
  // Up to the next label only: each line is looked at for one label, never once per label before it.
  let end = i + 1;
  while (end < lines.length && !LABEL_RE.test(lines[end] as string)) end++;
  const section = lines.slice(i + 1, end);
  const boxed = lastBoxed(section.join('\n'));
  if (boxed !== undefined) return cleanAnswer(boxed);
  const next = section.find((l) => l !== '');
  return next !== undefined ? labelledValue(next) : undefined;
}

/**
 * A label's value: a sentence saying the answer gives its value (`Final Answer: The answer is (F).`
 * → F), a parenthesised option letter is the letter (`ANSWER: (B) 20 rolls` → B); else the value
 * as written.
 */
function labelledValue(raw: string): string | undefined {
  const said = saidAnswer(raw.replace(/[*_]/g, '').trim());
  if (said !== undefined) return said;
  const value = cleanAnswer(raw);
  return /^\([A-J]\)/.test(value ?? '') ? optionLetter(value) : value;
}

/**
 * The answer a reply gives: the value of the LAST answer label at the start of one of the
 * speaker's own lines — `ANSWER: 42`, `**Final Answer:** 42`, `ANSWER: \boxed{42}`, a label
 * alone with the value below it (`### Final Answer:` then `$$\boxed{42}$$`), `<answer>42</answer>`
 * (DeepSeek-R1) or `#### 42` (GSM8K). A line quoted from a peer (`|`, `>`) never answers. With no
 * label, the last `\boxed{…}`; else the last sentence (at a line start or after another
 * sentence) saying "The answer is 42" (a number or a box) or picking an option ("The answer is
 * (B).", "the closest option is (F)" → B, F); else a reply that is nothing but a number ("140",
 * "42 km") is that number. A base model's next few-shot question after an answer ends the reply.
 * Undefined when there is none.
 */
export function parseAnswer(reply: string): string | undefined {
  const own = ownLines(reply)
    .join('\n')
    .replace(/<answer>([\s\S]*?)<\/answer>/gi, (_, v: string) => `\nANSWER: ${v.replace(/\s+/g, ' ').trim()}\n`);
  const raw = own.split('\n');
  const lines = raw.map((l) =>
    l
      .replace(/\*\*|__/g, '')
      .replace(/^\s*#{1,6}\s*/, '')
      .trim(),
  );
  // An answer, then the next few-shot question: only what came before it is this reply's.
  const next = nextQuestion(lines, raw);
  return answerIn(next === -1 ? lines : lines.slice(0, next), raw);
}

/**
 * Where a base model's next few-shot question starts: the first question line with an answer
 * before it. Only the first few question lines after some text are tried, so a reply
 * of thousands of "Question" lines is read once, not once per line.
 */
function nextQuestion(lines: string[], raw: string[]): number {
  let tries = 3;
  let answerLike = false;
  for (let i = 0; i < lines.length && tries > 0; i++) {
    const line = lines[i] as string;
    if (answerLike && NEXT_QUESTION_RE.test(line)) {
      tries--;
      if (answerIn(lines.slice(0, i), raw) !== undefined) return i;
    }
    answerLike ||= line.trim() !== '';
  }
  return -1;
}

/** parseAnswer on a reply's cleaned lines (`raw`: the same lines as written, for `####`). */
function answerIn(lines: string[], raw: string[]): string | undefined {
  let last: string | undefined;
  let labelled = false;
  let said: string | undefined;
  lines.forEach((line, i) => {
    const m = LABEL_RE.exec(line);
    const gsm8k = GSM8K_RE.exec(raw[i] ?? '')?.[1];
    if (m || gsm8k !== undefined) {
      labelled = true;
      last = m ? valueAfter(lines, i, m[1]) : cleanAnswer(gsm8k ?? '');
      return;
    }
    for (const sentence of sentences(line)) said = saidAnswer(sentence) ?? said;
  });
  if (labelled) return last;
  // Weaker than a label: a box, then a sentence saying the answer, then a reply that is only a number.
  const boxed = lastBoxed(lines.join('\n'));
  if (boxed !== undefined) return cleanAnswer(boxed);
  if (said !== undefined) return said;
  const whole = cleanAnswer(lines.join(' ').trim());
  return whole !== undefined && asNumber(whole) !== undefined ? whole : undefined;
}

const NUM = String.raw`[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?`;
/** Words that scale a number rather than name its unit: "5 million" is not 5. */
const SCALE = String.raw`(?:hundred|thousand|million|billion|trillion|dozen|k|bn|mn)\b`;
/** A number, or a fraction `a/b`, then at most a short unit: `%`, `°C`, `km`, `km/h`, `m^2`, `apples`, `US dollars`. */
const NUMBER_RE = new RegExp(
  String.raw`^(${NUM})(?:\s*/\s*(${NUM}))?\s*(?:%|°[CF]?|(?!${SCALE})[A-Za-zµ°²³/^]+(?:\s+[A-Za-z²³/^]+)?)?$`,
  'i',
);

/**
 * A number as written ("1,234", "-5", "−5", "3.50", "$12", "1/2"), a trailing unit ignored
 * ("42 km", "42%", "5 apples"), or undefined.
 */
function asNumber(s: string): number | undefined {
  const t = s
    .replace(/\u2212/g, '-')
    .replace(/,/g, '')
    .trim()
    .replace(/^([-+]?)\s*[$€£]\s*/, '$1');
  const m = NUMBER_RE.exec(t);
  if (!m?.[1]) return undefined;
  const n = m[2] !== undefined ? Number(m[1]) / Number(m[2]) : Number(m[1]);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Numeric checking when the expected answer is a number (equal within 1e-9 relative); an option
 * letter (`C`, `(C)`) against the letter the answer gives, parentheses and the option's text
 * ignored (`(c)`, `C. 22.3%, 1.85`); otherwise exact match after trimming and case-folding.
 */
export function isCorrect(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const option = /^\(?([a-j])\)?$/i.exec(expected.trim())?.[1];
  if (option !== undefined) return optionLetter(given.toUpperCase()) === option.toUpperCase();
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
