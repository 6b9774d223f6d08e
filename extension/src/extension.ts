/**
 * Roundtable in VS Code: commands, the room view, the digest review, the status bar, and the
 * daemon link. Everything a meeting leaves in the workspace is written here.
 */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type {
  DecisionKind,
  MeetingConfig,
  MeetingEvent,
  MeetingState,
  Participant,
  StartMeetingParams,
} from '../../protocol/src';
import { checkPanel, currentRound, fold } from '../../protocol/src';
import { DaemonLink, dataDir } from './daemonLink';
import { DigestPanel, type ReviewActions } from './digestPanel';
import { LmBridge } from './lmBridge';
import { stageInGit, workspaceRoot, writeDecisionRecord, writeMinutesFile } from './outputs';
import { RoomViewProvider } from './roomView';

const API_KEY_SECRET = 'roundtable.apiKey';

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

/** What activate() returns: used by the extension-host tests, not a public API. */
export interface RoundtableApi {
  startMeeting(params: StartMeetingParams): Promise<string>;
  state(meetingId: string): MeetingState;
  roomResolved(): boolean;
  daemonPid(): Promise<number | undefined>;
  link: DaemonLink;
}

export function activate(context: vscode.ExtensionContext): RoundtableApi {
  const log = vscode.window.createOutputChannel('Roundtable', { log: true });
  const link = new DaemonLink(context.extensionPath, log);
  const lm = new LmBridge(link, log);
  // Where each meeting's minutes were written, kept across reloads so they are updated in place.
  const minutesFiles = new Map<string, vscode.Uri>(
    Object.entries(context.workspaceState.get<Record<string, string>>('roundtable.minutesFiles') ?? {}).map(
      ([k, v]) => [k, vscode.Uri.parse(v)],
    ),
  );
  const reviewed = new Set<string>();
  let activeMeeting: string | undefined;
  /** Per meeting, the last seq whose minutes and review were already handled (before a reload). */
  const handledUpTo = new Map<string, number>();

  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  status.command = 'roundtable.focusRoom';
  const updateStatus = (): void => {
    const events = activeMeeting ? link.logs.get(activeMeeting) : undefined;
    if (!events || events.length === 0) {
      status.hide();
      return;
    }
    const s = fold(events);
    const pct = Math.round((s.spokenTokens / s.config.tokenBudget) * 100);
    const what =
      s.status === 'closed'
        ? `closed (${s.closed?.reason ?? '?'})`
        : s.status === 'awaiting_human'
          ? 'needs you'
          : `R${currentRound(s)?.round ?? 0}/${s.config.maxRounds}`;
    status.text = `$(comment-discussion) Roundtable: ${what} · ${pct}%`;
    status.tooltip = `${s.topic}\nClick to show the room`;
    status.show();
  };

  const post = async (text: string): Promise<void> => {
    if (!activeMeeting) throw new Error('No meeting is running: start one with "Roundtable: Start Roundtable".');
    await link.request('room/post', { meetingId: activeMeeting, text });
  };
  const cut = async (reason?: string): Promise<void> => {
    if (!activeMeeting) throw new Error('No meeting is running.');
    await link.request('meeting/cut', { meetingId: activeMeeting, ...(reason ? { reason } : {}) });
  };

  const saveMinutes = async (meetingId: string): Promise<vscode.Uri | undefined> => {
    const rendered = await link.request('meeting/render', { meetingId });
    const file = await writeMinutesFile(rendered, minutesFiles.get(meetingId));
    if (file) {
      minutesFiles.set(meetingId, file);
      await context.workspaceState.update(
        'roundtable.minutesFiles',
        Object.fromEntries([...minutesFiles].map(([k, v]) => [k, v.toString()])),
      );
      log.info(`minutes written to ${vscode.workspace.asRelativePath(file)}`);
    }
    return file;
  };

  const actions: ReviewActions = {
    decide: async (meetingId: string, decision: DecisionKind, digestText: string, instruction?: string) => {
      await link.request('meeting/decide', {
        meetingId,
        decision,
        digestText,
        ...(instruction ? { instruction } : {}),
      });
      await waitFor(meetingId, (e) => e.type === 'decision_recorded');
      if (decision === 'another_round') {
        void vscode.window.showInformationMessage('Another round is running; the review opens again when it ends.');
        return;
      }
      const minutes = await saveMinutes(meetingId);
      const written: vscode.Uri[] = minutes ? [minutes] : [];
      if (decision === 'accepted' && minutes) {
        const s = fold(link.logs.get(meetingId) ?? []);
        const record = await writeDecisionRecord(s, digestText, minutes);
        if (record) written.push(record);
      }
      const staged = written.length > 0 && (await stageInGit(written, log));
      for (const f of written) await vscode.window.showTextDocument(f, { preview: false });
      void vscode.window.showInformationMessage(
        `Decision ${decision}: ${written.map((f) => vscode.workspace.asRelativePath(f)).join(' and ')} written${staged ? ' and staged in git' : ''}.`,
      );
    },
    resolve: async (meetingId, action, opts) => {
      await link.request('meeting/resolve', { meetingId, action, ...opts });
    },
  };

  const review = (meetingId?: string): Promise<void> => {
    const id = meetingId ?? activeMeeting;
    if (!id) return Promise.reject(new Error('No meeting to review.'));
    DigestPanel.show(context.extensionUri, link, id, actions, log);
    return Promise.resolve();
  };

  /** Resolves once the meeting's log holds an event matching `pred` (it may already). */
  function waitFor(meetingId: string, pred: (e: MeetingEvent) => boolean): Promise<void> {
    if ((link.logs.get(meetingId) ?? []).some(pred)) return Promise.resolve();
    return new Promise((resolve) => {
      const d = link.onEvent((e) => {
        if (e.meetingId === meetingId && pred(e)) {
          d.dispose();
          resolve();
        }
      });
    });
  }

  const room = new RoomViewProvider(context.extensionUri, link, log, { post, cut, review });

  /**
   * Shows a meeting in the room and the status bar, remembered across window reloads. After a
   * reload the log is fetched again: what was already there is not reviewed a second time.
   */
  const follow = async (meetingId: string, opts: { restored: boolean }): Promise<void> => {
    activeMeeting = meetingId;
    await context.workspaceState.update('roundtable.activeMeeting', meetingId);
    room.show(meetingId);
    const lastSeq = await link.subscribe(meetingId);
    if (opts.restored) handledUpTo.set(meetingId, lastSeq);
    updateStatus();
  };
  const remembered = context.workspaceState.get<string>('roundtable.activeMeeting');
  if (remembered) {
    void follow(remembered, { restored: true }).catch((e: unknown) =>
      log.warn(`could not follow ${remembered} after a reload: ${(e as Error).message}`),
    );
  }

  context.subscriptions.push(
    log,
    link,
    lm,
    status,
    room,
    vscode.window.registerWebviewViewProvider(RoomViewProvider.viewId, room),
    link.onEvent((e) => {
      if (e.meetingId !== activeMeeting) return;
      updateStatus();
      if (e.seq <= (handledUpTo.get(e.meetingId) ?? 0)) return;
      // Minutes are always saved, and the review opens, when a meeting closes or needs the human.
      if ((e.type === 'digest_ready' || e.type === 'escalated') && !reviewed.has(`${e.meetingId}:${e.seq}`)) {
        reviewed.add(`${e.meetingId}:${e.seq}`);
        void (async () => {
          // At an escalation the report (Status: blocked: votes, matrix, conflicts) is written and
          // opened beside the review, so the human decides with it; resolving rewrites the same file.
          const file = await saveMinutes(e.meetingId);
          if (e.type === 'escalated' && file)
            await vscode.window.showTextDocument(file, { preview: false, viewColumn: vscode.ViewColumn.Beside });
          await review(e.meetingId);
        })().catch((err: unknown) => showError(log, err));
      }
    }),
    link.onConnected(
      () =>
        void lm.register().catch((e: unknown) => log.warn(`vscode-lm bridge not available: ${(e as Error).message}`)),
    ),
    vscode.commands.registerCommand('roundtable.start', () => startFlow().catch((e: unknown) => showError(log, e))),
    vscode.commands.registerCommand('roundtable.cut', () => cut().catch((e: unknown) => showError(log, e))),
    vscode.commands.registerCommand('roundtable.post', async () => {
      const text = await vscode.window.showInputBox({
        prompt: 'Post to the room (workers see it next round, as yours)',
      });
      if (text?.trim()) await post(text).catch((e: unknown) => showError(log, e));
    }),
    vscode.commands.registerCommand('roundtable.reviewDigest', () => review().catch((e: unknown) => showError(log, e))),
    vscode.commands.registerCommand('roundtable.openMinutes', async () => {
      const file = activeMeeting ? minutesFiles.get(activeMeeting) : undefined;
      if (file) {
        await vscode.window.showTextDocument(file);
        return;
      }
      const root = workspaceRoot();
      const folder = vscode.workspace.getConfiguration('roundtable').get<string>('minutesFolder') ?? 'docs/roundtable';
      if (!root) return void vscode.window.showWarningMessage('Open a folder to keep Roundtable minutes in it.');
      const picked = await vscode.window.showOpenDialog({
        defaultUri: vscode.Uri.joinPath(root, folder),
        filters: { Minutes: ['md'] },
      });
      if (picked?.[0]) await vscode.window.showTextDocument(picked[0]);
    }),
    vscode.commands.registerCommand('roundtable.setApiKey', async () => {
      const key = await vscode.window.showInputBox({
        prompt:
          "API key for the OpenAI-compatible server (kept in VS Code's secret storage, never written to disk in the clear)",
        password: true,
        ignoreFocusOut: true,
      });
      if (key === undefined) return;
      if (key.trim() === '') await context.secrets.delete(API_KEY_SECRET);
      else await context.secrets.store(API_KEY_SECRET, key.trim());
      void vscode.window.showInformationMessage(
        key.trim() ? 'Roundtable API key saved.' : 'Roundtable API key removed.',
      );
    }),
    vscode.commands.registerCommand('roundtable.configureParticipants', async () => {
      await vscode.commands.executeCommand('workbench.action.openSettingsJson', {
        revealSetting: { key: 'roundtable.participants', edit: true },
      });
    }),
    vscode.commands.registerCommand('roundtable.focusRoom', () =>
      vscode.commands.executeCommand(`${RoomViewProvider.viewId}.focus`),
    ),
    vscode.commands.registerCommand('roundtable.showLog', () => log.show()),
  );

  async function startFlow(): Promise<void> {
    const topic = await vscode.window.showInputBox({
      title: 'Start Roundtable (1/3)',
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
      ...(workspaceRoot() ? { workspace: (workspaceRoot() as vscode.Uri).fsPath } : {}),
    };
    const { meetingId } = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Roundtable: starting the meeting…' },
      () => link.request('meeting/start', params),
    );
    log.info(`meeting ${meetingId} started: ${params.topic}`);
    await follow(meetingId, { restored: false });
    await vscode.commands.executeCommand(`${RoomViewProvider.viewId}.focus`);
  }

  try {
    registerMcpServer(context, log);
  } catch (e) {
    // Even reading a proposed API can throw on some versions; Roundtable works without it.
    log.info(`MCP server registration skipped: ${(e as Error).message}`);
  }

  const api: RoundtableApi = {
    link,
    startMeeting: async (params) => {
      const { meetingId } = await link.request('meeting/start', params);
      await follow(meetingId, { restored: false });
      return meetingId;
    },
    state: (meetingId) => fold(link.logs.get(meetingId) ?? []),
    roomResolved: () => room.resolved,
    daemonPid: async () => {
      try {
        return (JSON.parse(await readFile(path.join(dataDir(), 'daemon.json'), 'utf8')) as { pid: number }).pid;
      } catch {
        return undefined;
      }
    },
  };

  // Development only: runs the extension-host test suites inside whatever VS Code hosts this
  // extension (code-server in CI, where @vscode/test-electron cannot download a desktop build).
  const results = process.env.ROUNDTABLE_EXTENSION_TESTS;
  if (results) {
    setTimeout(() => {
      const runner = path.join(context.extensionPath, 'dist', 'test', 'suite.js');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const suite = require(runner) as { runTo(out: string): Promise<void> };
      suite.runTo(results).catch((e: unknown) => log.error(`extension tests failed to run: ${(e as Error).message}`));
    }, 500);
  }
  return api;
}

