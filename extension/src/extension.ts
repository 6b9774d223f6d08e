/**
 * Roundtable in VS Code: wires the daemon link, the Meetings view, the room (sidebar and editor
 * tab), the lifecycle of every meeting (review, minutes, retry), the status bar, the context keys
 * and the commands together.
 */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { MeetingState, StartMeetingParams } from '../../protocol/src';
import { DaemonLink, dataDir } from './daemonLink';
import { Lifecycle, needOf } from './lifecycle';
import { LmBridge } from './lmBridge';
import { registerMcpServer } from './mcpRegistration';
import { MeetingCommands, meetingIdOf, type MeetingArg } from './meetings';
import { modelSourceFor } from './modelSource';
import { MeetingsTree } from './meetingsTree';
import { RoomViewProvider } from './roomView';
import { API_KEY_SECRET, startFlow } from './startFlow';
import { registerDiscuss } from './discuss';
import { anotherRound } from './chat/anotherRound';
import { ANOTHER_ROUND_COMMAND, chatHandler, followups, registerChatParticipant } from './chat/participant';
import { conveneFromExtension, setConveneHost, validateConveneInput, type ConveneOutcome } from './convene';
import { registerLmTool } from './lmTool';
import { meetingStatusBar } from './statusBar';

/** What activate() returns: used by the extension-host tests, not a public API. */
export interface RoundtableApi {
  startMeeting(params: StartMeetingParams): Promise<string>;
  state(meetingId: string): MeetingState;
  roomResolved(): boolean;
  daemonPid(): Promise<number | undefined>;
  /** The meeting the room shows. */
  shownMeeting(): string | undefined;
  /** Convenes as the tool and `@roundtable` do (no confirmation: that is VS Code's, around the tool). */
  convene(input: unknown, token?: vscode.CancellationToken): Promise<ConveneOutcome>;
  /** The Meetings view's rows as a person reads them: group, then each meeting's label and description. */
  meetingRows(): { group: string; meetingId: string; label: string; description: string }[];
  link: DaemonLink;
  /** `@roundtable`'s handler and follow-ups, for the extension-host tests only (ROUNDTABLE_EXTENSION_TESTS). */
  chat?: { handler: vscode.ChatRequestHandler; followups: vscode.ChatFollowupProvider };
}

const ACTIVE_KEY = 'roundtable.activeMeeting';

const labelText = (l: string | vscode.TreeItemLabel | undefined): string =>
  typeof l === 'object' ? l.label : (l ?? '');

