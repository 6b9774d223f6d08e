/**
 * The status bar item: the daemon connection while it is not up (connecting is a spinner, not an
 * error; only a daemon that cannot be reached is shown as one), then the followed meeting's round
 * (or that it is closed or needs you) and how much of its token budget is spent; a click shows
 * the room, or the log when the daemon is down. Both token figures are named: spoken against the
 * budget and what the calls billed (the whole bill in the tooltip).
 */
import * as vscode from 'vscode';
import { billOf, formatBill, formatBillShort, roundLabel, terminationLabel } from '@roundtable/protocol';
import type { DaemonLink, LinkState } from './daemonLink';

export function meetingStatusBar(
  link: DaemonLink,
  activeMeeting: () => string | undefined,
): { item: vscode.StatusBarItem; update: () => void; disposable: vscode.Disposable } {
  const status = vscode.window.createStatusBarItem('roundtable.status', vscode.StatusBarAlignment.Left, 50);
  status.name = 'Roundtable';
  let connection: { state: LinkState; message?: string } = { state: 'connecting' };
  let everConnected = false;
  const update = (): void => {
    status.backgroundColor = undefined;
    if (connection.state === 'failed') {
      status.text = '$(error) Roundtable: daemon down';
      status.tooltip = `${connection.message ?? 'The Roundtable daemon cannot be reached.'}\nClick to show the log`;
      status.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
      status.command = 'roundtable.showLog';
      status.show();
      return;
    }
    if (connection.state === 'connecting') {
      status.text = `$(sync~spin) Roundtable: ${everConnected ? 'reconnecting' : 'connecting'}…`;
      status.tooltip = 'Connecting to the Roundtable daemon (it is started if it is not running)';
      status.command = 'roundtable.showLog';
      status.show();
      return;
    }
    status.command = 'roundtable.focusRoom';
    const meetingId = activeMeeting();
    const s = meetingId ? link.state(meetingId) : undefined;
    if (!s || s.lastSeq === 0) {
      status.hide();
      return;
    }
    const bill = billOf(s);
    const what =
      s.status === 'closed'
        ? s.digest?.digest.noDecision && !s.decision
          ? 'no decision'
          : s.closed
            ? terminationLabel(s.closed.reason)
            : 'closed'
        : s.status === 'awaiting_human'
          ? 'needs you'
          : roundLabel(s);
    status.text = `$(comment-discussion) Roundtable: ${what} · ${formatBillShort(s, bill)}`;
    status.tooltip = `${s.topic}\n${formatBill(s, bill)}\nClick to show the room`;
    status.show();
  };
  const disposable = link.onState((s) => {
    connection = s;
    if (s.state === 'connected') everConnected = true;
    update();
  });
  update();
  return { item: status, update, disposable };
}
