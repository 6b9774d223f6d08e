/**
 * A reasoned exception to a decision, said out loud in the change: `Decision-Exception: 0001
 * <reason>` as a trailer of one of its commits (git's trailer block: the last paragraph of the
 * message), or as a line of the pull request's body. One reading for the daemon (trailers), the
 * CLI (`--exception`) and the GitHub Action (the body). A PROVEN finding on the decision it names
 * is then WAIVED (reviewOutcome.ts), never hidden: every output lists it with its reason and where
 * it came from.
 */

/** The trailer's key (git compares trailer keys without case). */
export const EXCEPTION_KEY = 'Decision-Exception';
/** Most exceptions one review takes from each place (the commits, the pull request, the command line). */
export const MAX_EXCEPTIONS = 20;
/** Longest exception (id and reason), in characters. */
export const MAX_EXCEPTION_CHARS = 500;

export type ParsedException = { decision: string; reason: string } | { decision?: string; invalid: string };

/**
 * `0001 the reason`, `0001: the reason`, `ADR-0001 — the reason`: the first word names the
 * decision, the rest (after a `:`, `-` or dash) is the reason, which is required.
 */
export function parseException(value: string): ParsedException {
  const line = value.trim();
  if (line.length > MAX_EXCEPTION_CHARS)
    return { invalid: `is longer than ${MAX_EXCEPTION_CHARS} characters: say the reason in fewer words` };
  // The separator is written with or without blanks around it: `0001:`, `0001 -`, `0001 —`.
  const m = /^([^\s:,]+)\s*[:,]?\s*(?:[-–—]\s+)?([\s\S]*)$/.exec(line);
  const decision = m?.[1] ?? '';
  const reason = (m?.[2] ?? '').trim();
  if (!decision) return { invalid: `names no decision: write "${EXCEPTION_KEY}: 0001 <reason>"` };
  if (!reason) return { decision, invalid: `gives no reason: write "${EXCEPTION_KEY}: ${decision} <reason>"` };
  return { decision, reason };
}

/** Indexes of the text outside HTML comments (`<!-- … -->`, as pull-request templates hold instructions). */
function withoutComments(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const open = text.indexOf('<!--', at);
    if (open < 0) return out + text.slice(at);
    out += text.slice(at, open);
    const close = text.indexOf('-->', open + 4);
    if (close < 0) return out;
    // Keep the line count: a comment's line breaks stay.
    out += text.slice(open, close + 3).replace(/[^\n]/g, '');
    at = close + 3;
  }
}

/**
 * The values of the `Decision-Exception:` lines of a pull request's body, in order: lines in HTML
 * comments and in fenced code blocks (a template's example) are not exceptions.
 */
export function exceptionLines(body: string): string[] {
  const out: string[] = [];
  let fence = '';
  for (const line of withoutComments(body).split('\n')) {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (f) {
      if (!fence) fence = f;
      else if (f[0] === fence[0] && f.length >= fence.length) fence = '';
      continue;
    }
    if (fence) continue;
    const m = /^\s{0,3}(?:[*+-]\s+)?decision-exception\s*:(.*)$/i.exec(line.replace(/\r$/, ''));
    if (m) out.push((m[1] ?? '').trim());
  }
  return out;
}
