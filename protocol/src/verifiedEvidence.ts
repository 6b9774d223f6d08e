/**
 * Consensus evidence a tool call backs up (issue 16): a ballot that cites a file and a line range
 * which `read_file` actually returned to that worker, before the ballot, is "verified". Derived from
 * the log at render time (the `tool_called` events folded into `toolCalls`), so old logs fold and
 * render the same and nothing a model writes can mark itself verified: the range read is taken from
 * the first line the tool itself wrote ("<path> lines <from>-<to> of <n>"), never from the model's
 * arguments or its ballot.
 */
import type { Evidence } from './consensus';
import type { MeetingState } from './state';

export interface LineRead {
  file: string;
  from: number;
  to: number;
}

/** The tool's own header line of a successful read_file result. */
const READ_HEADER = /^(.+) lines (\d+)-(\d+) of \d+$/;

/** The line ranges `read_file` returned to `worker` before log seq `before`. */
export function linesRead(s: MeetingState, worker: string, before: number): LineRead[] {
  const out: LineRead[] = [];
  for (const c of s.toolCalls ?? []) {
    if (c.participant !== worker || c.tool !== 'read_file' || !c.ok || c.seq >= before) continue;
    const m = READ_HEADER.exec(c.summary);
    if (m) out.push({ file: m[1] as string, from: Number(m[2]), to: Number(m[3]) });
  }
  return out;
}

const normal = (file: string): string => file.trim().replace(/\\/g, '/').replace(/^\.\//, '');

/**
 * The line range a citation's section names ("lines 3-7", "L3-L7", "line 4", "3–7"); undefined
 * when it names no lines (a function or a heading cannot be checked against a read).
 */
export function citedRange(e: Pick<Evidence, 'file' | 'section'>): LineRead | undefined {
  const file = normal(e.file);
  const section = e.section ?? '';
  const span = /\b(?:lines?\s*|L)?(\d+)\s*(?:[-–—]|to)\s*L?(\d+)\b/i.exec(section);
  if (span) return range(file, span[1], span[2]);
  const one = /\b(?:lines?\s*|L)(\d+)\b/i.exec(section);
  return one ? range(file, one[1], undefined) : undefined;
}

function range(file: string, a: string | undefined, b: string | undefined): LineRead | undefined {
  const from = Number(a);
  const to = b === undefined ? from : Number(b);
  return from >= 1 && to >= from ? { file, from, to } : undefined;
}

/** True when a read in `reads` returned every line `e` cites, from the file it cites. */
export function isVerified(e: Evidence, reads: readonly LineRead[]): boolean {
  if (e.status !== 'exists') return false;
  const cited = citedRange(e);
  if (!cited) return false;
  return reads.some((r) => normal(r.file) === cited.file && r.from <= cited.from && cited.to <= r.to);
}
