/**
 * The "Start Roundtable" flow: topic, mode and options asked for step by step, the panel and
 * limits taken from the settings, and the meeting started and followed.
 */
import * as vscode from 'vscode';
import type { MeetingConfig, Participant, StartMeetingParams } from '../../protocol/src';
import { checkPanel } from '../../protocol/src';
import type { DaemonLink } from './daemonLink';
import { workspaceRoot } from './outputs';
import { attachedLabel, withDecisions } from './discuss';
import type { ContextRequest } from '../../protocol/src';
import { RoomViewProvider } from './roomView';

export const API_KEY_SECRET = 'roundtable.apiKey';

/** The default panel: scripted, so a first meeting needs no key and no server. */
const DEFAULT_PANEL: Participant[] = [
  { name: 'sam', role: 'assistant', provider: 'scripted', model: 'scripted' },
  { name: 'jude', role: 'judge', provider: 'scripted', model: 'scripted' },
  {
    name: 'ada',
    role: 'worker',
    provider: 'scripted',
    model: 'scripted',
    persona: 'Platform engineer: build speed and tooling.',
  },
  {
    name: 'grace',
    role: 'worker',
    provider: 'scripted',
    model: 'scripted',
    persona: 'Team lead: ownership and release independence.',
  },
  {
    name: 'linus',
    role: 'worker',
    provider: 'scripted',
    model: 'scripted',
    persona: 'Security engineer: access control and blast radius.',
  },
];

function settings() {
  const c = vscode.workspace.getConfiguration('roundtable');
  return {
    participants: c.get<unknown[]>('participants') ?? [],
    baseUrl: c.get<string>('providerBaseUrl')?.trim() ?? '',
    maxRounds: c.get<number>('maxRounds') ?? 10,
    tokenBudget: c.get<number>('tokenBudget') ?? 15_000,
    order: c.get<MeetingConfig['order']>('speakingOrder') ?? 'parallel',
  };
}

/** The configured panel, or the defaults; a broken setting is reported, not guessed around. */
function panelFromSettings(): { panel: Participant[]; source: string } {
  const configured = settings().participants;
  if (configured.length === 0) return { panel: DEFAULT_PANEL, source: 'default scripted panel' };
  const checked = checkPanel(configured);
  if (!checked.ok)
    throw new Error(
      `roundtable.participants is invalid: ${checked.error}. Fix it with "Roundtable: Configure Participants".`,
    );
  return { panel: checked.value, source: 'roundtable.participants' };
}

export async function startFlow(
  context: vscode.ExtensionContext,
  link: DaemonLink,
  log: vscode.LogOutputChannel,
  follow: (meetingId: string, opts: { restored: boolean }) => Promise<void>,
  /** Context picked with "Discuss in Roundtable" (issue 16). */
  attach?: ContextRequest,
): Promise<void> {
  const topic = await vscode.window.showInputBox({
    title: `Start Roundtable (1/3)${attach ? `: discussing ${attachedLabel(attach)}` : ''}`,
    prompt: 'What should the room decide or discuss?',
    placeHolder: 'Should we move the billing service to PostgreSQL?',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'The topic must not be empty'),
  });
  if (!topic?.trim()) return;
  const mode = await vscode.window.showQuickPick(
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
    { title: 'Start Roundtable (2/3): mode', ignoreFocusOut: true },
  );
  if (!mode) return;
  const options: string[] = [];
  if (mode.mode === 'consensus') {
    for (;;) {
      const o = await vscode.window.showInputBox({
        title: `Option ${options.length + 1}`,
        prompt:
          options.length < 2
            ? 'An option to vote on (leave empty to let the workers propose options)'
            : 'Another option (leave empty when done)',
        ignoreFocusOut: true,
      });
      if (o === undefined) return;
      if (!o.trim()) break;
      options.push(o.trim());
    }
    if (options.length === 1)
      throw new Error('A consensus needs at least two options, or none so the workers propose them.');
  }
  const { panel, source } = panelFromSettings();
  const cfg = settings();
  const config: Partial<MeetingConfig> = { maxRounds: cfg.maxRounds, tokenBudget: cfg.tokenBudget, order: cfg.order };
  const go = await vscode.window.showQuickPick(
    [
      {
        label: '$(play) Start',
        description: `${panel.filter((p) => p.role === 'worker').length} workers (${source}) · ${cfg.maxRounds} rounds · ${cfg.tokenBudget.toLocaleString('en-US')} tokens`,
        start: true,
      },
      { label: '$(settings) Change rounds and budget…', start: false },
    ],
    { title: 'Start Roundtable (3/3)', ignoreFocusOut: true },
  );
  if (!go) return;
  if (!go.start) {
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
    if (!rounds || !budget) return;
    config.maxRounds = Number(rounds);
    config.tokenBudget = Number(budget);
  }
  const apiKey = panel.some((p) => p.provider === 'openai') ? await context.secrets.get(API_KEY_SECRET) : undefined;
  const params: StartMeetingParams = {
    topic: topic.trim(),
    mode: mode.mode,
    participants: panel,
    config,
    ...(options.length ? { options } : {}),
    ...(cfg.baseUrl ? { providers: { baseURL: cfg.baseUrl } } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(workspaceRoot() ? { workspace: (workspaceRoot() as vscode.Uri).fsPath, context: withDecisions(attach) } : {}),
  };
  const { meetingId } = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Roundtable: starting the meeting…' },
    () => link.request('meeting/start', params),
  );
  log.info(`meeting ${meetingId} started: ${params.topic}`);
  await follow(meetingId, { restored: false });
  await vscode.commands.executeCommand(`${RoomViewProvider.viewId}.focus`);
}
