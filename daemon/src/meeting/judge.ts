import { fencedLines, ownLines } from '@roundtable/protocol/stance';

export interface JudgeVerdict {
  /** The judge's text, trimmed; empty when the round was clean or the reply failed. */
  text: string;
  /** Reason given with `CONVERGED: <reason>`, if the judge declared convergence. */
  converged?: string;
  corrections: { worker: string; text: string }[];
  /**
   * Set when the reply is no verdict at all (today: it was empty or blank), saying why. The round
   * then had no review — which is not the same as a clean one; `text`, `converged` and
   * `corrections` are empty.
   */
  failed?: string;
}

const CLEAN_RE = /^\s*\[?\s*(CLEAN|NO ISSUES|NOTHING TO CORRECT)\s*\]?\s*[.!]?\s*$/i;
/** `[CLEAN] — all points are sourced.`: the marker leading a line, a remark after it. */
const CLEAN_LEAD_RE = /^\s*\[\s*CLEAN\s*\]\s*(?:[.!]|[—–:-]|\s-\s|$)/i;
/** "No corrections needed this round.", "No issues found.", "Nothing to correct this round." */
const NO_CORRECTIONS_RE =
  /^(?:no (?:corrections?|issues|problems|errors)(?: (?:are )?(?:needed|required|necessary|found|to (?:make|report)))?|nothing to correct)(?: (?:this|in this|for this) round)?\s*[.!]?$/i;
