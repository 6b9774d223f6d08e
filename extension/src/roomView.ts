/**
 * The sidebar room view (and the room in an editor tab). It validates every message the webview
 * sends and relays between the webview and the daemon by the protocol's pass-through list
 * (relay.ts); the rest (ready, copy, review, retry) it answers itself.
 */
import * as vscode from 'vscode';
import type { ToWebview } from '@roundtable/protocol';
import { checkFromWebview } from '@roundtable/protocol';
import type { DaemonLink } from './daemonLink';
import { webviewHtml } from './html';
import { isRelayedUp, relayDown, relayUp, type RelayChecks } from './relay';

export interface RoomActions {
  /** The meeting the room's relayed messages are about. */
  meeting(): string | undefined;
  /** Asked before a relayed message goes to the daemon (a post needs a meeting; a cut is confirmed). */
  checks: RelayChecks;
  review(meetingId?: string): Promise<void>;
  retry(meetingId: string): Promise<unknown>;
}

export class RoomViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = 'roundtable.room';
  private view: vscode.WebviewView | undefined;
  /** The meeting the room shows. */
  meetingId: string | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly link: DaemonLink,
    private readonly log: vscode.LogOutputChannel,
    private readonly actions: RoomActions,
  ) {
    this.disposables.push(
      link.onNotification((n) => {
        const msg = relayDown(n, this.meetingId);
        if (msg) void this.view?.webview.postMessage(msg);
      }),
      link.onState((s) =>
        this.send({ type: 'room/connection', state: s.state, ...(s.message ? { message: s.message } : {}) }),
      ),
    );
  }

  /** True once VS Code has shown the view at least once. */
  resolved = false;

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.resolved = true;
    view.webview.options = {
      enableScripts: true,
      // Only the bundle and the stylesheet: nothing else on disk is reachable from the view.
      localResourceRoots: [
        vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview'),
        vscode.Uri.joinPath(this.extensionUri, 'media'),
      ],
    };
    view.webview.html = webviewHtml(view.webview, this.extensionUri, {
      script: 'room.js',
      title: 'Roundtable',
      body: `<div class="controls">
  <label for="post-text" class="visually-hidden">Post to the room</label>
  <textarea id="post-text" rows="2" aria-keyshortcuts="Control+Enter Meta+Enter"
    placeholder="Post to the room (workers see it next round) · Ctrl+Enter posts"></textarea>
  <div class="row">
    <button id="post" type="button" title="Post (Ctrl+Enter)">Post</button>
    <button id="review" type="button" class="secondary" hidden>Review Digest</button>
  </div>
</div>
<main id="room"></main>`,
    });
    view.webview.onDidReceiveMessage((raw: unknown) => void this.onMessage(raw), undefined, this.disposables);
    view.onDidDispose(() => (this.view = undefined), undefined, this.disposables);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const checked = checkFromWebview(raw);
    if (!checked.ok) {
      this.log.warn(`ignored a malformed message from the room view: ${checked.error}`);
      return;
    }
    const msg = checked.value;
    try {
      if (isRelayedUp(msg, 'room')) {
        await relayUp(this.link, msg, this.actions.meeting(), this.actions.checks);
        return;
      }
      switch (msg.type) {
        case 'room/ready':
          this.replay(msg.meetingId, msg.sinceSeq);
          break;
        case 'room/copy':
          await vscode.env.clipboard.writeText(msg.text);
          break;
        case 'room/review':
          await this.actions.review(msg.meetingId ?? this.meetingId);
          break;
        case 'room/retry':
          await this.actions.retry(msg.meetingId);
          break;
        default:
          break;
      }
    } catch (e) {
      this.send({ type: 'room/error', message: (e as Error).message });
    }
  }

  /** Sends the view what it lacks: from its cursor if it already shows this meeting, else all of it. */
  private replay(viewMeeting: string | undefined, sinceSeq: number): void {
    if (!this.meetingId) {
      this.send({ type: 'room/reset', meetingId: null });
      return;
    }
    const from = viewMeeting === this.meetingId ? sinceSeq : 0;
    this.send({ type: 'room/reset', meetingId: this.meetingId });
    for (const event of this.link.events(this.meetingId).slice(from)) this.send({ type: 'room/event', event });
    // A fresh view has no live text: what is being written now, from its first piece.
    for (const delta of this.link.liveDeltas(this.meetingId)) this.send({ type: 'room/delta', delta });
  }

  /** Switches the room to a meeting and reveals it. */
  show(meetingId: string): void {
    // Already shown: the view keeps its place (and whatever the person selected or opened).
    if (meetingId === this.meetingId && this.view) return;
    this.meetingId = meetingId;
    this.replay(undefined, 0);
  }

  private send<K extends keyof ToWebview>(msg: { type: K } & ToWebview[K]): void {
    void this.view?.webview.postMessage(msg);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
