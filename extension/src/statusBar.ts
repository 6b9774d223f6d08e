/**
 * The status bar item: the followed meeting's round (or that it is closed or needs you), its
 * spoken tokens against the budget and what its calls billed (the whole bill in the tooltip); a
 * click shows the room.
 */
import * as vscode from 'vscode';
import { billOf, currentRound, fold, formatBill, formatBillShort } from '../../protocol/src';
import type { DaemonLink } from './daemonLink';

export function meetingStatusBar(
  link: DaemonLink,
  activeMeeting: () => string | undefined,
): { item: vscode.StatusBarItem; update: () => void } {
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  status.command = 'roundtable.focusRoom';
  const update = (): void => {
    const meetingId = activeMeeting();
    const events = meetingId ? link.logs.get(meetingId) : undefined;
    if (!events || events.length === 0) {
      status.hide();
      return;
    }
    const s = fold(events);
    const bill = billOf(s);
    const what =
      s.status === 'closed'
        ? `closed (${s.closed?.reason ?? '?'})`
        : s.status === 'awaiting_human'
          ? 'needs you'
          : `R${currentRound(s)?.round ?? 0}/${s.config.maxRounds}`;
    status.text = `$(comment-discussion) Roundtable: ${what} · ${formatBillShort(s, bill)}`;
    status.tooltip = `${s.topic}\n${formatBill(s, bill)}\nClick to show the room`;
    status.show();
  };
  return { item: status, update };
}
