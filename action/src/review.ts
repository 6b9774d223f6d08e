/**
 * Runs `roundtable review` (the bundled CLI beside this bundle) for the action and reads what it
 * leaves: its exit code, the one line it says on stderr when it cannot review, the Markdown report.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { oneLine } from '@roundtable/protocol/markdown';

export interface ReviewInputs {
  baseUrl: string;
  models: string;
  apiKey: string;
  budget: string;
  failOn: string;
  sarifFile: string;
  /** `true`: pass without the changed files the review could not read, saying so (`--allow-unread`). */
  allowUnread?: boolean;
  /** `Decision-Exception:` lines of the pull request's body, and where they were said (`pull request #12`). */
  exceptions?: { lines: string[]; from: string };
}

export interface ReviewRun {
  /** The CLI's exit code; a crash or a signal counts as 3 (could not review). */
  exit: number;
  /** The last line the CLI wrote on stderr (why it could not review, or what was wrong with the usage). */
  why: string;
  /** The Markdown report, when the CLI wrote one. */
  report?: string;
}

/** The CLI the action runs: the one bundled beside it, or (tests only) ROUNDTABLE_ACTION_CLI. */
function cliPath(env: NodeJS.ProcessEnv): string {
  return env.ROUNDTABLE_ACTION_CLI || path.join(__dirname, '..', 'daemon', 'cli.js');
}

/** The flags of `roundtable review` for the action's inputs; an empty input is left to the CLI's default. */
export function reviewArgs(i: ReviewInputs, markdownFile: string): string[] {
  const args = ['review', '--no-daemon', '--fail-on', i.failOn, '--sarif', i.sarifFile, '--markdown', markdownFile];
  if (i.baseUrl) args.push('--base-url', i.baseUrl);
  if (i.models) args.push('--models', i.models);
  if (i.budget) args.push('--budget', i.budget);
  if (i.allowUnread) args.push('--allow-unread');
  if (i.exceptions?.lines.length) {
    for (const line of i.exceptions.lines) args.push('--exception', line);
    args.push('--exceptions-from', i.exceptions.from);
  }
  return args;
}

/**
 * The CLI's environment: the runner's, without the action's inputs (INPUT_*: the GitHub token and
 * the key as given), with the key where `roundtable` reads it.
 */
export function reviewEnv(env: NodeJS.ProcessEnv, apiKey: string): NodeJS.ProcessEnv {
  const out = Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('INPUT_')));
  return apiKey ? { ...out, ROUNDTABLE_API_KEY: apiKey } : out;
}

/** Keeps the last `max` characters of a stream: the line that says why is at its end. */
function tail(max: number): { add(chunk: string): void; lastLine(): string } {
  let kept = '';
  return {
    add(chunk) {
      kept = (kept + chunk).slice(-max);
    },
    lastLine() {
      const lines = kept.split('\n').filter((l) => l.trim());
      // The action adds "could not review:" itself.
      return oneLine(lines[lines.length - 1] ?? '').replace(/^roundtable: (could not review: )?/i, '');
    },
  };
}

/**
 * Runs the review in `cwd` (the checked-out workspace). What the CLI prints can quote model text,
 * so it is shown between stop-commands markers with an unguessable token: no line of it runs as a
 * workflow command (`::error::`, `::add-mask::`…).
 */
export async function runReview(
  i: ReviewInputs,
  o: { cwd: string; tempDir: string; env: NodeJS.ProcessEnv },
): Promise<ReviewRun> {
  const markdownFile = path.join(o.tempDir, `roundtable-review-${randomUUID()}.md`);
  const token = randomUUID();
  const stderr = tail(4_000);
  process.stdout.write(`::stop-commands::${token}\n`);
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, [cliPath(o.env), ...reviewArgs(i, markdownFile)], {
      cwd: o.cwd,
      env: reviewEnv(o.env, i.apiKey),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d: Buffer) => process.stdout.write(d));
    child.stderr.on('data', (d: Buffer) => {
      process.stdout.write(d);
      stderr.add(d.toString('utf8'));
    });
    child.on('error', (e) => {
      stderr.add(`\nthe roundtable command could not start: ${e.message}\n`);
      resolve(3);
    });
    child.on('close', (status, signal) => {
      if (status === null) stderr.add(`\nthe roundtable command was stopped by ${signal ?? 'a signal'}\n`);
      resolve(status !== null && status >= 0 && status <= 3 ? status : 3);
    });
  });
  process.stdout.write(`\n::${token}::\n`);
  const report = existsSync(markdownFile) ? readFileSync(markdownFile, 'utf8') : undefined;
  const why = stderr.lastLine() || (code === 3 ? 'the roundtable command gave no reason' : '');
  return { exit: code, why, ...(report?.trim() ? { report } : {}) };
}
