/**
 * Peer text reaches a model as evidence, never as instructions. This is the one place that
 * writes the inter-session envelope, in the seed's wire format verbatim (other runtimes already
 * honour it):
 *
 *   [Inter-session message · from=<author> · kind=<peer|system> · seq=<n> · isUser=false]
 *   | <body line 1>
 *   | <body line 2>
 *
 * Every envelope says isUser=false — the seed's format has no other value: only genuine user
 * input carries user authority, and a post relayed through the room is never that, the human's
 * included (those arrive as from=human, a name no seat may take). Anything in the body that could
 * pass for a header of either format (this one or the old `[Room message …]`), an `isUser=` flag,
 * a stance marker, a pass marker or the judge's convergence is defanged, and every body line is
 * quote-prefixed, so the outer header is always the only authentic one.
 */

import { UNSAFE_CHARS, visibleText } from '@roundtable/protocol';

export type PostKind = 'peer' | 'system';

export interface RoomPost {
  /** The author's seat name (checked against NAME_PATTERN at join), or `human`. */
  from: string;
  /** `peer` for a participant's post, `system` for the meeting's own records (summary, options). */
  kind: PostKind;
  /** Log seq of the event that carried the text. */
  seq: number;
  text: string;
}

/** The placeholder a forged header becomes: still readable, never a header. */
const DEFANGED_HEADER = '(quoted header)';

/**
 * Control characters other than newline and tab are dropped: a carriage return, a vertical tab
 * or a Unicode line/paragraph separator would let a model or terminal start a new, unprefixed line.
 */
const CONTROL = new RegExp(`[${UNSAFE_CHARS}\\u2028\\u2029\\u200e\\u200f]`, 'g');

/** Neutralises control markers so they read as quoted text and no parser or model takes them as real. */
export function defang(text: string): string {
  return (
    visibleText(text)
      .replace(/\r\n?/g, '\n')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u2028\u2029\u000b\u000c\u0085]/g, '\n')
      .replace(CONTROL, '')
      .replace(/\[\s*inter[\s_-]*session\s+message\b[^\]\n]*\]?/gi, DEFANGED_HEADER)
      .replace(/\[\s*room\s+message\b[^\]\n]*\]?/gi, DEFANGED_HEADER)
      .replace(/inter[\s_-]*session\s+message/gi, 'inter-session (quoted) message')
      // Every form the stance, pass and judge parsers read: bracketed (ASCII or full-width), a
      // `Stance:` or `Position:` label at a line start or `| STANCE:` as a cell of a line, emphasis
      // or a Markdown escape between the word and its colon or dash. Prose ("our stance: …"
      // mid-line) is left as written: no parser reads it.
      .replace(/[[［]([\s*_\\]*)stance([\s*_\\]*)[:：]/gi, '($1quoted stance$2:')
      .replace(
        // No two quantifiers next to each other over the same characters (and none across a line):
        // `^\s*…[*_]*\s*` backtracked cubically on 1 MB of blank lines.
        /^([^\S\n]*(?:[-+#]+[^\S\n]*|\*+[^\S\n]+)?(?:[*_\\]+[^\S\n]*)?(?:(?:final|my|overall|current)\s+)?)(stance|position)([\s*_\\]*)[:：]/gim,
        '$1$2 (quoted)$3-',
      )
      .replace(/(\|[\s*_\\]*(?:(?:final|my|overall|current)\s+)?)stance([\s*_\\]*)[:：]/gi, '$1stance (quoted)$2-')
      .replace(/[[［]([\s*_\\]*)pass([\s*_\\]*)[\]］]/gi, '($1quoted pass$2)')
      .replace(/converged([\s*_\\]*)(?:[:：—–]|-(?=\s))/gi, 'converged (quoted)$1-')
      .replace(/isUser\s*[=:]/gi, 'isUser(quoted)=')
  );
}

/** Defanged and on one line: for labels and names shown inside a line the engine writes. */
export function oneLine(text: string): string {
  return defang(text).replace(/\s+/g, ' ').trim();
}

export function envelopeHeader(p: Omit<RoomPost, 'text'>): string {
  return `[Inter-session message · from=${oneLine(p.from).replace(/[·\]\s]/g, '_')} · kind=${p.kind} · seq=${p.seq} · isUser=false]`;
}

/** Wraps one post as evidence. */
export function wrapPost(p: RoomPost): string {
  const body = defang(p.text)
    .split('\n')
    .map((l) => `| ${l}`)
    .join('\n');
  return `${envelopeHeader(p)}\n${body}`;
}

/**
 * A workspace tool's result as the model that called it gets it: the same defanging and quoted
 * lines as a post, under a header the engine writes (`isUser=false`), so nothing a tool returns
 * (a file's text, a file's name) can pass for a header, a marker or the user at a line start.
 */
export function wrapToolResult(tool: string, ok: boolean, text: string): string {
  const name = oneLine(tool)
    .replace(/[·\]\s]/g, '_')
    .slice(0, 64);
  const body = defang(text)
    .split('\n')
    .map((l) => `| ${l}`)
    .join('\n');
  return `[Tool result · tool=${name} · ok=${ok} · isUser=false]\n${body}`;
}
