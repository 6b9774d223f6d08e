/**
 * The one minutes writer, for the CLI, the MCP server and the VS Code extension: it renders the
 * minutes from the state the client already holds (protocol/src/minutes.ts), names the file
 * `YYYY-MM-DD-<slug>.md` (never over another file: `-2`, `-3`, …), writes it atomically, and keeps
 * the consensus meeting's line of MANIFEST.jsonl. Writes in one process go one after another, so two
 * meetings settling at once never race for a name or for the MANIFEST.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { MeetingState } from '@roundtable/protocol';
import { manifestLine } from '@roundtable/protocol/manifest';
import { withoutMeeting } from '@roundtable/protocol/markdown';
import { minutesFileBase, renderMinutes, type MinutesOptions } from '@roundtable/protocol/minutes';
import { replaceFile, writeTemp } from './atomicFile';
import { ensureDir } from './outputDir';

/** The index of consensus reports beside the minutes (one line per meeting). */
export const MANIFEST_FILE = 'MANIFEST.jsonl';

export interface WriteMinutesOptions extends MinutesOptions {
  /**
   * Rewrite the meeting's own file in the folder when it has one (the extension keeps one file per
   * meeting, rewritten at each decision). Without it only a consensus meeting's report is rewritten;
   * a roundtable's minutes go to a new file each time they are written.
   */
  rewrite?: boolean;
}

let writing: Promise<unknown> = Promise.resolve();
function serially<T>(job: () => Promise<T>): Promise<T> {
  const run = writing.then(job, job);
  writing = run.catch(() => undefined);
  return run;
}

/**
 * Writes the minutes of a meeting into `dir` and returns the file's path. A consensus meeting (whose
 * minutes lead with the consensus report) has one file: written when it escalates (`Status:
 * blocked`), replaced atomically when the human resolves it, and indexed by one line of
 * MANIFEST.jsonl. The history stays in the log.
 */
export function writeMinutes(dir: string, s: MeetingState, opts: WriteMinutesOptions = {}): Promise<string> {
  const { rewrite, ...render } = opts;
  return serially(async () => {
    const text = renderMinutes(s, render);
    const own = s.mode === 'consensus' || rewrite ? await ownMinutesFile(dir, s) : undefined;
    let file: string;
    if (own) {
      await replaceFile(own, text);
      file = own;
    } else file = await writeNewFile(dir, minutesFileBase(s), text);
    if (s.mode === 'consensus') await writeManifestLine(dir, s, file);
    return file;
  });
}

/**
 * The file in `dir` that holds this meeting's minutes, found on disk (not remembered): the one
 * MANIFEST.jsonl names for a consensus meeting, else a file named after the meeting that names its
 * id. So a meeting decided after a reload, in another window or from the terminal finds its file.
 */
export async function ownMinutesFile(dir: string, s: MeetingState): Promise<string | undefined> {
  if (s.mode === 'consensus') {
    const known = await manifestFileFor(dir, s.meetingId);
    const file = known && !path.isAbsolute(known) && !known.includes('..') ? path.join(dir, known) : undefined;
    if (file && (await isFile(file))) return file;
  }
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return undefined;
  }
  const base = minutesFileBase(s);
  const mark = `\`${s.meetingId}\``;
  for (const name of names.sort((a, b) => a.localeCompare(b))) {
    const file = path.join(dir, name);
    if (!name.startsWith(base) || !name.endsWith('.md') || !(await isFile(file))) continue;
    if ((await fs.readFile(file, 'utf8')).includes(mark)) return file;
  }
  return undefined;
}

/**
 * Writes text to `dir/<base>.md` atomically (temp file, fsync, link) and never overwrites:
 * an existing name gets `-2`, `-3`, ... Returns the path written.
 */
export async function writeNewFile(dir: string, base: string, text: string): Promise<string> {
  await ensureDir(dir);
  const tmp = await writeTemp(dir, base, text);
  try {
    for (let n = 1; n < 10_000; n++) {
      const target = path.join(dir, `${base}${n === 1 ? '' : `-${n}`}.md`);
      try {
        // link() fails if the target exists, so two writers can never clobber each other's minutes.
        await fs.link(tmp, target);
        return target;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
    }
    throw new Error(`too many files named ${base} in ${dir}`);
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

/** The report file MANIFEST.jsonl in `dir` names for a meeting, if any (the last line wins). */
async function manifestFileFor(dir: string, meetingId: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    return undefined;
  }
  let file: string | undefined;
  for (const line of text.split('\n')) {
    try {
      const e = JSON.parse(line) as { id?: unknown; file?: unknown };
      if (e.id === meetingId && typeof e.file === 'string') file = e.file;
    } catch {
      // not ours to judge: keep other lines as they are
    }
  }
  return file;
}

/**
 * Writes the manifest line for a report written into `dir`: the meeting's earlier line (written
 * when it was blocked) is replaced, so the manifest holds one line per meeting. Lines of other
 * meetings, even ones that do not parse, are kept as they are.
 */
async function writeManifestLine(dir: string, s: MeetingState, reportPath: string): Promise<void> {
  const line = manifestLine(s, path.relative(dir, reportPath));
  const manifest = path.join(dir, MANIFEST_FILE);
  let before = '';
  try {
    before = await fs.readFile(manifest, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  await replaceFile(manifest, `${withoutMeeting(before, s.meetingId)}${line}\n`);
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await fs.lstat(p)).isFile();
  } catch {
    return false;
  }
}
