/**
 * `roundtable run`: one meeting from the terminal. Streams the room, writes the minutes, prints
 * the digest (or one JSON object with --json). Bad input exits 2 with one clear line.
 */
import * as path from 'node:path';
import type { MeetingConfig, Participant } from '@roundtable/protocol';
import { CANNED_NOTE, ConfigOverridesSchema, check, checkStartParams, ignoresTopic } from '@roundtable/protocol';
import { apiKeyOf, checkedBaseUrl, defaultDataDir, findDaemon, spawnDaemon } from '@roundtable/client';
import { providerEntry } from '../../daemon/src/providers/registry';
import { listModels } from '../../daemon/src/modelLists';
import { preflightPanel } from '../../daemon/src/providers/preflight';
import { loadScript, type Script } from '../../daemon/src/providers/scripted';
import { newMeetingId } from '../../daemon/src/daemon/ids';
import { NoModelError, UsageError, parseCli, checkDataDir } from '@roundtable/client/usage';
import { checkMinutesDir } from '@roundtable/client/minutesOutput';
import { evidenceWorkspace, examplesDir } from '../../daemon/src/providers/demo';
import { RoomPrinter } from './printer';
import { DEMO_HINT, choosePanel, parseModelsFlag } from '../../daemon/src/panelChoice';
import { BILL_OPTIONS, BILL_USAGE, billingConfig, printEstimate } from './bill';

import { CONTEXT_USAGE, takeContextFlags } from '../../daemon/src/context/cliFlags';
import { daemonCore, runDirCore, runMeeting, type DaemonRunOptions, type RunIO } from './follow';

function contextFlags(argv: string[]): ReturnType<typeof takeContextFlags> {
  try {
    return takeContextFlags(argv);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export const RUN_USAGE = `Usage: roundtable run --topic "<text>" [options]

  --topic TEXT            the question the room discusses (required)
  --mode MODE             roundtable (default) | consensus: structured votes on options
  --option TEXT           an option to vote on (consensus; repeat it; none = the workers propose)
  --threshold N           consensus: weighted agreement needed without the human, 0-1 (default 0.8)
  --participants FILE     panel JSON (default: a panel built from the server's models, or the demo panel)
  --provider NAME         auto (default) | scripted | openai. auto: $ROUNDTABLE_BASE_URL, --base-url or an
                          API key means openai; else the first local server with models (Ollama, LM Studio,
                          vLLM); else the scripted demo (canned replies that ignore the topic)
  --base-url URL          OpenAI-compatible server (default $ROUNDTABLE_BASE_URL or https://api.openai.com/v1)
  --model NAME            model for every participant (default: chosen from the server's model list)
  --models A,B,C          one model per worker, in order (2 to 6; the number of workers)
  --script FILE           replies for the scripted provider (default: the demo script;
                          examples/demo-split-script.json shows a consensus that escalates)
  --max-rounds N          default 10
  --budget N              token budget for everything spoken (default 15000)
  --order ORDER           parallel | sequential | shuffle (default parallel)
  --turn-timeout SECONDS  per-agent timeout (default 60)
  --time-limit SECONDS    whole-meeting limit (default 600)
  --no-stop-when-stable   keep going when every worker's stance is unchanged for two rounds
                          (default: the meeting ends there, the next round could only repeat)
  --out DIR               minutes folder (default docs/roundtable)
${CONTEXT_USAGE}
  --json                  print one JSON object at the end instead of the room
  --daemon                run in the local daemon (started if none is running), so VS Code shows it live
  --no-daemon             run in this process even when a daemon is running
  --data-dir DIR          the daemon's data dir (default $ROUNDTABLE_HOME or ~/.roundtable)
${BILL_USAGE}
  -h, --help              show this help

The API key for --provider openai is read from ROUNDTABLE_API_KEY or OPENAI_API_KEY; it is never written anywhere.`;

export interface RunOptions extends DaemonRunOptions {
  /** `auto`: use a running daemon if there is one. */
  daemon: 'auto' | 'yes' | 'no';
  dataDir: string;
  scriptFile: string;
  /** Lines for stderr before the meeting starts: what auto chose, or that the demo runs. */
  notices: string[];
  demoFallback: boolean;
  /** `--estimate`: print what the meeting is expected to cost and start nothing. */
  estimate: boolean;
}

export function positiveInt(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim()) || Number(v) <= 0 || !Number.isSafeInteger(Number(v))) {
    throw new UsageError(`${flag} must be a positive integer, got "${v}"`);
  }
  return Number(v);
}

