/**
 * Roundtable in VS Code: wires the daemon link, the Meetings view, the room (sidebar and editor
 * tab), the lifecycle of every meeting (review, minutes, retry), the status bar, the context keys
 * and the commands together.
 */
import * as vscode from 'vscode';
import type { MeetingState, StartMeetingParams } from '@roundtable/protocol';
import { findDaemon } from '@roundtable/client';
import { DaemonLink, dataDir } from './daemonLink';
import { Lifecycle } from './lifecycle';
import { needOf } from '@roundtable/protocol';
import { LmBridge } from './lmBridge';
import { registerMcpServer } from './mcpRegistration';
import { MeetingCommands } from './meetings';
import { modelSourceFor } from './modelSource';
import { MeetingsTree, type MeetingsNode } from './meetingsTree';
import { RoomViewProvider } from './roomView';
import { registerChatParticipant } from './chat/participant';
import { conveneFromExtension, setConveneHost, validateConveneInput, type ConveneOutcome } from './convene';
import { registerLmTool } from './lmTool';
import { meetingStatusBar } from './statusBar';
import { registerCommands, reporting, type CommandContext } from './commandTable';
import { registerDecisions } from './decisionsFind';
import type { DecisionsTree } from './decisionsTree';
import { Reviews } from './reviewChanges';
import { testHooks, type TestApi } from './testHooks';

/** What activate() returns: used by the extension-host tests, not a public API. */
export interface RoundtableApi extends TestApi {
  startMeeting(params: StartMeetingParams): Promise<string>;
  state(meetingId: string): MeetingState;
  roomResolved(): boolean;
  daemonPid(): Promise<number | undefined>;
  /** The meeting the room shows. */
  shownMeeting(): string | undefined;
  /** Convenes as the tool and `@roundtable` do (no confirmation: that is VS Code's, around the tool). */
  convene(input: unknown, token?: vscode.CancellationToken): Promise<ConveneOutcome>;
  /** The Decisions view, for the tests. */
  decisions: DecisionsTree;
  /** The Meetings view's rows as a person reads them: group, then each meeting's label and description. */
  meetingRows(): { group: string; meetingId: string; label: string; description: string }[];
  link: DaemonLink;
  // `chat` (TestApi): `@roundtable`'s handler and follow-ups, for the extension-host tests only.
}

type MeetingStatusBar = ReturnType<typeof meetingStatusBar>;

const ACTIVE_KEY = 'roundtable.activeMeeting';

const labelText = (l: string | vscode.TreeItemLabel | undefined): string =>
  typeof l === 'object' ? l.label : (l ?? '');

/** What activate wires together, shared by the event wiring, the commands and the API. */
interface Parts extends CommandContext {
  lm: LmBridge;
  status: MeetingStatusBar;
  room: RoomViewProvider;
  /** Sets the context keys from the room's meeting, and the status bar. */
  updateContext(): void;
  /** The room shows no meeting any more, not after a reload either. */
  forget(): void;
}

const CHAT_DEPS = { convene: conveneFromExtension, validate: validateConveneInput };

export function activate(context: vscode.ExtensionContext): RoundtableApi {
  const p = assemble(context);
  const decisions = registerDecisions(
    p.link,
    p.log,
    reporting((e) => p.showError(e)),
  );
  const treeView = vscode.window.createTreeView(MeetingsTree.viewId, {
    treeDataProvider: p.tree,
    showCollapseAll: false,
  });
  context.subscriptions.push(
    ...[p.log, p.link, p.lm, p.status.item, p.status.disposable, p.room, p.tree, treeView, p.lifecycle, p.commands],
    p.reviews,
    setConveneHost({ context, link: p.link, log: p.log, startedHere: (id) => p.startedHere(id) }),
    registerLmTool(),
    vscode.window.registerWebviewViewProvider(RoomViewProvider.viewId, p.room),
    ...wireEvents(p, treeView),
    ...registerCommands(p),
    ...decisions.disposables,
  );
  try {
    context.subscriptions.push(registerChatParticipant(context, CHAT_DEPS));
  } catch (e) {
    // A host without the chat API (an older or stripped build): everything else works without it.
    p.log.info(`@roundtable chat participant not registered: ${(e as Error).message}`);
  }

  p.updateContext();
  // Connects (starting the daemon if needed): the list fills the Meetings view, and onConnected catches up.
  void p.tree.refresh();
  void decisions.tree.refresh();
  restoreShown(p);

  try {
    registerMcpServer(context, p.log);
  } catch (e) {
    // Even reading a proposed API can throw on some versions; Roundtable works without it.
    p.log.info(`MCP server registration skipped: ${(e as Error).message}`);
  }
  return { ...roundtableApi(p), decisions: decisions.tree, ...testHooks(context, p.log, CHAT_DEPS) };
}

