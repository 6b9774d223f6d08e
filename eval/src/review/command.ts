/**
 * `roundtable eval --review SET`: is the panel's review worth it? Reviews a labelled set of changes
 * and prints, side by side, each model reviewing alone, the union of their reviews, the findings a
 * majority proposed and the full review, with precision, recall, F1, the clean controls flagged,
 * how often the gate was right, and what each cost; then which to use.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FailOn, MeetingConfig, Prices } from '@roundtable/protocol';
import { FailOnSchema } from '@roundtable/protocol';
import { terminalSafe } from '@roundtable/protocol/terminal';
import { UsageError, parseCli } from '@roundtable/client/usage';
import { DEFAULT_BASE_URL, apiKeyOf, checkedBaseUrl } from '@roundtable/client/config';
import { loadPrices } from '@roundtable/client/prices';
import { OpenAIProvider } from '../../../daemon/src/providers/openai';
import { roundtablePanel, seatName } from '../systems';
import { BUILTIN_CASES, BUILTIN_SET_NAME } from './builtin/index';
import { CaseError, caseSetHash, loadCaseSet, type ReviewCase } from './cases';
import { estimateReviewEval, formatReviewEstimate } from './estimate';
import { readReviewCheckpoint, runReviewEval } from './harness';
import type { ReviewRunKey } from './record';
import { renderReviewReport } from './report';
import type { ReviewSetup } from './run';
import { SCRIPTED_REVIEWERS, ScriptedReviewers, scriptedParticipants, scriptsFor } from './scripted';
import { f1SoFar } from './summary';
import { progressWriter, stoppedRun } from '../progress';
import { checkOut, checkpointFor, intOption, panelModels, probeServer, type EvalIO } from '../runStart';
import { systemNames } from './systems';

export const REVIEW_EVAL_USAGE = `Usage: roundtable eval --review SET --models M1,M2,M3 [options]

  --review SET            builtin (the ${BUILTIN_CASES.length} cases shipped with Roundtable) | a folder of cases (docs/eval.md)
  --models LIST           the reviewers' models, comma-separated (2 or more)
  --provider P            openai (default: the server at --base-url) | scripted: three reviewers that
                          answer from the labels (right, noisy, misses), a demo of the harness that
                          measures no model
  --limit N               review only the first N cases
  --concurrency N         cases reviewed at once (default 1)
  --fail-on BAR           blocking (default) | major | contested: the gate's bar, as for roundtable review
  --budget N              token budget of each review (default 15000)
  --turn-timeout SECONDS  per call (default 60)
  --prices FILE           JSON: model → {"input": $, "output": $, "cachedInput"?: $} per million tokens
  --estimate              print what the run would cost, then exit without asking a model
  --base-url URL          OpenAI-compatible server (default $ROUNDTABLE_BASE_URL or https://api.openai.com/v1)
  --out FILE              results JSON (default eval-review-results.json); the checkpoint is FILE.checkpoint.jsonl
  --resume                skip the cases the checkpoint already holds (same set, labels, models, provider);
                          each is scored again from the review's log stored with it

Each case is built into a git repository (base on main, the change on a branch) and reviewed as
roundtable review reviews it. Systems, all read from that one review: each model alone (its own
findings, proposed before it saw anyone's), union (all of them), majority (findings proposed by
more than half of the panel) and review (proposals, checks, the vote). A finding hits a label on
the same file, within 3 lines, for the same decision or defect class. Progress goes to stderr,
the report to stdout.`;

interface ReviewEvalOptions {
  cases: ReviewCase[];
  key: ReviewRunKey;
  setup: ReviewSetup;
  failOn: FailOn;
  prices?: Prices;
  concurrency: number;
  baseURL: string;
  apiKey: string | undefined;
  out: string;
  resume: boolean;
  estimate: boolean;
}

function loadSet(set: string): ReviewCase[] {
  if (set === BUILTIN_SET_NAME) return [...BUILTIN_CASES];
  try {
    return loadCaseSet(path.resolve(set));
  } catch (e) {
    if (e instanceof CaseError) throw new UsageError(e.message);
    throw e;
  }
}

const OPTIONS = {
  review: { type: 'string' },
  models: { type: 'string' },
  provider: { type: 'string' },
  limit: { type: 'string' },
  concurrency: { type: 'string' },
  'fail-on': { type: 'string' },
  budget: { type: 'string' },
  'turn-timeout': { type: 'string' },
  prices: { type: 'string' },
  estimate: { type: 'boolean' },
  'base-url': { type: 'string' },
  out: { type: 'string' },
  resume: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The panel and its providers: the server's models, or the scripted reviewers with each case's script. */
