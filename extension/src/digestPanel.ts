/**
 * The review panel: the digest (editable) and, for consensus meetings, the voting matrix, verdict
 * and conflicts. Accept / Reject / Run Another Round; Pick / Another Round / Defer when a
 * consensus meeting waits for the human.
 */
import * as vscode from 'vscode';
import type { DecisionKind } from '../../protocol/src';
import { checkFromWebview } from '../../protocol/src';
import type { DaemonLink } from './daemonLink';
import { webviewHtml } from './html';

export interface ReviewActions {
  decide(meetingId: string, decision: DecisionKind, digestText: string, instruction?: string): Promise<void>;
  resolve(
    meetingId: string,
    action: 'pick' | 'another_round' | 'defer',
    opts: { option?: string; instruction?: string },
  ): Promise<void>;
}

export class DigestPanel {
  private static current: DigestPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  static show(
    extensionUri: vscode.Uri,
    link: DaemonLink,
    meetingId: string,
    actions: ReviewActions,
    log: vscode.LogOutputChannel,
  ): DigestPanel {
    if (DigestPanel.current && DigestPanel.current.meetingId === meetingId) {
      DigestPanel.current.panel.reveal(vscode.ViewColumn.Active);
      DigestPanel.current.refresh();
      return DigestPanel.current;
    }
    DigestPanel.current?.panel.dispose();
    const panel = vscode.window.createWebviewPanel(
      'roundtable.digest',
      'Roundtable: Review Digest',
      vscode.ViewColumn.Active,
      {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [
          vscode.Uri.joinPath(extensionUri, 'dist', 'webview'),
          vscode.Uri.joinPath(extensionUri, 'media'),
        ],
      },
    );
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
      body: '<main id="digest"></main>',
    });
    panel.webview.onDidReceiveMessage((raw: unknown) => void this.onMessage(raw), undefined, this.disposables);
    this.disposables.push(
      link.onEvent((e) => {
        if (
          e.meetingId === meetingId &&
          (e.type === 'digest_ready' ||
            e.type === 'escalated' ||
            e.type === 'decision_recorded' ||
            e.type === 'meeting_closed')
        )
          this.refresh();
      }),
    );
    panel.onDidDispose(() => {
      if (DigestPanel.current === this) DigestPanel.current = undefined;
      for (const d of this.disposables) d.dispose();
    });
  }

  refresh(): void {
    void this.panel.webview.postMessage({ type: 'digest/show', events: this.link.logs.get(this.meetingId) ?? [] });
  }

  private async onMessage(raw: unknown): Promise<void> {
    const checked = checkFromWebview(raw);
    if (!checked.ok) {
      this.log.warn(`ignored a malformed message from the digest panel: ${checked.error}`);
      return;
    }
    const msg = checked.value;
    try {
      if (msg.type === 'digest/ready') this.refresh();
      else if (msg.type === 'digest/decide')
        await this.actions.decide(this.meetingId, msg.decision, msg.digestText, msg.instruction);
      else if (msg.type === 'digest/resolve') {
        await this.actions.resolve(this.meetingId, msg.action, {
          ...(msg.option !== undefined ? { option: msg.option } : {}),
          ...(msg.instruction !== undefined ? { instruction: msg.instruction } : {}),
        });
      }
    } catch (e) {
      void this.panel.webview.postMessage({ type: 'digest/error', message: (e as Error).message });
    }
  }
}