/** A list mark in front of a line: `-`, `*`, `+`, `•`, `1.`, `1)`; or a heading mark. */
const BULLET = String.raw`(?:[-*+•]|\d+[.)]|#{1,6})?[^\S\n]*`;
/** What separates a name or the keyword from its text: a colon, an em or en dash, a spaced hyphen. */
const SEP = String.raw`[^\S\n]*(?::|—|–|\s-\s)\s*`;
/** One name as a correction addresses it: `@ada`, `**ada**`. */
const NAME = String.raw`[*_]*@?[A-Za-z][A-Za-z0-9_-]*[*_]*`;
/** A correction: up to eight names (`@ada, @grace:`, `ada and grace —`), then its text. */
const CORRECTION_RE = new RegExp(
  String.raw`^[^\S\n]*${BULLET}(${NAME}(?:[^\S\n]*(?:,|&|\/|\band\b)[^\S\n]*${NAME}){0,7})${SEP}(.+)$`,
);
/** Where a second `@name:` correction starts on the same line. */
const NEXT_AT_RE = /(?<=[.;!?])\s+(?=@[A-Za-z][A-Za-z0-9_-]*[*_]*[^\S\n]*(?::|—|–|\s-\s))/;
const CONVERGED_SRC = String.raw`^[^\S\n]*${BULLET}\[?CONVERGED\]?${SEP}(.+)$`;
/** `## CONVERGED` or `**CONVERGED**` on a line of its own: the reason is on the next line. */
const CONVERGED_HEADING_RE = /^[^\S\n]*(?:#{1,6}[^\S\n]*)?\[?CONVERGED\]?[^\S\n]*[.!:]?[^\S\n]*$/;
/** A reason that takes the keyword back (`not yet`, `no — …`), or the template's placeholder: no convergence. */
const NOT_A_REASON_RE = /^(?:<[^>]*>|\.\.\.|…|not\b.*|(?:no|none|false|n\/a)\s*(?:[.,;:!—–-].*)?)$/i;

/** A text that is one quotation and nothing else: `"He wanted to take …"`. */
const QUOTATION_RE = /^["“][^"“”]*["”][.!]?$/;

/** One line of the judge's own text with its decoration dropped: emphasis and Markdown escapes. */
function plain(line: string): string {
  return line.replace(/\\([[\]*_])/g, '$1').replace(/\*\*|__/g, '');
}

/** The judge's own `CONVERGED` on a line; never in a code span (a `CONVERGED: <reason>` in backticks quotes the rule). */
function convergedOn(line: string, caseless: boolean): RegExpExecArray | null {
  return new RegExp(CONVERGED_SRC, caseless ? 'i' : '').exec(line.replace(/`[^`]*`/g, ' '));
}

/** The names a correction line addresses, as the seats are called; undefined when one is no seat. */
function addressed(names: string, byName: Map<string, string>): string[] | undefined {
  const seats = names
    .split(/[^\S\n]*(?:,|&|\/|\band\b)[^\S\n]*/)
    .map((n) => byName.get(n.replace(/[*_@]/g, '').toLowerCase()));
  return seats.every((w): w is string => w !== undefined) ? seats : undefined;
}

/** The first line after `i` that says something (outside a code block), or undefined. */
function nextSaid(lines: string[], fenced: boolean[], i: number): string | undefined {
  for (let k = i + 1; k < lines.length; k++) if ((lines[k] as string).trim()) return fenced[k] ? undefined : lines[k];
  return undefined;
}

/** A line's corrections, one per `@name:` when several share the line (`@ada: x. @grace: y`). */
function segments(line: string): string[] {
  if (!CORRECTION_RE.test(line)) return [line];
  return line.split(NEXT_AT_RE);
}

/**
 * Reads the judge's own reply. `CONVERGED: <reason>` (also bold, as a heading, or with a dash) at
 * the start of a line of its own ends the meeting — never a line quoted (`>`, `|`), in backticks
 * or mid-sentence ("If the workers agree, write CONVERGED: …"); `## CONVERGED` alone takes its
 * reason from the next line. Lines `@worker: problem — what is needed` (also in list form, bold,
 * or with a dash: `1. @ada — …`, `- **ada**: …`, for several seats `@ada, @grace: …`, or two
 * `@name:` on one line) are corrections to named workers — but a bare `name: "…"` that only
 * quotes that side is none. `[CLEAN]` (with a remark after it) or "No corrections needed this
 * round." is a clean round; an empty reply is a failure (`failed`), not a clean round.
 */
export function parseJudge(reply: string, workers: string[]): JudgeVerdict {
  const text = reply.trim();
  if (!text) return { text: '', corrections: [], failed: 'the judge returned an empty reply' };
  if (CLEAN_RE.test(plain(text)) || NO_CORRECTIONS_RE.test(plain(text))) return { text: '', corrections: [] };
  const verdict: JudgeVerdict = { text, corrections: [] };
  const byName = new Map(workers.map((w) => [w.toLowerCase(), w]));
  const lines = ownLines(text).map(plain);
  // A code block shows a format or a quotation: nothing in it is the judge's word.
  const fenced = fencedLines(lines);
  lines.forEach((full, i) => {
    if (fenced[i]) return;
    for (const line of segments(full)) {
      const m = CORRECTION_RE.exec(line);
      const seats = m?.[1] ? addressed(m[1], byName) : undefined;
      // `@name:` is always a correction and `CONVERGED:` in capitals always the judge's own word;
      // between them a bare `name:` goes to the worker so called. A seat named "Converged" (refused
      // today, possible in an older log) can never turn the judge's note to it into the meeting's end.
      const keyword = convergedOn(line, false) ?? (seats ? null : convergedOn(line, true));
      const at = m?.[1]?.includes('@') === true;
      // A bare `name: "…"` that is only a quotation (the judge listing what each side said) asks
      // nothing of that worker: no correction.
      if (seats && m?.[2] && (at || (!keyword && !QUOTATION_RE.test(m[2].trim())))) {
        for (const worker of seats) verdict.corrections.push({ worker, text: m[2].trim() });
      } else if (verdict.converged === undefined) {
        const reason = keyword?.[1] ?? (CONVERGED_HEADING_RE.test(line) ? nextSaid(lines, fenced, i) : undefined);
        if (reason && !NOT_A_REASON_RE.test(reason.trim())) verdict.converged = reason.trim();
      }
    }
  });
  if (verdict.corrections.length === 0 && verdict.converged === undefined && CLEAN_LEAD_RE.test(lines[0] ?? ''))
    return { text: '', corrections: [] };
  return verdict;
}