/**
 * The settings the flags make, checked against the meeting's schema now: a value out of range is
 * bad usage said before a panel is chosen (which may ask a server), not after.
 */
export function checkedConfig(config: Partial<MeetingConfig>): Partial<MeetingConfig> {
  const checked = check(ConfigOverridesSchema, config, 'config');
  if (!checked.ok) throw new UsageError(checked.error);
  return config;
}

/** The flags of `roundtable run`. */
const RUN_OPTIONS = {
  topic: { type: 'string' },
  participants: { type: 'string' },
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  models: { type: 'string' },
  script: { type: 'string' },
  'max-rounds': { type: 'string' },
  budget: { type: 'string' },
  order: { type: 'string' },
  'turn-timeout': { type: 'string' },
  'time-limit': { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  daemon: { type: 'boolean' },
  'no-daemon': { type: 'boolean' },
  'data-dir': { type: 'string' },
  mode: { type: 'string' },
  option: { type: 'string', multiple: true },
  threshold: { type: 'string' },
  'no-stop-when-stable': { type: 'boolean' },
  ...BILL_OPTIONS,
} as const;

type RunValues = ReturnType<
  typeof parseCli<{ args: string[]; allowPositionals: false; options: typeof RUN_OPTIONS }>
>['values'];

export async function parseRunArgs(argvIn: string[], env: NodeJS.ProcessEnv): Promise<RunOptions | 'help'> {
  const { rest: argv, context, tools } = contextFlags(argvIn);
  const { values } = parseCli({ args: argv, allowPositionals: false, options: RUN_OPTIONS });
  if (values.help) return 'help';
  const topic = values.topic?.trim();
  if (!topic) throw new UsageError('--topic is required and must not be empty');

  const provider = values.provider ?? 'auto';
  if (provider !== 'auto' && provider !== 'scripted' && provider !== 'openai') {
    throw new UsageError(`--provider must be auto, scripted or openai, got "${provider}"`);
  }
  const order = values.order;
  if (order !== undefined && order !== 'parallel' && order !== 'sequential' && order !== 'shuffle') {
    throw new UsageError(`--order must be parallel, sequential or shuffle, got "${order}"`);
  }
  checkedBaseUrl(env, values['base-url']);
  const config = checkedConfig(configOf(values, order, tools));
  if (values.daemon && values['no-daemon']) throw new UsageError('--daemon and --no-daemon cannot be used together');
  const outDir = path.resolve(values.out ?? path.join('docs', 'roundtable'));
  // The minutes folder too, before a panel is chosen (which may probe servers); an estimate writes nothing.
  if (!values.estimate) await checkMinutesDir(outDir);
  const dataDir = checkDataDir(values['data-dir'] ?? defaultDataDir(env));
  const choice = await choosePanel({
    provider: provider,
    env,
    script: values.script !== undefined,
    ...(values.participants ? { participantsFile: values.participants } : {}),
    ...(values.model ? { model: values.model } : {}),
    ...(values.models !== undefined ? { models: parseModelsFlag(values.models) } : {}),
    ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
  });
  const participants: Participant[] = choice.participants;
  const { mode, options } = modeOf(values);
  const scriptFile = values.script ?? path.join(examplesDir(), 'demo-script.json');
  const workspace = evidenceWorkspace({
    participants,
    playsShippedScript: path.dirname(path.resolve(scriptFile)) === path.resolve(examplesDir()),
    workspace: process.cwd(),
  });
  const checked = checkStartParams({
    topic,
    mode,
    participants,
    config,
    ...(options ? { options } : {}),
    workspace,
    // --context paths are the person's, relative to where they ran the command, also when the
    // shipped demo checks its evidence in examples/ (in this process and in the daemon alike).
    ...(workspace === process.cwd() ? {} : { contextWorkspace: process.cwd() }),
    context,
  });
  if (!checked.ok) throw new UsageError(checked.error);
  return {
    params: checked.value,
    daemon: values.daemon ? 'yes' : values['no-daemon'] ? 'no' : 'auto',
    dataDir,
    outDir,
    json: values.json ?? false,
    baseURL: choice.baseURL,
    apiKey: apiKeyOf(env),
    scriptFile,
    notices: choice.notice ? [choice.notice] : [],
    demoFallback: choice.demoFallback,
    estimate: values.estimate ?? false,
  };
}

/** The meeting's settings from the flags: rounds, budget, order, limits, tools, threshold, prices. */
function configOf(
  values: RunValues,
  order: MeetingConfig['order'] | undefined,
  tools: boolean,
): Partial<MeetingConfig> {
  const config: Partial<MeetingConfig> = {};
  const maxRounds = positiveInt(values['max-rounds'], '--max-rounds');
  const budget = positiveInt(values.budget, '--budget');
  const turnTimeout = positiveInt(values['turn-timeout'], '--turn-timeout');
  const timeLimit = positiveInt(values['time-limit'], '--time-limit');
  if (maxRounds !== undefined) config.maxRounds = maxRounds;
  if (budget !== undefined) config.tokenBudget = budget;
  if (order !== undefined) config.order = order;
  if (turnTimeout !== undefined) config.turnTimeoutMs = turnTimeout * 1000;
  if (timeLimit !== undefined) config.timeLimitMs = timeLimit * 1000;
  if (tools) config.tools = true;
  if (values['no-stop-when-stable']) config.stopWhenStable = false;
  if (values.threshold !== undefined) {
    const t = Number(values.threshold);
    if (!(t > 0 && t <= 1))
      throw new UsageError(`--threshold must be a number above 0 and at most 1, got "${values.threshold}"`);
    config.consensusThreshold = t;
  }
  return Object.assign(config, billingConfig(values));
}

/** `--mode` and its `--option`s: two options alike would split the votes between them. */
function modeOf(values: RunValues): { mode: 'roundtable' | 'consensus'; options: string[] | undefined } {
  const mode = values.mode ?? 'roundtable';
  if (mode !== 'roundtable' && mode !== 'consensus')
    throw new UsageError(`--mode must be roundtable or consensus, got "${mode}"`);
  if (values.option && mode !== 'consensus') throw new UsageError('--option is for --mode consensus');
  const options = values.option?.map((o) => o.trim());
  const seen = new Set<string>();
  for (const o of options ?? []) {
    if (!o) throw new UsageError('--option must not be empty');
    if (seen.has(o.toLowerCase())) throw new UsageError(`--option "${o}" is given twice: every option must differ`);
    seen.add(o.toLowerCase());
  }
  return { mode, options };
}

/** Checks everything the panel needs before a meeting starts; fails early with one clear line. */
export async function preflight(
  opts: Pick<RunOptions, 'params' | 'scriptFile' | 'baseURL' | 'apiKey'>,
): Promise<{ script?: Script }> {
  // An unknown kind is refused here, in one line, before anything else is asked.
  let needs: Set<string>;
  try {
    needs = new Set(opts.params.participants.map((p) => providerEntry(p.provider).needs));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const out: { script?: Script } = {};
  if (needs.has('script')) {
    try {
      out.script = loadScript(opts.scriptFile);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  if (needs.has('daemon')) {
    throw new UsageError(
      'vscode-lm and attached participants are answered through the daemon by VS Code or an attached agent: start the meeting from the extension',
    );
  }
  const problems = await preflightPanel(opts.params.participants, {
    baseUrl: opts.baseURL,
    listModels,
    ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
  });
  // One line each (main prefixes the first with "roundtable: ").
  if (problems.length > 0) throw new NoModelError(problems.join('\nroundtable: '));
  return out;
}

export async function runCommand(argv: string[], io: RunIO): Promise<number> {
  const opts = await parseRunArgs(argv, io.env);
  if (opts === 'help') {
    io.stdout.write(`${RUN_USAGE}\n`);
    return 0;
  }
  // Before the preflight: no server is asked, no meeting opened, nothing written.
  if (opts.estimate) return printEstimate(opts.params, opts.json, io.stdout);
  const { script } = await preflight(opts);
  const canned = ignoresTopic({ ...opts.params, providers: script ? { script } : {} });
  const notices = [...opts.notices, ...(canned ? [`${CANNED_NOTE}.${opts.demoFallback ? ` ${DEMO_HINT}` : ''}`] : [])];
  for (const line of notices) io.stderr.write(`roundtable: ${line}\n`);
  const roomOut = opts.json ? io.stderr : io.stdout;
  const printer = new RoomPrinter(roomOut, io.isTTY && !opts.json);
  if (opts.daemon !== 'no') {
    let found = await findDaemon(opts.dataDir);
    if (!found && opts.daemon === 'yes') found = await spawnDaemon({ dataDir: opts.dataDir });
    if (found) return runMeeting(opts, await daemonCore(found), script, printer, io, roomOut);
  }
  // In this process: its log on disk even without a daemon, as a consensus meeting may pause for
  // the human and minutes that cannot be written can be rendered again (`roundtable minutes <id>`).
  return runMeeting(opts, await runDirCore(opts.dataDir, newMeetingId(), io), script, printer, io, roomOut);
}
