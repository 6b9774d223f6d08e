/**
 * The "Start Roundtable" flow: the panel first (the configured one, or one proposed from the
 * user's models) and its preflight, then topic, mode and options asked for step by step, the
 * limits taken from the settings, and the meeting started and followed.
 */
import * as vscode from 'vscode';
import type {
  ContextRequest,
  MeetingConfig,
  Participant,
  ReviewRequest,
  StartMeetingParams,
} from '@roundtable/protocol';
import { DEFAULT_WORKER_COUNT, DEMO_TOPIC } from '@roundtable/protocol';
import { billingConfig } from './billingSettings';
import type { DaemonLink } from './daemonLink';
import { DEMO_NOTICE } from './demo';
import { estimateLine } from './estimate';
import { modelSourceFor } from './modelSource';
import { choosePanel, type ChosenPanel } from './panelChoice';
import { describePanel, pickerText, savePanel } from './panelPicker';
import { workspaceRoot } from './workspaceFolders';
import { attachedLabel, pickContext, withDecisions } from './discuss';
import { RoomViewProvider } from './roomView';
import { stopWhenStableConfig, toolsConfig } from './toolsSetting';

export const API_KEY_SECRET = 'roundtable.apiKey';

/** The start settings of `roundtable.*`: the panel, the server, the limits, billing and tools. */
export function startSettings() {
  const c = vscode.workspace.getConfiguration('roundtable');
  return {
    participants: c.get<unknown[]>('participants') ?? [],
    baseUrl: c.get<string>('providerBaseUrl')?.trim() ?? '',
    maxRounds: c.get<number>('maxRounds') ?? 10,
    tokenBudget: c.get<number>('tokenBudget') ?? 15_000,
    order: c.get<MeetingConfig['order']>('speakingOrder') ?? 'parallel',
    workers: c.get<number>('workers') ?? DEFAULT_WORKER_COUNT,
    billing: billingConfig({ prices: c.get<unknown>('prices'), budgetBasis: c.get<unknown>('budgetBasis') }),
    tools: toolsConfig(c.get<unknown>('tools')),
    stable: stopWhenStableConfig(c.get<unknown>('stopWhenStable')),
  };
}
export type StartSettings = ReturnType<typeof startSettings>;

/** The meeting's limits from the settings (the start step may change rounds and budget). */
export function meetingConfig(cfg: StartSettings): Partial<MeetingConfig> {
  return {
    maxRounds: cfg.maxRounds,
    tokenBudget: cfg.tokenBudget,
    order: cfg.order,
    ...cfg.billing,
    ...cfg.tools,
    ...cfg.stable,
  };
}

/**
 * The `meeting/start` params of a chosen panel: one definition for the start flow and every
 * other way a meeting is convened from VS Code (the language model tool, `@roundtable`).
 */
export function meetingParams(o: {
  topic: string;
  mode: StartMeetingParams['mode'];
  options: readonly string[];
  panel: Participant[];
  cfg: StartSettings;
  config: Partial<MeetingConfig>;
  storedKey: string | undefined;
  attach: ContextRequest | undefined;
  /** A review of a change: the daemon reads the change and the decision records itself (no context). */
  review?: ReviewRequest;
}): StartMeetingParams {
  const apiKey = o.panel.some((p) => p.provider === 'openai') ? o.storedKey : undefined;
  const root = workspaceRoot();
  return {
    topic: o.topic.trim(),
    mode: o.mode,
    participants: o.panel,
    config: o.config,
    ...(o.options.length ? { options: [...o.options] } : {}),
    ...(o.cfg.baseUrl ? { providers: { baseURL: o.cfg.baseUrl } } : {}),
    ...(apiKey ? { apiKey } : {}),
    // Every start from a workspace briefs the room with the decisions folder (issue 16).
    ...(root
      ? { workspace: root.fsPath, ...(o.review ? { review: o.review } : { context: withDecisions(o.attach) }) }
      : {}),
  };
}

/**
 * The settings, the stored key and the panel as "Start Roundtable" chooses them (`chosen`
 * undefined: the person cancelled, or a problem was shown). One first step for every start.
 */
export async function settingsAndPanel(context: vscode.ExtensionContext, log: vscode.LogOutputChannel) {
  const cfg = startSettings();
  // Read without prompting; only sent to the daemon when an openai participant needs it.
  const storedKey = await context.secrets.get(API_KEY_SECRET);
  const chosen = await choosePanel({ settings: cfg, apiKey: storedKey, models: modelSourceFor(context, log), log });
  return { cfg, storedKey, chosen };
}

export async function startFlow(
  context: vscode.ExtensionContext,
  link: DaemonLink,
  log: vscode.LogOutputChannel,
  follow: (meetingId: string, opts: { restored: boolean }) => Promise<void>,
  /** Context picked with "Discuss in Roundtable" (issue 16). */
  attach?: ContextRequest,
): Promise<void> {
  const { cfg, storedKey, chosen } = await settingsAndPanel(context, log);
  if (!chosen) return;
  const { panel, source } = chosen;
  log.info(`panel (${source}): ${describePanel(panel)}`);
  const topic = await askTopic(chosen, attach);
  if (!topic?.trim()) return;
  const mode = await askMode(chosen);
  if (!mode) return;
  const options = mode.mode === 'consensus' ? await askOptions() : [];
  if (!options) return;
  // What the panel reads: chosen already with "Discuss in Roundtable"; the demo's replies ignore it.
  if (!attach && !chosen.demo && workspaceRoot()) {
    attach = await pickContext();
    if (!attach) return;
  }
  const config = meetingConfig(cfg);
  const summary = `${panel.filter((p) => p.role === 'worker').length} workers (${source}) · ${cfg.maxRounds} rounds · ${cfg.tokenBudget.toLocaleString('en-US')} tokens${cfg.tools.tools ? ' · workspace tools on' : ''}`;
  const paramsWith = (c: Partial<MeetingConfig>): StartMeetingParams =>
    meetingParams({ topic, mode: mode.mode, options, panel, cfg, config: c, storedKey, attach });
  // The expected bill before the user confirms, so nobody is surprised by it.
  // The estimate keeps what it read, so the start sends neither the topic nor the context again.
  const { line, startToken } = await estimateLine(link, paramsWith(config));
  const go = await askGo(chosen, summary, line);
  if (!go) return;
  if (go.save) await savePanelAndSay(panel);
  if (!go.start && !(await askLimits(cfg, config))) return;
  await startAndFollow(link, log, paramsWith(config), follow, startToken);
}