/**
 * Lets VS Code's agent mode find the roundtable MCP server without hand-written config, where the
 * VS Code version has the API (1.101+); older versions keep working without it.
 */
function registerMcpServer(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  interface McpApi {
    registerMcpServerDefinitionProvider?(
      id: string,
      provider: { provideMcpServerDefinitions(): unknown[] },
    ): vscode.Disposable;
  }
  const lm = vscode.lm as unknown as McpApi;
  const Definition = (
    vscode as unknown as {
      McpStdioServerDefinition?: new (
        label: string,
        command: string,
        args: string[],
        env: Record<string, string>,
      ) => unknown;
    }
  ).McpStdioServerDefinition;
  if (!lm.registerMcpServerDefinitionProvider || !Definition) {
    log.info('this VS Code has no MCP server API; configure "roundtable mcp" by hand (see the README)');
    return;
  }
  const script = path.join(context.extensionPath, 'dist', 'daemon', 'cli.js');
  try {
    context.subscriptions.push(
      lm.registerMcpServerDefinitionProvider('roundtable.mcp', {
        provideMcpServerDefinitions: () => [
          new Definition('Roundtable', process.execPath, [script, 'mcp', '--data-dir', dataDir()], {
            ELECTRON_RUN_AS_NODE: '1',
          }),
        ],
      }),
    );
  } catch (e) {
    // Versions where the API is still a proposal refuse the call: the server is then configured by hand.
    log.info(
      `MCP server registration is not available here (${(e as Error).message}); configure "roundtable mcp" by hand (see the README)`,
    );
  }
}

function showError(log: vscode.LogOutputChannel, e: unknown): void {
  const message = (e as Error)?.message ?? String(e);
  log.error(message);
  void vscode.window.showErrorMessage(`Roundtable: ${message}`, 'Show Log').then((choice) => {
    if (choice === 'Show Log') log.show();
  });
}

export function deactivate(): void {
  // Subscriptions are disposed by VS Code; the daemon keeps running for other windows and the CLI.
}
