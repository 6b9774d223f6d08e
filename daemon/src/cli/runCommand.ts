/**
 * `roundtable run`: one meeting from the terminal. Streams the room, writes the minutes, prints
 * the digest (or one JSON object with --json). Bad input exits 2 with one clear line.
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { MeetingConfig, MeetingEvent, MeetingState, Participant, StartMeetingParams } from '../../../protocol/src';
import { checkStartParams } from '../../../protocol/src';
import { systemClock } from '../meeting/clock';
import { Meeting } from '../meeting/engine';
import { writeMinutes } from '../meeting/minutes';
import { loadPanel } from '../panel';
import { OpenAIProvider, probeOpenAIServer } from '../providers/openai';
import { ScriptedProvider, loadScript } from '../providers/scripted';
import type { ChatProvider } from '../providers/types';
import { MemoryStore } from '../store/memoryStore';
import { UsageError, examplesDir } from './common';
import { RoomPrinter } from './printer';

export const RUN_USAGE = `Usage: roundtable run --topic "<text>" [options]

  --topic TEXT            the question the room discusses (required)
  --participants FILE     panel JSON (default: the demo panel)
  --provider NAME         scripted | openai: answer for every participant with this provider
  --base-url URL          OpenAI-compatible server (default $ROUNDTABLE_BASE_URL or https://api.openai.com/v1)
  --model NAME            model for every participant (with --provider openai)
  --script FILE           replies for the scripted provider (default: the demo script)
  --max-rounds N          default 10
  --budget N              token budget for everything spoken (default 15000)
  --order ORDER           parallel | sequential | shuffle (default parallel)
  --turn-timeout SECONDS  per-agent timeout (default 60)
  --time-limit SECONDS    whole-meeting limit (default 600)
  --out DIR               minutes folder (default docs/roundtable)
  --json                  print one JSON object at the end instead of the room
  -h, --help              show this help

The API key for --provider openai is read from ROUNDTABLE_API_KEY or OPENAI_API_KEY; it is never written anywhere.`;

interface RunOptions {
  params: StartMeetingParams;
  outDir: string;
  json: boolean;
  baseURL: string;
  apiKey: string | undefined;
  scriptFile: string;
}

function positiveInt(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim()) || Number(v) <= 0 || !Number.isSafeInteger(Number(v))) {
    throw new UsageError(`${flag} must be a positive integer, got "${v}"`);
  }
  return Number(v);
}

export function parseRunArgs(argv: string[], env: NodeJS.ProcessEnv): RunOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        topic: { type: 'string' },
        participants: { type: 'string' },
        provider: { type: 'string' },
        'base-url': { type: 'string' },
        model: { type: 'string' },
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
      },
    }));
  } catch (e) {
    // parseArgs' messages are already one clear line ("Unknown option '--foo'").
    throw new UsageError((e as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  if (values.help) return 'help';
  const topic = values.topic?.trim();
  if (!topic) throw new UsageError('--topic is required and must not be empty');

  const provider = values.provider;
  if (provider !== undefined && provider !== 'scripted' && provider !== 'openai') {
    throw new UsageError(`--provider must be scripted or openai, got "${provider}"`);
  }
  const order = values.order;
  if (order !== undefined && order !== 'parallel' && order !== 'sequential' && order !== 'shuffle') {
    throw new UsageError(`--order must be parallel, sequential or shuffle, got "${order}"`);
  }
  const baseURL = values['base-url'] ?? env.ROUNDTABLE_BASE_URL ?? 'https://api.openai.com/v1';
  if (!/^https?:\/\/[^\s]+$/.test(baseURL)) throw new UsageError(`--base-url must be an http(s) URL, got "${baseURL}"`);

  let participants: Participant[];
  try {
    participants = loadPanel(values.participants ?? path.join(examplesDir(), 'demo-panel.json'));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (provider) participants = participants.map((p) => ({ ...p, provider }));
  if (values.model) participants = participants.map((p) => ({ ...p, model: values.model as string }));
  if (provider === 'openai' && !values.model && participants.some((p) => p.model === 'scripted')) {
    throw new UsageError('--provider openai needs --model NAME (or a participants file that names each model)');
  }

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

  const checked = checkStartParams({ topic, mode: 'roundtable', participants, config });
  if (!checked.ok) throw new UsageError(checked.error);

  const scriptFile = values.script ?? path.join(examplesDir(), 'demo-script.json');
  return {
    params: checked.value,
    outDir: path.resolve(values.out ?? path.join('docs', 'roundtable')),
    json: values.json ?? false,
    baseURL,
    apiKey: env.ROUNDTABLE_API_KEY ?? env.OPENAI_API_KEY,
    scriptFile,
  };
}

/** Builds the provider lookup for a panel; fails early with a clear message. */
export async function providersFor(opts: RunOptions): Promise<(p: Participant) => ChatProvider> {
  const kinds = new Set(opts.params.participants.map((p) => p.provider));
  let scripted: ScriptedProvider | undefined;
  let openai: OpenAIProvider | undefined;
  if (kinds.has('scripted')) {
    try {
      scripted = new ScriptedProvider(loadScript(opts.scriptFile));
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  if (kinds.has('openai')) {
    try {
      await probeOpenAIServer(opts.baseURL, opts.apiKey);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    openai = new OpenAIProvider({ baseURL: opts.baseURL, ...(opts.apiKey ? { apiKey: opts.apiKey } : {}) });
  }
  if (kinds.has('vscode-lm')) {
    throw new UsageError('vscode-lm participants are answered by VS Code: start the meeting from the Roundtable extension');
  }
  return (p) => {
    const provider = p.provider === 'scripted' ? scripted : openai;
    if (!provider) throw new Error(`no provider for ${p.name}`);
    return provider;
  };
}

export interface RunSummary {
  meetingId: string;
  terminatedBy: string;
  detail?: string;
  consensus: string;
  rounds: number;
  tokens: { spoken: number; budget: number; prompt: number; completion: number };
  minutesPath: string;
  digest: string;
}

export function summarize(s: MeetingState, minutesPath: string): RunSummary {
  const prompt = Object.values(s.usageByParticipant).reduce((n, u) => n + u.promptTokens, 0);
  const completion = Object.values(s.usageByParticipant).reduce((n, u) => n + u.completionTokens, 0);
  return {
    meetingId: s.meetingId,
    terminatedBy: s.closed?.reason ?? 'error',
    ...(s.closed?.detail ? { detail: s.closed.detail } : {}),
    consensus: s.digest?.digest.consensus ?? 'NONE',
    rounds: s.rounds.length,
    tokens: { spoken: s.spokenTokens, budget: s.config.tokenBudget, prompt, completion },
    minutesPath,
    digest: s.digest?.text ?? '',
  };
}

export function newMeetingId(now = Date.now()): string {
  const rand = Math.floor(Math.random() * 36 ** 6)
    .toString(36)
    .padStart(6, '0');
  return `m-${now.toString(36)}-${rand}`;
}

export async function runCommand(argv: string[], io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv; isTTY: boolean }): Promise<number> {
  const opts = parseRunArgs(argv, io.env);
  if (opts === 'help') {
    io.stdout.write(`${RUN_USAGE}\n`);
    return 0;
  }
  const providerFor = await providersFor(opts);
  const store = new MemoryStore();
  const roomOut = opts.json ? io.stderr : io.stdout;
  const printer = new RoomPrinter(roomOut, io.isTTY && !opts.json);
  const meeting = await Meeting.open(
    { store, providerFor, clock: systemClock, onEvent: (e: MeetingEvent) => printer.event(e) },
    newMeetingId(),
    opts.params,
  );
  printer.event((await store.load(meeting.id))[0] as MeetingEvent);
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts++;
    if (interrupts === 1) {
      roomOut.write('\nCutting the meeting (Ctrl-C again to quit without minutes)…\n');
      meeting.cut('cut', 'interrupted from the terminal');
    } else process.exit(130);
  };
  process.on('SIGINT', onSigint);
  try {
    const state = await meeting.run();
    const minutesPath = await writeMinutes(opts.outDir, await store.load(meeting.id));
    const summary = summarize(state, minutesPath);
    if (opts.json) io.stdout.write(`${JSON.stringify(summary)}\n`);
    else printer.finish(summary);
    return state.closed?.reason === 'error' ? 1 : 0;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
