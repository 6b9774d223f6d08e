/**
 * `npm run bench -- review-scale`: what a review costs per changed file as the change grows. For
 * 1, 100, 1,000 and 3,000 changed files, a temporary repository (the accepted record "Postgres for
 * every service" scoped to `services/**`, and a branch that adds or edits that many small files,
 * four of them under `services/` with names that hold a newline, a carriage return, a zero-width
 * space or a bidi override) is measured twice, each in a process of its own and the least of three
 * runs kept: the daemon's reading of the change (`prepareReview`: one git diff, the gate on every
 * path, secret scanning, the records, the budget; bench/reviewScaleChild.ts), and the whole review
 * by the real CLI, `roundtable review --no-daemon --allow-unread`, against a loopback server whose
 * reviewers find nothing. Peak resident memory is read by a preloaded module at exit. Per file,
 * time and the memory above the 1-file row must stay flat from 100 to 3,000.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startFakeOpenAI, type ChatBody } from '../test/fakes/openaiServer';
import { gitIn } from '../test/fakes/workspace';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'roundtable.js');
const CHILD = path.join(__dirname, 'reviewScaleChild.ts');
const MODELS = ['rev-a', 'rev-b', 'rev-c'];
/** Changed files per row; the 1-file row is the fixed cost the others are measured above. */
export const SIZES = [1, 100, 1_000, 3_000];
/** Runs per row; the least time and memory are kept (the machine is shared and noisy). */
const REPEATS = 3;
/** A row that takes longer than this is killed and printed as not finished. */
const LIMIT_MS = 600_000;

const RECORD =
  '---\nstatus: accepted\ndate: 2026-01-10\nscope:\n  - "services/**"\n---\n\n# Postgres for every service\n\nChosen option: Postgres, for every service.\n';

/** Names hostile contributors use: each breaks a tool that puts a path into a line, a mark or a regex. */
const ODD_NAMES = ['services/new\nline.ts', 'services/db\u200b.ts', 'services/evil\u202etxt.ts', 'services/cr\r.ts'];

/** A small source file, the i-th: a function of a few lines, as a real change holds. */
const source = (i: number, edit: string): string =>
  `export function handler${i}(id: string) {\n  const key = \`order-\${id}-${i}\`;\n  return { key, ${edit} };\n}\n`;

export async function scaleRepo(files: number, oddNames: boolean): Promise<string> {
  const root = path.join(await mkdtemp(path.join(tmpdir(), 'rt-scale-')), 'repo');
  const put = async (rel: string, text: string) => {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  };
  const git = (...args: string[]) => gitIn(root, ...args);
  await put('docs/decisions/0001-postgres-for-every-service.md', RECORD);
  // Half the changed files exist on main and are edited, half are new.
  const edited = Math.floor(files / 2);
  for (let i = 0; i < edited; i++) await put(`src/mod${i % 50}/file${i}.ts`, source(i, 'ok: false'));
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-qm', 'base');
  git('checkout', '-qb', 'feature');
  for (let i = 0; i < edited; i++) await put(`src/mod${i % 50}/file${i}.ts`, source(i, 'ok: true'));
  const odd = oddNames && files >= 100 ? ODD_NAMES : [];
  for (let i = edited; i < files - odd.length; i++) await put(`src/mod${i % 50}/file${i}.ts`, source(i, 'fresh: true'));
  for (const name of odd) await put(name, 'export const odd = true;\n');
  git('add', '.');
  git('commit', '-qm', 'change');
  return root;
}

/** Preloaded into the CLI: writes the process's peak resident set (KiB) to a file when it exits. */
const MAXRSS_PRELOAD = `
const { writeFileSync } = require('node:fs');
process.on('exit', () => writeFileSync(process.env.RT_BENCH_MAXRSS, String(process.resourceUsage().maxRSS)));
`;

interface Run {
  code: number | null;
  wallMs: number;
  peakKiB: number | undefined;
  /** From the read child: milliseconds to read the change. */
  readMs?: number;
}

/** Runs a Node process to its end: its exit code, wall time, peak memory (`rssFile`), stdout. */
function runNode(
  argv: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv; rssFile?: string },
): Promise<Run & { stdout: string }> {
  const start = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env, ...(opts.rssFile ? { RT_BENCH_MAXRSS: opts.rssFile } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2_000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      const wallMs = performance.now() - start;
      if (code !== 0 && process.env.RT_BENCH_VERBOSE) process.stderr.write(`review-scale: exit ${code}: ${stderr}\n`);
      if (!opts.rssFile) return resolve({ code, wallMs, peakKiB: undefined, stdout });
      void readFile(opts.rssFile, 'utf8')
        .then((t) => Number(t))
        .catch(() => undefined)
        .then((peakKiB) => resolve({ code, wallMs, peakKiB, stdout }));
    });
  });
}

