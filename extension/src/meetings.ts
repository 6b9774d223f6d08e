/**
 * The commands that act on one meeting — open, cut, review, open minutes, delete from history,
 * retry, discard, open the room in an editor tab — from the palette (the meeting in the room), a
 * Meetings view item, or the room itself. Cut and delete always ask first.
 */
import * as vscode from 'vscode';
import type { MeetingSummary } from '@roundtable/protocol';
import type { DaemonLink } from './daemonLink';
import type { Lifecycle } from './lifecycle';
import { needOf } from '@roundtable/protocol';
import { shortTopic } from './meetingStatus';
import type { MeetingsNode, MeetingsTree } from './meetingsTree';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { existingMinutes } from './minutesFiles';
import { minutesDir } from './workspaceFolders';
import { RoomViewProvider } from './roomView';
import { relayUp, type RelayChecks } from './relay';

/** What a command was invoked with: a meeting id (from code), a Meetings view item, or nothing (the room's meeting). */
export type MeetingArg = string | MeetingsNode | undefined;

export interface MeetingCommandsHost {
  context: vscode.ExtensionContext;
  link: DaemonLink;
  log: vscode.LogOutputChannel;
  lifecycle: Lifecycle;
  tree: MeetingsTree;
  /** The meeting the room shows. */
  shown(): string | undefined;
  select(meetingId: string): Promise<void>;
  showError(e: unknown): void;
}

export function meetingIdOf(arg: MeetingArg, fallback: string | undefined): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg?.kind === 'meeting') return arg.meeting.meetingId;
  return fallback;
}

/** Asks before a cut, wherever it comes from: it ends the meeting now. */
export async function confirmCut(topic: string): Promise<boolean> {
  const answer = await vscode.window.showWarningMessage(
    `Cut “${shortTopic(topic)}”?`,
    { modal: true, detail: 'The meeting ends now; its digest is written from what was said so far.' },
    'Cut',
  );
  return answer === 'Cut';
}

export class MeetingCommands implements vscode.Disposable {
  private readonly editors = new Map<string, vscode.WebviewPanel>();

  constructor(private readonly host: MeetingCommandsHost) {}

  private topic(meetingId: string): string {
    return this.host.tree.find(meetingId)?.topic ?? this.host.lifecycle.state(meetingId).topic;
  }

  private need(arg: MeetingArg, what: string): string {
    const id = meetingIdOf(arg, this.host.shown());
    if (!id) throw new Error(`No meeting to ${what}: pick one in the Meetings view, or start one.`);
    return id;
  }

  async open(arg: MeetingArg): Promise<void> {
    const id = this.need(arg, 'open');
    // A log the daemon set aside cannot be shown: say why, and leave the room as it is.
    const quarantined = this.host.tree.find(id)?.quarantined;
    if (quarantined !== undefined) {
      void vscode.window.showWarningMessage(
        `“${shortTopic(this.topic(id))}” cannot be opened: its log is quarantined (${quarantined}). It is kept on disk as written.`,
      );
      return;
    }
    await this.host.select(id);
    await vscode.commands.executeCommand(`${RoomViewProvider.viewId}.focus`);
  }

  /** The meeting to cut, once the person confirmed it; undefined when they did not. */
  private async confirmedCut(arg: MeetingArg): Promise<string | undefined> {
    const id = this.need(arg, 'cut');
    await this.host.lifecycle.follow(id);
    if (this.host.lifecycle.state(id).status === 'closed') throw new Error('This meeting is already closed.');
    return (await confirmCut(this.topic(id))) ? id : undefined;
  }

  async cut(arg: MeetingArg, reason?: string): Promise<void> {
    const id = await this.confirmedCut(arg);
    if (id) await (await this.host.link.handle(id)).cut(reason);
  }

  /** What a room asks before a message it relays goes to the daemon: a post needs a meeting, a cut is confirmed. */
  readonly roomChecks: RelayChecks = {
    'room/post': (meetingId) => {
      if (!meetingId) throw new Error('No meeting is running: start one with "Roundtable: Start Roundtable".');
      return Promise.resolve(true);
    },
    'room/cut': async (meetingId) => (await this.confirmedCut(meetingId)) !== undefined,
  };

  async post(meetingId: string | undefined, text: string): Promise<void> {
    await relayUp(this.host.link, { type: 'room/post', text }, meetingId, this.roomChecks);
  }

