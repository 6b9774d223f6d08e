/**
 * A change's git diff, read in ONE git process for the whole change and split per file in memory,
 * in time linear in its size (one git process per file made a 3,000-file change take minutes).
 *
 * The change under review must not decide how it is shown: no external diff driver, no textconv,
 * and `--text`, so a `.gitattributes` of the change that marks a file `-diff` (git would print
 * "Binary files differ") cannot hide it. A truly binary file (a NUL in its diff) is left out with
 * its reason. The repository's config cannot reshape the output either (prefixes, relative paths,
 * submodule logs, blank context lines are set here).
 *
 * Paths are data: git's `--raw -z` list names each file exactly (NUL-separated, never quoted);
 * each patch is matched to it by the path its `diff --git` line names (decoded from git's
 * C-style quoting, compared byte for byte), and the path lines of each patch are written again
 * with the name as reviewers are shown it (`shownPath`: a newline or a zero-width space escaped).
 */
import { shownPath } from '@roundtable/protocol';
import { gitStream } from './git';

/** One changed file: its diff as text, or why it could not be read. */
export type FileDiff = { path: string; text: string } | { path: string; reason: string };

/** A diff of a whole change may take a while on a big repository; past this it is given up. */
const DIFF_TIMEOUT_MS = 300_000;

/** What the repository's config may not change about the output. */
const SHAPE = [
  '-c',
  'core.quotePath=false',
  '-c',
  'diff.noprefix=false',
  '-c',
  'diff.mnemonicPrefix=false',
  '-c',
  'diff.suppressBlankEmpty=false',
  '-c',
  'diff.relative=false',
];
const FLAGS = [
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--no-renames',
  '--text',
  '--submodule=short',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '--raw',
  '--patch',
  '-z',
];

interface Entry {
  bytes: Buffer;
  status: string;
}

interface Section {
  lines: Buffer[];
  size: number;
  binary: boolean;
  tooLarge: boolean;
}

const C_ESCAPES: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92, '"': 34 };

/**
 * A C-style quoted name as git writes it (`"a/new\nline.ts"`, octal for other bytes) starting at
 * `at` (the opening quote): its bytes and the index after the closing quote, or undefined.
 */
function unquote(line: Buffer, at: number): { bytes: Buffer; end: number } | undefined {
  const out: number[] = [];
  for (let i = at + 1; i < line.length; i++) {
    const c = line[i] as number;
    if (c === 0x22) return { bytes: Buffer.from(out), end: i + 1 };
    if (c !== 0x5c) {
      out.push(c);
      continue;
    }
    const next = String.fromCharCode(line[i + 1] ?? 0);
    if (next in C_ESCAPES) {
      out.push(C_ESCAPES[next] as number);
      i += 1;
    } else if (/^[0-3][0-7][0-7]$/.test(line.toString('latin1', i + 1, i + 4))) {
      out.push(parseInt(line.toString('latin1', i + 1, i + 4), 8));
      i += 3;
    } else return undefined;
  }
  return undefined;
}

const DIFF_GIT = Buffer.from('diff --git ');

/**
 * The path a `diff --git a/P b/P` line names (with --no-renames both sides are the same path), as
 * bytes, or undefined when the line cannot be read that way.
 */
function headerPath(line: Buffer): Buffer | undefined {
  const rest = line.subarray(DIFF_GIT.length);
  if (rest[0] === 0x22) {
    const a = unquote(rest, 0);
    if (!a || rest[a.end] !== 0x20 || rest[a.end + 1] !== 0x22) return undefined;
    const b = unquote(rest, a.end + 1);
    if (!b || b.end !== rest.length) return undefined;
    const p = a.bytes.subarray(2);
    return a.bytes.subarray(0, 2).toString() === 'a/' && b.bytes.equals(Buffer.concat([Buffer.from('b/'), p]))
      ? p
      : undefined;
  }
  // Unquoted: `a/` P ` b/` P, so P is half of what is left.
  const n = (rest.length - 5) / 2;
  if (!Number.isInteger(n) || n < 1) return undefined;
  const p = rest.subarray(2, 2 + n);
  const ok =
    rest.subarray(0, 2).toString() === 'a/' &&
    rest.subarray(2 + n, 5 + n).toString() === ' b/' &&
    rest.subarray(5 + n).equals(p);
  return ok ? p : undefined;
}

const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

/** Reads `git diff --raw --patch -z` as it streams: the raw list first (NUL-separated), then the patch (lines). */
class DiffSplitter {
  private mode: 'meta' | 'path' | 'patch' = 'meta';
  private meta = '';
  private pending: Buffer[] = [];
  private pendingSize = 0;
  private readonly entries = new Map<string, Entry>();
  private readonly sections = new Map<string, Section>();
  private current: Section | undefined;
  private display = '';
  private oldLeft = 0;
  private newLeft = 0;

  constructor(private readonly maxBytes: number) {}