/** The daemon link, the Meetings view, the lifecycle, the meeting commands and the room, tied to the room's meeting. */
function assemble(context: vscode.ExtensionContext): Parts {
  const log = vscode.window.createOutputChannel('Roundtable', { log: true });
  const idleMinutes = (): number =>
    vscode.workspace.getConfiguration('roundtable').get<number>('daemonIdleMinutes') ?? 10;
  const link = new DaemonLink(context.extensionPath, log, {
    daemonArgs: () => (idleMinutes() > 0 ? ['--idle-exit-ms', String(Math.round(idleMinutes() * 60_000))] : []),
  });
  const lm = new LmBridge(link, log, modelSourceFor(context, log));
  let activeMeeting: string | undefined = context.workspaceState.get<string>(ACTIVE_KEY);
  const shown = (): string | undefined => activeMeeting;

  const status = meetingStatusBar(link, shown);
  const tree = new MeetingsTree(link, log);
  const showError = (e: unknown): void => showErrorWithLog(log, e);
  const updateContext = (): void => updateContextKeys(link, tree, status, activeMeeting);
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
    lifecycle.shownNow(meetingId);
  };

  const lifecycle: Lifecycle = new Lifecycle({ context, link, log, shown, select, changed });
  const commands: MeetingCommands = new MeetingCommands({
    context,
    link,
    log,
    lifecycle,
    tree,
    shown,
    select,
    showError,
  });
  const room = new RoomViewProvider(context.extensionUri, link, log, {
    meeting: () => activeMeeting,
    checks: commands.roomChecks,
    review: (meetingId) => commands.review(meetingId ?? activeMeeting),
    retry: (meetingId) => commands.retry(meetingId),
  });

  /** A meeting started here (start flow, retry, tests): followed from its first event, then shown. */
  const startedHere = async (meetingId: string): Promise<void> => {
    await lifecycle.follow(meetingId, { fresh: true });
    await select(meetingId);
    changed();
  };
  const reviews = new Reviews({ context, link, log, startedHere });
  const forget = (): void => {
    activeMeeting = undefined;
    void context.workspaceState.update(ACTIVE_KEY, undefined);
  };
  return {
    context,
    log,
    link,
    lm,
    status,
    tree,
    lifecycle,
    commands,
    reviews,
    room,
    shown,
    select,
    startedHere,
    showError,
    updateContext,
    forget,
  };
}

/** A failure as the person sees it: logged, and shown with a way to the log. */
function showErrorWithLog(log: vscode.LogOutputChannel, e: unknown): void {
  const message = (e as Error)?.message ?? String(e);
  log.error(message);
  void vscode.window.showErrorMessage(`Roundtable: ${message}`, 'Show Log').then((choice) => {
    if (choice === 'Show Log') log.show();
  });
}

/** Context keys for `when` clauses: what the room's meeting allows, and whether there is any meeting. */
function updateContextKeys(
  link: DaemonLink,
  tree: MeetingsTree,
  status: MeetingStatusBar,
  activeMeeting: string | undefined,
): void {
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
    // A meeting without a decision is "failed", but its review still says why and offers Retry; a
    // finished review's panel shows its findings and verdicts.
    need === 'review' ||
      need === 'escalation' ||
      s?.decision !== undefined ||
      !!s?.digest?.digest.noDecision ||
      (s?.config.review !== undefined && s.status === 'closed'),
  );
  void vscode.commands.executeCommand('setContext', 'roundtable.meetingFailed', need === 'failed');
  status.update();
}