  review(arg: MeetingArg): Promise<void> {
    return this.host.lifecycle.review(this.need(arg, 'review'));
  }

  async openMinutes(arg: MeetingArg): Promise<void> {
    const id = meetingIdOf(arg, this.host.shown());
    if (id) {
      const s = (await this.host.lifecycle.caughtUp(id)).state;
      const file = await existingMinutes(s);
      if (file) {
        await vscode.window.showTextDocument(file);
        return;
      }
      // Not written (roundtable.minutes): show them unsaved, so nothing enters the repository.
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: renderMinutes(s) });
      await vscode.window.showTextDocument(doc, { preview: true });
      return;
    }
    const dir = minutesDir();
    if (!dir) return void vscode.window.showWarningMessage('Open a folder to keep Roundtable minutes in it.');
    const picked = await vscode.window.showOpenDialog({ defaultUri: dir, filters: { Minutes: ['md'] } });
    if (picked?.[0]) await vscode.window.showTextDocument(picked[0]);
  }

  /** Deletes a closed meeting's log from the daemon's store, after asking. */
  async delete(arg: MeetingArg): Promise<void> {
    const id = this.need(arg, 'delete');
    const summary: MeetingSummary | undefined = this.host.tree.find(id);
    if (summary && summary.status !== 'closed') throw new Error('Cut the meeting before deleting it.');
    const answer = await vscode.window.showWarningMessage(
      `Delete “${shortTopic(this.topic(id))}” from the history?`,
      {
        modal: true,
        detail: 'Its log is removed from the Roundtable store. Minutes and decision records in the workspace stay.',
      },
      'Delete',
    );
    if (answer !== 'Delete') return;
    await this.host.lifecycle.discard(id);
    this.editors.get(id)?.dispose();
  }

  retry(arg: MeetingArg): Promise<string> {
    return this.host.lifecycle.retry(this.need(arg, 'retry'));
  }

  async discard(arg: MeetingArg): Promise<void> {
    const id = this.need(arg, 'discard');
    await this.host.lifecycle.follow(id);
    if (needOf(this.host.lifecycle.state(id)) !== 'failed') return this.delete(id);
    await this.host.lifecycle.discard(id);
  }

  /** The room of a meeting in an editor tab, for a wide view: the same webview as the sidebar room. */
  async openInEditor(arg: MeetingArg): Promise<void> {
    const id = this.need(arg, 'open');
    await this.host.lifecycle.follow(id);
    const existing = this.editors.get(id);
    if (existing) {
      existing.reveal();
      return;
    }
    const { context, link, log } = this.host;
    const panel = vscode.window.createWebviewPanel(
      'roundtable.roomEditor',
      `Room: ${shortTopic(this.topic(id))}`,
      vscode.ViewColumn.Active,
      { enableScripts: true, retainContextWhenHidden: true },
    );
    panel.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'roundtable.svg');
    const room: RoomViewProvider = new RoomViewProvider(context.extensionUri, link, log, {
      meeting: () => room.meetingId,
      checks: this.roomChecks,
      review: (meetingId) => this.review(meetingId ?? room.meetingId),
      retry: (meetingId) => this.retry(meetingId),
    });
    const visibility = new vscode.EventEmitter<void>();
    panel.onDidChangeViewState(() => visibility.fire());
    // The provider only needs what a WebviewView and a WebviewPanel have in common.
    const asView = {
      viewType: 'roundtable.roomEditor',
      webview: panel.webview,
      get visible() {
        return panel.visible;
      },
      title: panel.title,
      description: undefined,
      badge: undefined,
      onDidDispose: panel.onDidDispose,
      onDidChangeVisibility: visibility.event,
      show: (preserveFocus?: boolean) => panel.reveal(undefined, preserveFocus),
    } as unknown as vscode.WebviewView;
    const token = new vscode.CancellationTokenSource().token;
    void (room as vscode.WebviewViewProvider).resolveWebviewView(asView, { state: undefined }, token);
    room.show(id);
    this.editors.set(id, panel);
    panel.onDidDispose(() => {
      this.editors.delete(id);
      visibility.dispose();
      room.dispose();
    });
  }

  dispose(): void {
    for (const p of this.editors.values()) p.dispose();
  }
}