function setupOf(
  provider: string,
  models: string[],
  cases: ReviewCase[],
  config: Partial<MeetingConfig>,
  server: () => OpenAIProvider,
): ReviewSetup {
  if (provider === 'scripted') {
    const participants = scriptedParticipants(seatName);
    const scripts = scriptsFor(
      cases,
      participants.filter((p) => p.role === 'worker').map((p) => p.name),
    );
    return {
      participants,
      config,
      provider: (c) => ScriptedReviewers.of(c),
      providersFor: (c) => ({ script: { reviewEval: scripts.get(c.id) } }),
    };
  }
  const openai = server();
  return { participants: roundtablePanel(models), config, provider: () => openai };
}

export function parseReviewEvalArgs(argv: string[], env: NodeJS.ProcessEnv): ReviewEvalOptions | 'help' {
  const { values } = parseCli({ args: argv, allowPositionals: false, options: OPTIONS });
  if (values.help) return 'help';
  const set = values.review?.trim();
  if (!set) throw new UsageError('--review needs a set: builtin, or a folder of review cases');
  const provider = values.provider ?? 'openai';
  if (provider !== 'openai' && provider !== 'scripted')
    throw new UsageError(`--provider must be openai or scripted, got "${provider}"`);
  const scripted = provider === 'scripted';
  const models = scripted ? SCRIPTED_REVIEWERS.map((r) => `scripted-${r}`) : panelModels(values.models);
  if (scripted && values.models !== undefined)
    throw new UsageError('--models is for a server: the scripted provider seats its own three reviewers');
  const fail = FailOnSchema.safeParse(values['fail-on'] ?? 'blocking');
  if (!fail.success) throw new UsageError(`--fail-on must be blocking, major or contested, got "${values['fail-on']}"`);
  let cases = loadSet(set);
  const setHash = caseSetHash(cases);
  const limit = intOption(values.limit, '--limit');
  if (limit !== undefined) cases = cases.slice(0, limit);
  const budget = intOption(values.budget, '--budget', 100);
  const turn = intOption(values['turn-timeout'], '--turn-timeout');
  const prices = values.prices !== undefined ? loadPrices(values.prices) : undefined;
  const config: Partial<MeetingConfig> = {
    ...(budget !== undefined ? { tokenBudget: budget } : {}),
    ...(turn !== undefined ? { turnTimeoutMs: turn * 1000 } : {}),
    ...(prices ? { prices } : {}),
  };
  const baseURL = checkedBaseUrl(env, values['base-url']) ?? DEFAULT_BASE_URL;
  const apiKey = apiKeyOf(env);
  const server = () => new OpenAIProvider({ baseURL, ...(apiKey ? { apiKey } : {}) });
  return {
    cases,
    key: { kind: 'review', set: set === BUILTIN_SET_NAME ? set : path.resolve(set), setHash, models, provider },
    setup: setupOf(provider, models, cases, config, server),
    failOn: fail.data,
    ...(prices ? { prices } : {}),
    concurrency: intOption(values.concurrency, '--concurrency') ?? 1,
    baseURL,
    apiKey,
    out: path.resolve(values.out ?? 'eval-review-results.json'),
    resume: values.resume ?? false,
    estimate: values.estimate ?? false,
  };
}

export async function reviewEvalCommand(argv: string[], io: EvalIO): Promise<number> {
  const o = parseReviewEvalArgs(argv, io.env);
  if (o === 'help') {
    io.stdout.write(`${REVIEW_EVAL_USAGE}\n`);
    return 0;
  }
  if (o.estimate) {
    const e = await estimateReviewEval(o.setup, o.cases);
    io.stdout.write(`${terminalSafe(formatReviewEstimate(o.key.set, o.key.models, e))}\n`);
    return 0;
  }
  await checkOut(o.out);
  if (o.key.provider === 'openai') await probeServer(o.baseURL, o.apiKey);
  // The cases resumed are scored once, here, and handed to the run: it does not read them again.
  const { checkpoint, resumed } = await checkpointFor(
    o.out,
    o.resume ? (file) => readReviewCheckpoint(file, o.key, o.cases, o.setup, o) : undefined,
  );
  const seats = o.setup.participants.filter((p) => p.role === 'worker').map((p) => p.name);
  const names = systemNames(seats);
  const progress = progressWriter(io, checkpoint, 'cases already reviewed');
  const run = runReviewEval({
    ...o,
    checkpoint,
    ...(resumed ? { done: resumed } : {}),
    onProgress: (done, total, results) => {
      const f1 = Object.entries(f1SoFar(names, results))
        .map(([name, v]) => `${name} ${v === undefined ? '–' : v.toFixed(2)}`)
        .join(' · ');
      progress(done, total, `eval review ${done}/${total} · F1 so far: ${f1}`);
    },
  });
  const { results } = await run.catch((e: unknown) => {
    throw stoppedRun(e, 'the reviewed cases', checkpoint);
  });
  writeFileSync(o.out, `${JSON.stringify(results, null, 2)}\n`);
  io.stdout.write(`${terminalSafe(renderReviewReport(results))}\n\nResults: ${terminalSafe(o.out)}\n`);
  return 0;
}