/** What the link, the Meetings view and the window report, and what each changes. */
function wireEvents(p: Parts, treeView: vscode.TreeView<MeetingsNode>): vscode.Disposable[] {
  const { link, tree, log } = p;
  return [
    link.onEvent((e) => {
      if (e.meetingId === p.shown()) p.updateContext();
    }),
    // A click on a row runs its command; when the view redraws under the click VS Code only
    // selects the row, so a selection shows its meeting too. Without moving focus: a right click
    // selects as well, and its context menu would close.
    treeView.onDidChangeSelection(({ selection }) => {
      const node = selection.length === 1 ? selection[0] : undefined;
      // A quarantined meeting cannot be shown: its row's command says why, once.
      if (node?.kind === 'meeting' && node.meeting.meetingId !== p.shown() && node.meeting.quarantined === undefined)
        void p.select(node.meeting.meetingId).catch((e: unknown) => p.showError(e));
    }),
    tree.onDidLoad((meetings) => {
      // The room's meeting was deleted (here, in another window, or by the CLI): forget it.
      const gone = p.shown();
      if (gone && !meetings.some((m) => m.meetingId === gone) && link.events(gone).length === 0) p.forget();
      p.updateContext();
    }),
    // Meetings started elsewhere (the CLI, another window) show up when the person comes back.
    vscode.window.onDidChangeWindowState((w) => {
      if (w.focused) tree.refreshSoon();
    }),
    link.onConnected(() => {
      void p.lm.register().catch((e: unknown) => log.warn(`vscode-lm bridge not available: ${(e as Error).message}`));
      // After every (re)connection: the list again, and whatever finished meanwhile is handled.
      void tree
        .refresh()
        .then((meetings) => p.lifecycle.catchUp(meetings))
        .catch((e: unknown) => log.warn(`could not catch up with the meetings: ${(e as Error).message}`));
    }),
  ];
}

/** Shows the meeting the room showed before the window reloaded, or forgets it. */
function restoreShown(p: Parts): void {
  const remembered = p.shown();
  if (!remembered) return;
  void p.select(remembered).catch((e: unknown) => {
    p.log.warn(`could not show ${remembered} after a reload: ${(e as Error).message}`);
    p.forget();
    p.updateContext();
  });
}

function roundtableApi(p: Parts): Omit<RoundtableApi, 'decisions' | keyof TestApi> {
  return {
    link: p.link,
    startMeeting: async (params) => {
      const meetingId = await p.link.start(params);
      await p.startedHere(meetingId);
      return meetingId;
    },
    state: (meetingId) => p.link.state(meetingId),
    roomResolved: () => p.room.resolved,
    shownMeeting: () => p.shown(),
    convene: (input, token) => conveneFromExtension(input, token ? { token } : {}),
    meetingRows: () => meetingRows(p.tree),
    daemonPid,
  };
}

/** The Meetings view's rows as a person reads them. */
function meetingRows(tree: MeetingsTree): ReturnType<RoundtableApi['meetingRows']> {
  return tree.getChildren().flatMap((g) =>
    tree.getChildren(g).map((node) => {
      const item = tree.getTreeItem(node);
      return {
        group: labelText(tree.getTreeItem(g).label),
        meetingId: node.kind === 'meeting' ? node.meeting.meetingId : '',
        label: labelText(item.label),
        description: String(item.description),
      };
    }),
  );
}

/** The pid of the data dir's daemon, as the client proves it (its process start matches the record). */
async function daemonPid(): Promise<number | undefined> {
  return (await findDaemon(dataDir()).catch(() => undefined))?.info.pid;
}

export function deactivate(): void {
  // Subscriptions are disposed by VS Code. The daemon serves other windows and the CLI, and stops
  // by itself after `roundtable.daemonIdleMinutes` with no client and no running meeting.
}