/** The least of a row's runs: what the work costs when the shared machine lets it run. */
function least(runs: Run[]): Run {
  const min = (xs: (number | undefined)[]) => (xs.every((x) => x !== undefined) ? Math.min(...xs) : undefined);
  return {
    code: runs.find((x) => x.code !== 0 && x.code !== 1)?.code ?? (runs[0] as Run).code,
    wallMs: min(runs.map((x) => x.wallMs)) as number,
    peakKiB: min(runs.map((x) => x.peakKiB)),
    readMs: min(runs.map((x) => x.readMs)),
  };
}

export interface ScaleRow {
  files: number;
  /** The daemon's reading of the change (prepareReview, in a process of its own). */
  readMs: number | undefined;
  /** Its time above the 1-file row, per changed file. */
  readMsPerFile: number | undefined;
  /** Its peak memory above the 1-file row's, per 1,000 changed files. */
  readMbPer1000: number | undefined;
  /** The whole review by the CLI: exit code, wall time, peak memory. */
  exit: number | null;
  cliWallS: number;
  cliPeakMB: number | undefined;
  /** The CLI's wall time above the 1-file review, per changed file. */
  cliMsPerFile: number | undefined;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

export async function benchReviewScale(
  opts: { sizes?: number[]; oddNames?: boolean; repeats?: number } = {},
): Promise<{ rows: ScaleRow[]; growth: number | undefined }> {
  const { sizes = SIZES, oddNames = true, repeats = REPEATS } = opts;
  const fake = await startFakeOpenAI(
    (body: ChatBody) => {
      const text = (body.messages ?? []).map((m) => m.content).join('\n');
      return text.includes('{"votes": [') ? '{"votes": []}' : '{"findings": []}';
    },
    { models: MODELS },
  );
  const work = await mkdtemp(path.join(tmpdir(), 'rt-scale-bench-'));
  const preload = path.join(work, 'maxrss.cjs');
  await writeFile(preload, MAXRSS_PRELOAD);
  const cliEnv = {
    ROUNDTABLE_API_KEY: '',
    OPENAI_API_KEY: '',
    ROUNDTABLE_HOME: path.join(work, 'home'),
    ROUNDTABLE_PROBE_SERVERS: '',
  };
  const cliArgs = ['review', '--no-daemon', '--base-url', fake.baseURL, '--models', MODELS.join(','), '--json'];
  const rows: ScaleRow[] = [];
  try {
    let base: { read: Run; cli: Run } | undefined;
    for (const files of sizes) {
      const root = await scaleRepo(files, oddNames);
      const reads: Run[] = [];
      const clis: Run[] = [];
      for (let i = 0; i < repeats; i++) {
        const r = await runNode(['--import', 'tsx', '--require', preload, CHILD, root], {
          cwd: ROOT,
          rssFile: path.join(work, `read-${files}-${i}`),
        });
        reads.push({ ...r, readMs: r.code === 0 ? (JSON.parse(r.stdout) as { readMs: number }).readMs : undefined });
        // --allow-unread: most of a big change does not fit the budget, and nothing here is governed anyway.
        clis.push(
          await runNode(['--require', preload, BIN, ...cliArgs, '--allow-unread'], {
            cwd: root,
            env: cliEnv,
            rssFile: path.join(work, `cli-${files}-${i}`),
          }),
        );
      }
      await rm(path.dirname(root), { recursive: true, force: true });
      const read = least(reads);
      const cli = least(clis);
      base ??= { read, cli };
      const extra = files - (sizes[0] as number);
      const finished = cli.code === 0 || cli.code === 1;
      rows.push({
        files,
        readMs: read.readMs === undefined ? undefined : Math.round(read.readMs),
        readMsPerFile:
          extra > 0 && read.readMs !== undefined && base.read.readMs !== undefined
            ? round((read.readMs - base.read.readMs) / extra, 2)
            : undefined,
        readMbPer1000:
          extra > 0 && read.peakKiB !== undefined && base.read.peakKiB !== undefined
            ? round(((read.peakKiB - base.read.peakKiB) / 1024 / extra) * 1000, 1)
            : undefined,
        exit: cli.code,
        cliWallS: round(cli.wallMs / 1000, 1),
        cliPeakMB: cli.peakKiB === undefined ? undefined : Math.round(cli.peakKiB / 1024),
        cliMsPerFile: finished && extra > 0 ? round((cli.wallMs - base.cli.wallMs) / extra, 2) : undefined,
      });
    }
  } finally {
    await fake.close();
    await rm(work, { recursive: true, force: true });
  }
  return { rows, growth: growth(rows) };
}

/**
 * The time each added file costs from the second-largest row to the largest, over what it costs
 * from the first row above 1 file to the second-largest (100 → 1,000, then 1,000 → 3,000): 1 when
 * reading a change is linear in its files, about 3.6 when it is quadratic.
 */
function growth(rows: ScaleRow[]): number | undefined {
  const [, a, b, c] = rows;
  if (a?.readMs === undefined || b?.readMs === undefined || c?.readMs === undefined) return undefined;
  const slope = (x: ScaleRow, y: ScaleRow) => ((y.readMs as number) - (x.readMs as number)) / (y.files - x.files);
  return round(slope(b, c) / slope(a, b), 2);
}
