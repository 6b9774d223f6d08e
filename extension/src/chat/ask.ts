/**
 * What a chat request asks for: `@roundtable <question>` is a roundtable, and
 * `@roundtable /vote A | B | C — <question>` a consensus vote on those options (no options: the
 * workers propose them). Pure, so the syntax is tested without VS Code. Limits (empty topic, one
 * option, paths) are checked afterwards by the one convene validation.
 */

/** A meeting the chat asked for, before validation. */
export interface ChatAsk {
  topic: string;
  mode: 'roundtable' | 'consensus';
  options?: string[];
}

/** Shown when a vote cannot be read, so the person sees the syntax once. */
export const VOTE_SYNTAX = '/vote Postgres | MySQL | SQLite — which database for billing?';

/**
 * The separator between a vote's options and its question: an em or en dash, or ` -- ` (typed
 * where no dash is at hand). The first one wins, so the question may hold dashes of its own.
 */
const QUESTION_MARK = /\s*(?:[—–]|\s--\s)\s*/;

/**
 * The prompt with the chat's `#file` reference spans removed (they are attached as context, not
 * part of the question). `ranges` are [start, end) offsets into the prompt.
 */
export function withoutReferences(prompt: string, ranges: readonly (readonly [number, number])[]): string {
  let out = prompt;
  for (const [start, end] of [...ranges].sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + out.slice(end);
  return out.replace(/\s+/g, ' ').trim();
}

/** Reads a vote: options split on `|` before the dash, the question after it. */
function vote(text: string): ChatAsk | string {
  const m = QUESTION_MARK.exec(text);
  const head = m ? text.slice(0, m.index) : text;
  const question = m ? text.slice(m.index + m[0].length).trim() : '';
  if (!head.includes('|')) {
    // No options: the whole text is the question, and the workers propose the options.
    if (!m) return { topic: text.trim(), mode: 'consensus' };
    return `A vote needs at least two options separated by "|", for example: ${VOTE_SYNTAX}`;
  }
  const options = head.split('|').map((o) => o.trim());
  if (options.some((o) => !o)) return `An option of the vote is empty; write them as: ${VOTE_SYNTAX}`;
  if (!question) return `Add the question after the options and a dash, for example: ${VOTE_SYNTAX}`;
  return { topic: question, mode: 'consensus', options };
}

/** The meeting a request asks for, or the one line that says what is wrong with it. */
export function parseAsk(command: string | undefined, prompt: string): ChatAsk | string {
  const text = prompt.trim();
  if (command === 'vote') return text ? vote(text) : `Ask the vote's question, for example: ${VOTE_SYNTAX}`;
  if (!text) return 'Ask @roundtable a question, for example: @roundtable should we split the billing service?';
  return { topic: text, mode: 'roundtable' };
}