export function activate(context: vscode.ExtensionContext): RoundtableApi {
  const log = vscode.window.createOutputChannel('Roundtable', { log: true });
  const idleMinutes = (): number =>
    vscode.workspace.getConfiguration('roundtable').get<number>('daemonIdleMinutes') ?? 10;
  const link = new DaemonLink(context.extensionPath, log, {
    daemonArgs: () => (idleMinutes() > 0 ? ['--idle-exit-ms', String(Math.round(idleMinutes() * 60_000))] : []),
  });
  const lm = new LmBridge(link, log, modelSourceFor(context, log));
  let activeMeeting: string | undefined = context.workspaceState.get<string>(ACTIVE_KEY);

  const status = meetingStatusBar(link, () => activeMeeting);
  const tree = new MeetingsTree(link, log);
  const showError = (e: unknown): void => {
    const message = (e as Error)?.message ?? String(e);
    log.error(message);
    void vscode.window.showErrorMessage(`Roundtable: ${message}`, 'Show Log').then((choice) => {
      if (choice === 'Show Log') log.show();
    });
  };

  /** Context keys for `when` clauses: what the room's meeting allows, and whether there is any meeting. */
  const updateContext = (): void => {
    const s = activeMeeting ? link.state(activeMeeting) : undefined;
    const need = s ? needOf(s) : undefined;
    void vscode.commands.executeCommand('setContext', 'roundtable.hasMeeting', tree.list().length > 0);
    void vscode.commands.executeCommand('setContext', 'roundtable.meetingShown', activeMeeting !== undefined);
    void vscode.commands.executeCommand(
      'setContext',
      'roundtable.meetingRunning',
      s !== undefined && (s.status === 'running' || s.status === 'new'),
    );
    void vscode.commands.executeCommand(
      'setContext',
      'roundtable.canReview',
      // A meeting without a decision is "failed", but its review still says why and offers Retry.
      need === 'review' || need === 'escalation' || s?.decision !== undefined || !!s?.digest?.digest.noDecision,
    );
    void vscode.commands.executeCommand('setContext', 'roundtable.meetingFailed', need === 'failed');
    status.update();
  };

  const changed = (): void => {
    updateContext();
    tree.refreshSoon();
  };

  /** Shows a meeting in the room (following its log), remembered across window reloads. */
  const select = async (meetingId: string): Promise<void> => {
    activeMeeting = meetingId;
    await context.workspaceState.update(ACTIVE_KEY, meetingId);
    await lifecycle.follow(meetingId);
    room.show(meetingId);
    updateContext();
  };

  const lifecycle: Lifecycle = new Lifecycle({ context, link, log, shown: () => activeMeeting, select, changed });
  const commands: MeetingCommands = new MeetingCommands({
    context,
    link,
    log,
    lifecycle,
    tree,
    shown: () => activeMeeting,
    select,
    showError,
  });
  const room = new RoomViewProvider(context.extensionUri, link, log, {
    post: (text) => commands.post(activeMeeting, text),
    cut: (reason) => commands.cut(activeMeeting, reason),
    review: (meetingId) => commands.review(meetingId ?? activeMeeting),
    retry: (meetingId) => commands.retry(meetingId),
  });

  /** A meeting started here (start flow, retry, tests): followed from its first event, then shown. */
  const startedHere = async (meetingId: string): Promise<void> => {
    await lifecycle.follow(meetingId, { fresh: true });
    await select(meetingId);
    changed();
  };

  const run =
    <A extends unknown[]>(f: (...a: A) => Promise<unknown>) =>
    (...a: A): Promise<void> =>
      f(...a).then(
        () => undefined,
        (e: unknown) => showError(e),
      );

  const treeView = vscode.window.createTreeView(MeetingsTree.viewId, {
    treeDataProvider: tree,
    showCollapseAll: false,
  });

  context.subscriptions.push(
    log,
    link,
    lm,
    status.item,
    status.disposable,
    room,
    tree,
    treeView,
    lifecycle,
    commands,
    setConveneHost({ context, link, log, startedHere }),
    registerLmTool(),
    vscode.window.registerWebviewViewProvider(RoomViewProvider.viewId, room),
    link.onEvent((e) => {
      if (e.meetingId === activeMeeting) updateContext();
    }),
    // A click on a row runs its command; when the view redraws under the click VS Code only
    // selects the row, so a selection shows its meeting too. Without moving focus: a right click
    // selects as well, and its context menu would close.
    treeView.onDidChangeSelection(({ selection }) => {
      const node = selection.length === 1 ? selection[0] : undefined;
      if (node?.kind === 'meeting' && node.meeting.meetingId !== activeMeeting)
        void select(node.meeting.meetingId).catch((e: unknown) => showError(e));
    }),
    tree.onDidLoad((meetings) => {
      // The room's meeting was deleted (here, in another window, or by the CLI): forget it.
      const gone = activeMeeting;
      if (gone && !meetings.some((m) => m.meetingId === gone) && link.events(gone).length === 0) {
        activeMeeting = undefined;
        void context.workspaceState.update(ACTIVE_KEY, undefined);
      }
      updateContext();
    }),
    // Meetings started elsewhere (the CLI, another window) show up when the person comes back.
    vscode.window.onDidChangeWindowState((w) => {
      if (w.focused) tree.refreshSoon();
    }),
    link.onConnected(() => {
      void lm.register().catch((e: unknown) => log.warn(`vscode-lm bridge not available: ${(e as Error).message}`));
      // After every (re)connection: the list again, and whatever finished meanwhile is handled.
      void tree
        .refresh()
        .then((meetings) => lifecycle.catchUp(meetings))
        .catch((e: unknown) => log.warn(`could not catch up with the meetings: ${(e as Error).message}`));
    }),
    vscode.commands.registerCommand(
      'roundtable.start',
      run(() => startFlow(context, link, log, (id) => startedHere(id))),
    ),
    registerDiscuss(run((attach) => startFlow(context, link, log, (id) => startedHere(id), attach))),
    vscode.commands.registerCommand(
      'roundtable.cut',
      run((arg?: MeetingArg) => commands.cut(arg)),
    ),
    vscode.commands.registerCommand(
      'roundtable.post',
      run(async () => {
        const text = await vscode.window.showInputBox({
          prompt: 'Post to the room (workers see it next round, as yours)',
        });
        if (text?.trim()) await commands.post(activeMeeting, text);
      }),
    ),
    vscode.commands.registerCommand(
      'roundtable.reviewDigest',
      run((arg?: MeetingArg) => commands.review(arg)),
    ),
    vscode.commands.registerCommand(
      'roundtable.openMinutes',
      run((arg?: MeetingArg) => commands.openMinutes(arg)),
    ),
    vscode.commands.registerCommand(
      'roundtable.openMeeting',
      run((arg?: MeetingArg) => commands.open(arg)),
    ),
    vscode.commands.registerCommand(
      'roundtable.deleteMeeting',
      run((arg?: MeetingArg) => commands.delete(arg)),
    ),
    vscode.commands.registerCommand(
      'roundtable.retryMeeting',
      run((arg?: MeetingArg) => commands.retry(arg)),
    ),
    vscode.commands.registerCommand(
      'roundtable.discardMeeting',
      run((arg?: MeetingArg) => commands.discard(arg)),
    ),
    vscode.commands.registerCommand(
      'roundtable.openRoomInEditor',
      run((arg?: MeetingArg) => commands.openInEditor(arg)),
    ),
    vscode.commands.registerCommand(
      'roundtable.refreshMeetings',
      run(() => tree.refresh()),
    ),
    vscode.commands.registerCommand(
      'roundtable.setApiKey',
      run(async () => {
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
    ),
    vscode.commands.registerCommand('roundtable.configureParticipants', () =>
      vscode.commands.executeCommand('workbench.action.openSettingsJson', {
        revealSetting: { key: 'roundtable.participants', edit: true },
      }),
    ),
    vscode.commands.registerCommand('roundtable.focusRoom', () =>
      vscode.commands.executeCommand(`${RoomViewProvider.viewId}.focus`),
    ),
    vscode.commands.registerCommand('roundtable.showLog', () => log.show()),
    vscode.commands.registerCommand(
      ANOTHER_ROUND_COMMAND,
      run(async (arg?: MeetingArg) => {
        const id = meetingIdOf(arg, activeMeeting);
        if (!id) throw new Error('No meeting for another round: pick one in the Meetings view.');
        if (await anotherRound(lifecycle, id)) await select(id);
      }),
    ),
  );
  const chatDeps = { convene: conveneFromExtension, validate: validateConveneInput };
  try {
    context.subscriptions.push(registerChatParticipant(context, chatDeps));
  } catch (e) {
    // A host without the chat API (an older or stripped build): everything else works without it.
    log.info(`@roundtable chat participant not registered: ${(e as Error).message}`);
  }

  updateContext();
  // Connects (starting the daemon if needed): the list fills the Meetings view, and onConnected catches up.
  void tree.refresh();
  const remembered = activeMeeting;
  if (remembered) {
    void select(remembered).catch((e: unknown) => {
      log.warn(`could not show ${remembered} after a reload: ${(e as Error).message}`);
      activeMeeting = undefined;
      void context.workspaceState.update(ACTIVE_KEY, undefined);
      updateContext();
    });
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
      const meetingId = await link.start(params);
      await startedHere(meetingId);
      return meetingId;
    },
    state: (meetingId) => link.state(meetingId),
    roomResolved: () => room.resolved,
    shownMeeting: () => activeMeeting,
    convene: (input, token) => conveneFromExtension(input, token ? { token } : {}),
    meetingRows: () =>
      tree.getChildren().flatMap((g) =>
        tree.getChildren(g).map((node) => {
          const item = tree.getTreeItem(node);
          return {
            group: labelText(tree.getTreeItem(g).label),
            meetingId: node.kind === 'meeting' ? node.meeting.meetingId : '',
            label: labelText(item.label),
            description: String(item.description),
          };
        }),
      ),
    ...(process.env.ROUNDTABLE_EXTENSION_TESTS ? { chat: { handler: chatHandler(chatDeps), followups } } : {}),
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

export function deactivate(): void {
  // Subscriptions are disposed by VS Code. The daemon serves other windows and the CLI, and stops
  // by itself after `roundtable.daemonIdleMinutes` with no client and no running meeting.
}
