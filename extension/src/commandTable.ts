/**
 * The commands of the Roundtable extension as tables, command id → handler, each handler taking
 * what the extension wired together (the daemon link, the meetings, the room's meeting).
 */
import * as vscode from 'vscode';
import type { DaemonLink } from './daemonLink';
import type { Lifecycle } from './lifecycle';
import { meetingIdOf, type MeetingArg, type MeetingCommands } from './meetings';
import type { MeetingsTree } from './meetingsTree';
import type { Reviews } from './reviewChanges';
import { RoomViewProvider } from './roomView';
import { API_KEY_SECRET, startFlow } from './startFlow';
import { registerDiscuss } from './discuss';
import { anotherRound } from './chat/anotherRound';
import { ANOTHER_ROUND_COMMAND } from './chat/participant';

/** What the command handlers act on. */
export interface CommandContext {
  context: vscode.ExtensionContext;
  link: DaemonLink;
  log: vscode.LogOutputChannel;
  tree: MeetingsTree;
  lifecycle: Lifecycle;
  commands: MeetingCommands;
  /** Reviews of the workspace's changes and their findings in the Problems panel. */
  reviews: Reviews;
  /** The meeting the room shows. */
  shown(): string | undefined;
  select(meetingId: string): Promise<void>;
  /** A meeting started here: followed from its first event, then shown. */
  startedHere(meetingId: string): Promise<void>;
  /** Shows a failure to the person, with a way to the log. */
  showError(e: unknown): void;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Handler<R> = (c: CommandContext, ...args: any[]) => R;

function start(c: CommandContext): Promise<void> {
  return startFlow(c.context, c.link, c.log, (id) => c.startedHere(id));
}

async function post(c: CommandContext): Promise<void> {
  const text = await vscode.window.showInputBox({
    prompt: 'Post to the room (workers see it next round, as yours)',
  });
  if (text?.trim()) await c.commands.post(c.shown(), text);
}

async function setApiKey(c: CommandContext): Promise<void> {
  const key = await vscode.window.showInputBox({
    prompt:
      "API key for the OpenAI-compatible server (kept in VS Code's secret storage, never written to disk in the clear)",
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) return;
  if (key.trim() === '') await c.context.secrets.delete(API_KEY_SECRET);
  else await c.context.secrets.store(API_KEY_SECRET, key.trim());
  void vscode.window.showInformationMessage(key.trim() ? 'Roundtable API key saved.' : 'Roundtable API key removed.');
}

async function oneMoreRound(c: CommandContext, arg?: MeetingArg): Promise<void> {
  const id = meetingIdOf(arg, c.shown());
  if (!id) throw new Error('No meeting for another round: pick one in the Meetings view.');
  if (await anotherRound(c.lifecycle, id)) await c.select(id);
}

/** Commands whose failures are shown to the person (with Show Log); they resolve to nothing. */
const REPORTED: Record<string, Handler<Promise<unknown>>> = {
  'roundtable.start': start,
  'roundtable.cut': (c, arg?: MeetingArg) => c.commands.cut(arg),
  'roundtable.post': post,
  'roundtable.reviewDigest': (c, arg?: MeetingArg) => c.commands.review(arg),
  'roundtable.openMinutes': (c, arg?: MeetingArg) => c.commands.openMinutes(arg),
  'roundtable.openMeeting': (c, arg?: MeetingArg) => c.commands.open(arg),
  'roundtable.deleteMeeting': (c, arg?: MeetingArg) => c.commands.delete(arg),
  'roundtable.retryMeeting': (c, arg?: MeetingArg) => c.commands.retry(arg),
  'roundtable.discardMeeting': (c, arg?: MeetingArg) => c.commands.discard(arg),
  'roundtable.openRoomInEditor': (c, arg?: MeetingArg) => c.commands.openInEditor(arg),
  'roundtable.refreshMeetings': (c) => c.tree.refresh(),
  'roundtable.setApiKey': setApiKey,
  'roundtable.reviewChanges': (c) => c.reviews.run(),
  [ANOTHER_ROUND_COMMAND]: oneMoreRound,
};

/** Commands that hand over to VS Code: what it returns is returned as is. */
const FORWARDED: Record<string, Handler<unknown>> = {
  'roundtable.configureParticipants': () =>
    vscode.commands.executeCommand('workbench.action.openSettingsJson', {
      revealSetting: { key: 'roundtable.participants', edit: true },
    }),
  'roundtable.focusRoom': () => vscode.commands.executeCommand(`${RoomViewProvider.viewId}.focus`),
  'roundtable.showLog': (c) => c.log.show(),
  'roundtable.clearReviewFindings': (c) => c.reviews.clear(),
};

/** A command handler whose failure is shown to the person (with Show Log); it resolves to nothing. */
export const reporting =
  (showError: (e: unknown) => void) =>
  <A extends unknown[]>(f: (...a: A) => Promise<unknown>) =>
  (...a: A): Promise<void> =>
    f(...a).then(
      () => undefined,
      (e: unknown) => showError(e),
    );

/** Registers every command of the tables, and "Discuss in Roundtable". */
export function registerCommands(c: CommandContext): vscode.Disposable[] {
  const run = reporting((e) => c.showError(e));
  return [
    ...Object.entries(REPORTED).map(([id, handler]) =>
      // Not async: a handler that throws before its promise (no meeting picked) throws as before.
      vscode.commands.registerCommand(
        id,
        run((...args: unknown[]) => handler(c, ...args)),
      ),
    ),
    registerDiscuss(run((attach) => startFlow(c.context, c.link, c.log, (id) => c.startedHere(id), attach))),
    ...Object.entries(FORWARDED).map(([id, handler]) =>
      vscode.commands.registerCommand(id, (...args: unknown[]) => handler(c, ...args)),
    ),
  ];
}
