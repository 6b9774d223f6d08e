/**
 * The review panel: the digest (rendered, editable as Markdown) and, for consensus meetings, the
 * voting matrix, verdict and conflicts. Accept / Reject / Run Another Round; Pick / Another Round /
 * Defer when a consensus meeting waits for the human. It opens without taking focus (the person may
 * be typing elsewhere), shows progress until the digest is written, links to the files the meeting
 * wrote, and is read-only once decided.
 */
import * as vscode from 'vscode';
import type { DecisionKind, ToWebview } from '@roundtable/protocol';
import { checkFromWebview } from '@roundtable/protocol';
import type { DaemonLink } from './daemonLink';
import { webviewHtml } from './html';
import { humanName } from './gitUser';
import { isRelayedUp, relayUp } from './relay';

export interface ReviewActions {
  decide(
    meetingId: string,
    decision: DecisionKind,
    digestText: string,
    instruction?: string,
    scope?: string[],
  ): Promise<void>;
  /** A message the review relays (the person's answer to an escalation) went to the daemon. */
  relayed(meetingId: string): void;
  /** Starts the meeting again (it produced no decision): the retry replaces it. */
  retry(meetingId: string): Promise<unknown>;
}

/** Files a meeting wrote into the workspace, for the review's links. */
export interface MeetingFiles {
  minutes?: vscode.Uri;
  decision?: vscode.Uri;
}

export class DigestPanel {
  private static current: DigestPanel | undefined;
  /** Per meeting, the files written so far (a panel opened later still links to them). */
  private static readonly files = new Map<string, MeetingFiles>();
  private readonly disposables: vscode.Disposable[] = [];
  private decidedBy: string | undefined;

  /**
   * Records files a meeting wrote (minutes, decision record) and shows their links in its review if
   * that is open. Call after writing each file.
   */
  static filesWritten(meetingId: string, files: MeetingFiles): void {
    DigestPanel.files.set(meetingId, { ...DigestPanel.files.get(meetingId), ...files });
    if (DigestPanel.current?.meetingId === meetingId) DigestPanel.current.postFiles();
  }

  static show(
    extensionUri: vscode.Uri,
    link: DaemonLink,
    meetingId: string,
    actions: ReviewActions,
    log: vscode.LogOutputChannel,
  ): DigestPanel {
    if (DigestPanel.current && DigestPanel.current.meetingId === meetingId) {
      DigestPanel.current.panel.reveal(undefined, true);
      DigestPanel.current.refresh();
      return DigestPanel.current;
    }
    DigestPanel.current?.panel.dispose();
    const panel = vscode.window.createWebviewPanel(
      'roundtable.digest',
      'Roundtable: Review Digest',
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: true },
      {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [
          vscode.Uri.joinPath(extensionUri, 'dist', 'webview'),
          vscode.Uri.joinPath(extensionUri, 'media'),
        ],
      },
    );
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'roundtable.svg');
    DigestPanel.current = new DigestPanel(panel, extensionUri, link, meetingId, actions, log);
    return DigestPanel.current;
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly link: DaemonLink,
    readonly meetingId: string,
    private readonly actions: ReviewActions,
    private readonly log: vscode.LogOutputChannel,
  ) {
    panel.webview.html = webviewHtml(panel.webview, extensionUri, {
      script: 'digest.js',
      title: 'Review Digest',
      // Shown until the meeting's log arrives (the first render replaces it): never a blank panel.
      body: '<main id="digest"><p class="quiet" role="status">Loading the meeting…</p></main>',
      styles: ['room.css', 'digest.css'],
    });
    panel.webview.onDidReceiveMessage((raw: unknown) => void this.onMessage(raw), undefined, this.disposables);
    this.disposables.push(
      link.onEvent((e) => {
        if (
          e.meetingId === meetingId &&
          (e.type === 'digest_ready' ||
            e.type === 'escalated' ||
            e.type === 'decision_recorded' ||
            e.type === 'meeting_closed' ||
            e.type === 'close_requested' ||
            e.type === 'human_resolved' ||
            e.type === 'round_started')
        )
          this.refresh();
      }),
    );
    panel.onDidDispose(() => {
      if (DigestPanel.current === this) DigestPanel.current = undefined;
      for (const d of this.disposables) d.dispose();
    });
    void humanName().then((name) => {
      this.decidedBy = name;
      this.postFiles();
    });
  }

  refresh(): void {
    void this.panel.webview.postMessage({ type: 'digest/show', events: [...this.link.events(this.meetingId)] });
  }

  private postFiles(): void {
    const files = DigestPanel.files.get(this.meetingId);
    const msg: ToWebview['digest/files'] & { type: 'digest/files' } = { type: 'digest/files' };
    if (files?.minutes) msg.minutes = vscode.workspace.asRelativePath(files.minutes);
    if (files?.decision) msg.decision = vscode.workspace.asRelativePath(files.decision);
    if (this.decidedBy) msg.decidedBy = this.decidedBy;
    void this.panel.webview.postMessage(msg);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const checked = checkFromWebview(raw);
    if (!checked.ok) {
      this.log.warn(`ignored a malformed message from the digest panel: ${checked.error}`);
      return;
    }
    const msg = checked.value;
    try {
      if (isRelayedUp(msg, 'digest')) {
        if (await relayUp(this.link, msg, this.meetingId)) this.actions.relayed(this.meetingId);
      } else if (msg.type === 'digest/ready') {
        this.refresh();
        this.postFiles();
      } else if (msg.type === 'digest/problem') {
        this.log.warn(`the review of ${this.meetingId} could not show it: ${msg.message}`);
      } else if (msg.type === 'digest/open') {
        const file = DigestPanel.files.get(this.meetingId)?.[msg.file];
        if (!file)
          throw new Error(`The ${msg.file === 'minutes' ? 'minutes were' : 'decision record was'} not written.`);
        // The group right of the review (not "Beside" the active group, which may be that one already).
        const viewColumn = ((this.panel.viewColumn ?? vscode.ViewColumn.One) + 1) as vscode.ViewColumn;
        await vscode.window.showTextDocument(file, { preview: false, viewColumn });
      } else if (msg.type === 'digest/retry') {
        await this.actions.retry(this.meetingId);
        this.panel.dispose();
      } else if (msg.type === 'digest/decide')
        await this.actions.decide(this.meetingId, msg.decision, msg.digestText, msg.instruction, msg.scope);
    } catch (e) {
      void this.panel.webview.postMessage({ type: 'digest/error', message: (e as Error).message });
    }
  }
}
