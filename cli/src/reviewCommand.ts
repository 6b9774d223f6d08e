/**
 * `roundtable review`: a panel reviews a change against the team's accepted decision records. The
 * panel and the server are chosen as for `run`; the daemon (or this process with --no-daemon) reads
 * the change through the workspace gate and runs the review as a consensus meeting. Exit codes are
 * REVIEW_EXIT: 0 clean, 1 failed, 2 bad usage, 3 could not review (one line why). An
 * infrastructure failure (no model, a server down, the budget spent) is never exit 1.
 */
import { statSync } from 'node:fs';
import * as path from 'node:path';
import type { FailOn, MeetingConfig, StartMeetingParams } from '@roundtable/protocol';
import {
  FailOnSchema,
  GIT_REF_PATTERN,
  MAX_EXCEPTIONS,
  MAX_EXCEPTION_CHARS,
  REVIEW_EXIT,
  RpcError,
  checkStartParams,
} from '@roundtable/protocol';
import { apiKeyOf, checkedBaseUrl, defaultDataDir, findDaemon } from '@roundtable/client';
import { checkMinutesDir, checkOutputFile } from '@roundtable/client/minutesOutput';
import { git } from '../../daemon/src/gate/git';
import { NOTHING_TO_REVIEW } from '../../daemon/src/review/prepare';
import { ChangeError, against } from '../../daemon/src/review/change';
import { newMeetingId } from '../../daemon/src/daemon/ids';
import { NoModelError, UsageError, checkDataDir, parseCli } from '@roundtable/client/usage';
import { BILL_OPTIONS, BILL_USAGE, billingConfig, printEstimate } from './bill';
import { choosePanel, parseModelsFlag } from '../../daemon/src/panelChoice';
import { RoomPrinter } from './printer';
import { terminalLine, terminalSafe } from '@roundtable/protocol/terminal';
import { daemonCore, runDirCore, runMeeting, type RunIO } from './follow';
import { unstatusedFlag } from './decisionsCommand';
import { checkedConfig, positiveInt, preflight } from './runCommand';
import { pullRequestChange } from './reviewEnv';
import { finishReview, type ReviewOutputs } from './reviewOutput';

export const REVIEW_USAGE = `Usage: roundtable review [options]

  --base REF              review the change since the merge base of HEAD with REF, and the work tree
                          (default: the merge base with the default branch: origin/HEAD, else main or
                          master; in GitHub Actions, the pull request's base)
  --worktree              review only the work tree against HEAD (uncommitted changes)
  --fail-on BAR           blocking (default) | major | contested: the lowest bar that fails the review
  --allow-unread          pass without the changed files the review could not read (said in every
                          report); by default an unread file under an accepted decision is exit 3
  --sarif FILE            write the upheld and contested findings as SARIF 2.1.0 (GitHub code scanning)
  --markdown FILE         write the report as Markdown (a pull-request comment)
  --json                  print the report (version 1) as one JSON object instead of the findings
  --decisions DIR         folder of the decision records (default docs/decisions)
  --unstatused HOW        records with no status: accepted (default, they are rules) | ignore
  --exception 'ID REASON' an exception to decision ID: a PROVEN finding on it is WAIVED, with the
                          reason (repeat it, at most ${MAX_EXCEPTIONS}; a commit of the change says the same
                          with the trailer 'Decision-Exception: ID REASON')
  --exceptions-from TEXT  where the --exception lines were said, for the report (default: the
                          command line; the GitHub Action gives "pull request #N")
  --participants FILE     panel JSON (default: a panel built from the server's models)
  --base-url URL          OpenAI-compatible server (default $ROUNDTABLE_BASE_URL or https://api.openai.com/v1)
  --model NAME            model for every reviewer (default: chosen from the server's model list)
  --models A,B,C          one model per reviewer, in order (2 to 6)
  --budget N              token budget for everything spoken (default 15000)
  --turn-timeout SECONDS  per-reviewer timeout (default 60)
  --time-limit SECONDS    whole-review limit (default 600)
  --out DIR               minutes folder (default docs/roundtable)
  --no-daemon             run in this process even when a daemon is running
  --data-dir DIR          the daemon's data dir (default $ROUNDTABLE_HOME or ~/.roundtable)
${BILL_USAGE}
  -h, --help              show this help

Exit codes: 0 no finding at or above the bar upheld; 1 at least one; 2 bad usage; 3 the review could
not be done (no model, rate limits, budget spent before a verdict, a reviewer down, a changed file under
an accepted decision not read), with one line why.
The API key is read from ROUNDTABLE_API_KEY or OPENAI_API_KEY; it is never written anywhere.`;