/** The topic: the demo's replies are canned and about one topic, so it runs on that, never on the user's. */
async function askTopic(chosen: ChosenPanel, attach: ContextRequest | undefined): Promise<string | undefined> {
  if (chosen.demo) return DEMO_TOPIC;
  return vscode.window.showInputBox({
    title: `Start Roundtable: topic${attach ? ` (discussing ${attachedLabel(attach)})` : ''}`,
    prompt: 'What should the room decide or discuss?',
    placeHolder: 'Should we move the billing service to PostgreSQL?',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'The topic must not be empty'),
  });
}

function askMode(chosen: ChosenPanel) {
  return vscode.window.showQuickPick(
    [
      {
        label: 'Roundtable',
        description: 'workers discuss in rounds until they agree or run out of rounds',
        mode: 'roundtable' as const,
      },
      {
        label: 'Consensus',
        description: 'workers vote on explicit options, with evidence',
        mode: 'consensus' as const,
      },
    ],
    { title: chosen.demo ? `${DEMO_NOTICE}: mode` : 'Start Roundtable: mode', ignoreFocusOut: true },
  );
}

/** A consensus's options, one by one: none (the workers propose them) or at least two; undefined if cancelled. */
async function askOptions(): Promise<string[] | undefined> {
  const options: string[] = [];
  for (;;) {
    const o = await vscode.window.showInputBox({
      title: `Option ${options.length + 1}`,
      prompt:
        options.length < 2
          ? 'An option to vote on (leave empty to let the workers propose options)'
          : 'Another option (leave empty when done)',
      ignoreFocusOut: true,
    });
    if (o === undefined) return undefined;
    if (!o.trim()) break;
    options.push(o.trim());
  }
  if (options.length === 1)
    throw new Error('A consensus needs at least two options, or none so the workers propose them.');
  return options;
}

/** The last step: start, save the proposed panel and start, or change rounds and budget first. */
function askGo(chosen: ChosenPanel, summary: string, estimate: string | undefined) {
  const { panel } = chosen;
  return vscode.window.showQuickPick(
    [
      {
        label: '$(play) Start',
        description: summary,
        // Who sits where, so the judge and assistant the proposal chose are not a surprise.
        ...(chosen.unsaved || estimate
          ? {
              detail: [estimate, chosen.unsaved ? pickerText(describePanel(panel)) : undefined]
                .filter(Boolean)
                .join(' · '),
            }
          : {}),
        start: true,
        save: false,
      },
      ...(chosen.unsaved
        ? [
            {
              label: '$(save) Save as my panel, then start',
              description: 'writes roundtable.participants in your user settings',
              start: true,
              save: true,
            },
          ]
        : []),
      { label: '$(settings) Change rounds and budget…', start: false, save: false },
    ],
    {
      title: chosen.demo ? `${DEMO_NOTICE}: "${DEMO_TOPIC}"` : 'Start Roundtable: start',
      ignoreFocusOut: true,
    },
  );
}

async function savePanelAndSay(panel: Participant[]): Promise<void> {
  const target = await savePanel(panel);
  void vscode.window.showInformationMessage(
    `Roundtable: panel saved as roundtable.participants in your ${target === vscode.ConfigurationTarget.Global ? 'user' : 'workspace'} settings.`,
  );
}

/** Rounds and budget for this meeting, into `config`; false if either was cancelled. */
async function askLimits(cfg: StartSettings, config: Partial<MeetingConfig>): Promise<boolean> {
  const rounds = await vscode.window.showInputBox({
    prompt: 'Maximum rounds',
    value: String(cfg.maxRounds),
    validateInput: (v) => (/^\d+$/.test(v) && Number(v) > 0 ? undefined : 'A positive whole number'),
  });
  const budget = await vscode.window.showInputBox({
    prompt: 'Token budget',
    value: String(cfg.tokenBudget),
    validateInput: (v) => (/^\d+$/.test(v) && Number(v) > 0 ? undefined : 'A positive whole number'),
  });
  if (!rounds || !budget) return false;
  config.maxRounds = Number(rounds);
  config.tokenBudget = Number(budget);
  return true;
}

/** Starts the meeting (with a progress notification), follows it, and shows the room. */
export async function startAndFollow(
  link: DaemonLink,
  log: vscode.LogOutputChannel,
  params: StartMeetingParams,
  follow: (meetingId: string, opts: { restored: boolean }) => Promise<void>,
  /** From the estimate of these params (rounds and budget may have changed since). */
  startToken?: string,
): Promise<void> {
  const meetingId = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Roundtable: starting the meeting…' },
    () => link.start(params, startToken),
  );
  log.info(`meeting ${meetingId} started: ${params.topic}`);
  await follow(meetingId, { restored: false });
  await vscode.commands.executeCommand(`${RoomViewProvider.viewId}.focus`);
}