  feed(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const at = chunk.indexOf(this.mode === 'patch' ? 0x0a : 0x00, start);
      if (at < 0) {
        this.hold(chunk.subarray(start));
        return;
      }
      this.hold(chunk.subarray(start, at));
      start = at + 1;
      const piece = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending);
      const overlong = this.pendingSize > this.maxBytes;
      this.pending = [];
      this.pendingSize = 0;
      if (this.mode === 'patch') this.line(piece, overlong);
      else this.token(piece);
    }
  }

  /**
   * Keeps part of a line or name until its end arrives. A line longer than the cap keeps only its
   * start (what says which kind of line it is): its file's diff is too large to be read anyway.
   */
  private hold(part: Buffer): void {
    if (part.length === 0) return;
    if (this.pendingSize > this.maxBytes) {
      this.pendingSize += part.length;
      return;
    }
    this.pending.push(part);
    this.pendingSize += part.length;
    if (this.pendingSize > this.maxBytes) this.pending = [Buffer.concat(this.pending).subarray(0, 64)];
  }

  /** One NUL-separated token of the raw list: `:mode mode sha sha STATUS`, then the path; an empty one ends the list. */
  private token(t: Buffer): void {
    if (this.mode === 'path') {
      const key = t.toString('latin1');
      if (!this.entries.has(key)) this.entries.set(key, { bytes: Buffer.from(t), status: this.meta });
      this.mode = 'meta';
      return;
    }
    if (t.length === 0) {
      this.mode = 'patch';
      return;
    }
    this.meta = t.toString('latin1').split(' ').pop() ?? '';
    this.mode = 'path';
  }

  private line(l: Buffer, overlong: boolean): void {
    if (this.oldLeft > 0 || this.newLeft > 0) {
      const c = l[0];
      // A blank line is an empty context line (as diff.suppressBlankEmpty would write it).
      if (c === 0x20 || l.length === 0) {
        this.oldLeft--;
        this.newLeft--;
      } else if (c === 0x2d) this.oldLeft--;
      else if (c === 0x2b) this.newLeft--;
      else if (c !== 0x5c) this.oldLeft = this.newLeft = 0;
      if (c === 0x20 || c === 0x2d || c === 0x2b || c === 0x5c || l.length === 0) {
        this.keep(l, overlong);
        return;
      }
    }
    if (l.subarray(0, DIFF_GIT.length).equals(DIFF_GIT)) return this.open(l);
    if (!this.current) return; // `* Unmerged path …`: the file has no section, and is unread.
    const start = l.toString('latin1', 0, 200);
    const hunk = HUNK.exec(start);
    if (hunk) {
      this.oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      this.newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      return this.keep(l, overlong);
    }
    // The path lines of the header, written again with the name as shown.
    if (start.startsWith('--- ') && start !== '--- /dev/null')
      return this.keep(Buffer.from(`--- a/${this.display}`), false);
    if (start.startsWith('+++ ') && start !== '+++ /dev/null')
      return this.keep(Buffer.from(`+++ b/${this.display}`), false);
    this.keep(l, overlong);
  }

  private open(l: Buffer): void {
    this.oldLeft = this.newLeft = 0;
    const p = headerPath(l);
    const key = p?.toString('latin1');
    if (p === undefined || key === undefined || this.sections.has(key)) {
      this.current = undefined;
      return;
    }
    const name = p.toString('utf8');
    this.display = shownPath(name) ?? name;
    this.current = { lines: [], size: 0, binary: false, tooLarge: false };
    this.sections.set(key, this.current);
    this.keep(Buffer.from(`diff --git a/${this.display} b/${this.display}`), false);
  }

  private keep(l: Buffer, overlong: boolean): void {
    const s = this.current;
    if (!s) return;
    if (l.includes(0)) s.binary = true;
    s.size += l.length + 1;
    if (overlong || s.size > this.maxBytes) {
      s.tooLarge = true;
      s.lines = [];
    }
    if (!s.tooLarge) s.lines.push(l);
  }

  /** Every changed file in git's order, with its diff or why it was not read. */
  finish(): FileDiff[] {
    if (this.mode === 'patch' && this.pendingSize > 0) this.feed(Buffer.from('\n'));
    const out: FileDiff[] = [];
    for (const [key, e] of this.entries) {
      const path = e.bytes.toString('utf8');
      const s = this.sections.get(key);
      if (!Buffer.from(path, 'utf8').equals(e.bytes))
        out.push({ path, reason: 'has a name that is not valid UTF-8, so it cannot be shown' });
      else if (!s)
        out.push({
          path,
          reason: e.status.startsWith('U') ? 'is unmerged (a merge conflict)' : 'has a diff git did not show',
        });
      else if (s.tooLarge) out.push({ path, reason: `has a diff larger than ${this.maxBytes} bytes` });
      else if (s.binary) out.push({ path, reason: 'is a binary file' });
      else out.push({ path, text: Buffer.concat(s.lines.flatMap((l) => [l, NEWLINE])).toString('utf8') });
    }
    return out;
  }
}

const NEWLINE = Buffer.from('\n');

/**
 * The diff of `what` (`--staged`, a ref, or nothing for the unstaged changes) per changed file,
 * in git's order; `extra`: `-c` settings that switch off the repository's filters. An error when
 * git could not diff at all.
 */
export async function readDiff(
  root: string,
  what: string[],
  opts: { extra: string[]; maxBytes: number },
): Promise<{ error: string } | { files: FileDiff[] }> {
  const splitter = new DiffSplitter(opts.maxBytes);
  // Read as a stream event: a throw here would be uncaught and take the daemon down, so it is kept.
  let broken: unknown;
  const r = await gitStream(root, ['diff', ...FLAGS, ...what, '--', '.'], {
    extra: [...SHAPE, ...opts.extra],
    timeoutMs: DIFF_TIMEOUT_MS,
    onData: (chunk) => {
      if (broken !== undefined) return;
      try {
        splitter.feed(chunk);
      } catch (e) {
        broken = e;
      }
    },
  });
  if (r.timedOut) return { error: `did not finish in ${DIFF_TIMEOUT_MS / 1000} s` };
  if (r.code !== 0) return { error: 'failed: is this a git repository and does the ref exist?' };
  if (broken !== undefined) return { error: "could not be read: git's output was not a diff" };
  return { files: splitter.finish() };
}