const REVIEW_OPTIONS = {
  base: { type: 'string' },
  worktree: { type: 'boolean' },
  'fail-on': { type: 'string' },
  'allow-unread': { type: 'boolean' },
  sarif: { type: 'string' },
  markdown: { type: 'string' },
  json: { type: 'boolean' },
  decisions: { type: 'string' },
  unstatused: { type: 'string' },
  exception: { type: 'string', multiple: true },
  'exceptions-from': { type: 'string' },
  participants: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  models: { type: 'string' },
  budget: { type: 'string' },
  'turn-timeout': { type: 'string' },
  'time-limit': { type: 'string' },
  out: { type: 'string' },
  'no-daemon': { type: 'boolean' },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...BILL_OPTIONS,
} as const;

type ReviewValues = ReturnType<
  typeof parseCli<{ args: string[]; allowPositionals: false; options: typeof REVIEW_OPTIONS }>
>['values'];

export interface ReviewOptions extends ReviewOutputs {
  params: StartMeetingParams;
  noDaemon: boolean;
  dataDir: string;
  baseURL: string;
  apiKey: string | undefined;
  estimate: boolean;
  notices: string[];
}

/** The repository's top folder (paths in every output are relative to it), else the working folder. */
async function repositoryRoot(cwd: string): Promise<string> {
  const r = await git(cwd, ['rev-parse', '--show-toplevel']);
  return r.code === 0 && r.stdout.trim() ? path.resolve(r.stdout.trim()) : cwd;
}

/** `--decisions DIR` as a path inside the repository: a folder elsewhere or missing is bad usage, not an empty rulebook. */
function decisionsIn(workspace: string, dir: string): string {
  const rel = path.relative(workspace, path.resolve(dir)).split(path.sep).join('/') || '.';
  if (rel === '..' || rel.startsWith('../') || path.isAbsolute(rel))
    throw new UsageError(`--decisions must be a folder inside the repository ${workspace}, got "${dir}"`);
  const st = statSync(path.join(workspace, rel), { throwIfNoEntry: false });
  if (!st) throw new UsageError(`--decisions: there is no folder ${dir}`);
  if (!st.isDirectory())
    throw new UsageError(`--decisions ${dir} is not a folder: give the folder that holds the decision records`);
  return rel;
}

function failOnOf(v: string | undefined): FailOn {
  const r = FailOnSchema.safeParse(v ?? 'blocking');
  if (!r.success) throw new UsageError(`--fail-on must be blocking, major or contested, got "${v}"`);
  return r.data;
}

/** What to review: --base, --worktree, or in GitHub Actions the pull request's base. */
function changeOf(values: ReviewValues, env: NodeJS.ProcessEnv): { base?: string; worktree?: true; notice?: string } {
  if (values.base !== undefined && values.worktree)
    throw new UsageError('--base and --worktree cannot be used together');
  if (values.worktree) return { worktree: true };
  if (values.base !== undefined) {
    if (!GIT_REF_PATTERN.test(values.base))
      throw new UsageError(`--base must name a branch, tag or commit, got "${values.base}"`);
    return { base: values.base };
  }
  const pr = pullRequestChange(env);
  return pr ? { base: pr.base, notice: pr.notice } : {};
}

/**
 * The change's refs against the repository, read as the daemon will read them (it keeps its own
 * check, for other clients): a base that is not a commit, or no default branch, is bad usage
 * found before any server is asked, whatever the server's state.
 */
async function checkChange(workspace: string, change: { base?: string; worktree?: true }): Promise<void> {
  try {
    await against(workspace, change);
  } catch (e) {
    if (e instanceof ChangeError) throw new UsageError(e.message);
    throw e;
  }
}

/** The places the review writes, each checked writable before the review starts (bad usage when not). */
async function outputsOf(
  values: ReviewValues,
  check: boolean,
): Promise<Pick<ReviewOutputs, 'outDir' | 'sarif' | 'markdown'>> {
  const outDir = path.resolve(values.out ?? path.join('docs', 'roundtable'));
  const sarif = values.sarif ? path.resolve(values.sarif) : undefined;
  const markdown = values.markdown ? path.resolve(values.markdown) : undefined;
  if (check) {
    for (const [flag, file] of [
      ['--sarif', sarif],
      ['--markdown', markdown],
    ] as const) {
      if (file !== undefined) await checkOutputFile(file, flag);
    }
    await checkMinutesDir(outDir);
  }
  return { outDir, ...(sarif ? { sarif } : {}), ...(markdown ? { markdown } : {}) };
}

/** A value with a control character (a line break) would not be one line of the report. */
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * `--exception` lines with where they were said. A missing reason is not refused here: the review
 * reports it as an invalid exception, as it does a trailer or a pull request's line.
 */
function exceptionsOf(values: ReviewValues): { line: string; from: string }[] | undefined {
  const lines = values.exception ?? [];
  const from = values['exceptions-from'];
  if (from !== undefined && (from.trim() === '' || from.length > 200 || CONTROL.test(from)))
    throw new UsageError('--exceptions-from must be one line of at most 200 characters');
  if (lines.length === 0) return undefined;
  if (lines.length > MAX_EXCEPTIONS)
    throw new UsageError(`--exception is given ${lines.length} times: at most ${MAX_EXCEPTIONS}`);
  for (const line of lines)
    if (line.length > MAX_EXCEPTION_CHARS || CONTROL.test(line))
      throw new UsageError(`--exception must be one line of at most ${MAX_EXCEPTION_CHARS} characters: "ID REASON"`);
  return lines.map((line) => ({ line, from: from ?? 'the command line' }));
}

function configOf(values: ReviewValues): Partial<MeetingConfig> {
  const config: Partial<MeetingConfig> = {};
  const budget = positiveInt(values.budget, '--budget');
  const turnTimeout = positiveInt(values['turn-timeout'], '--turn-timeout');
  const timeLimit = positiveInt(values['time-limit'], '--time-limit');
  if (budget !== undefined) config.tokenBudget = budget;
  if (turnTimeout !== undefined) config.turnTimeoutMs = turnTimeout * 1000;
  if (timeLimit !== undefined) config.timeLimitMs = timeLimit * 1000;
  return Object.assign(config, billingConfig(values));
}

export async function parseReviewArgs(argv: string[], env: NodeJS.ProcessEnv): Promise<ReviewOptions | 'help'> {
  const { values } = parseCli({ args: argv, allowPositionals: false, options: REVIEW_OPTIONS });
  if (values.help) return 'help';
  const failOn = failOnOf(values['fail-on']);
  const change = changeOf(values, env);
  const config = checkedConfig(configOf(values));
  checkedBaseUrl(env, values['base-url']);
  const workspace = await repositoryRoot(process.cwd());
  const decisionsFolder = values.decisions === undefined ? undefined : decisionsIn(workspace, values.decisions);
  const unstatused = unstatusedFlag(values.unstatused);
  const exceptions = exceptionsOf(values);
  // Usage before any server is asked: the refs, the places written, the data dir.
  await checkChange(workspace, change);
  const outputs = await outputsOf(values, !values.estimate);
  const dataDir = checkDataDir(values['data-dir'] ?? defaultDataDir(env));
  const choice = await choosePanel({
    provider: 'auto',
    env,
    ...(values.participants ? { participantsFile: values.participants } : {}),
    ...(values.model ? { model: values.model } : {}),
    ...(values.models !== undefined ? { models: parseModelsFlag(values.models) } : {}),
    ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
  });
  if (choice.demoFallback)
    throw new NoModelError(
      'no model to review with: set ROUNDTABLE_BASE_URL (or --base-url) and a model, or start Ollama, LM Studio or vLLM',
    );
  const checked = checkStartParams({
    topic: `Review of ${change.worktree ? 'the work tree against HEAD' : `the change since ${change.base ?? 'the default branch'}`} against the accepted decision records`,
    mode: 'consensus',
    participants: choice.participants,
    config,
    workspace,
    review: {
      ...(change.base ? { base: change.base } : {}),
      ...(change.worktree ? { worktree: true } : {}),
      ...(decisionsFolder ? { decisionsFolder } : {}),
      ...(unstatused ? { unstatused } : {}),
      ...(values['allow-unread'] ? { allowUnread: true } : {}),
      ...(exceptions ? { exceptions } : {}),
    },
  });
  if (!checked.ok) throw new UsageError(checked.error);
  return {
    params: checked.value,
    failOn,
    ...outputs,
    json: values.json ?? false,
    workspace,
    noDaemon: values['no-daemon'] ?? false,
    dataDir,
    baseURL: choice.baseURL,
    apiKey: apiKeyOf(env),
    estimate: values.estimate ?? false,
    notices: [...(choice.notice ? [choice.notice] : []), ...(change.notice ? [change.notice] : [])],
  };
}

/** A start the change refused: an empty change is a clean review (exit 0); anything else is bad usage. */
function refusedStart(message: string, io: RunIO): number {
  if (message.includes(NOTHING_TO_REVIEW)) {
    io.stderr.write(`roundtable: ${terminalSafe(message)}\n`);
    return REVIEW_EXIT.clean;
  }
  throw new UsageError(message);
}

async function runReview(opts: ReviewOptions, io: RunIO): Promise<number> {
  if (opts.estimate) return printEstimate(opts.params, opts.json, io.stdout);
  await preflight({ ...opts, scriptFile: '' });
  for (const line of opts.notices) io.stderr.write(`roundtable: ${terminalSafe(line)}\n`);
  const roomOut = opts.json ? io.stderr : io.stdout;
  const printer = new RoomPrinter(roomOut, io.isTTY && !opts.json);
  const finish = (s: Parameters<typeof finishReview>[0], e: Parameters<typeof finishReview>[1]) =>
    finishReview(s, e, opts, io);
  const found = opts.noDaemon ? undefined : await findDaemon(opts.dataDir);
  // In this process (--no-daemon or no daemon running) nobody is asked at an escalation: a CI job.
  const core = found ? await daemonCore(found) : await runDirCore(opts.dataDir, newMeetingId(), io);
  try {
    return await runMeeting(opts, core, undefined, printer, found ? io : { ...io, stdinTTY: false }, roomOut, finish);
  } catch (e) {
    if (e instanceof RpcError && e.code === 'bad_request') return refusedStart(e.message, io);
    throw e;
  }
}

export async function reviewCommand(argv: string[], io: RunIO): Promise<number> {
  try {
    const opts = await parseReviewArgs(argv, io.env);
    if (opts === 'help') {
      io.stdout.write(`${REVIEW_USAGE}\n`);
      return 0;
    }
    return await runReview(opts, io);
  } catch (e) {
    if (e instanceof UsageError && !(e instanceof NoModelError)) throw e;
    // No model, a server down, a daemon that failed: the review could not be done, never a failed one.
    const line = ((e as Error).message || 'unknown error').split('\n')[0] as string;
    io.stderr.write(`roundtable: could not review: ${terminalLine(line)}\n`);
    return REVIEW_EXIT.couldNotReview;
  }
}
