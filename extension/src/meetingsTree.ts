/**
 * The Meetings view: every meeting in the daemon's store, grouped as a person asks about them —
 * running, awaiting you, closed — with topic, mode, a friendly outcome and the date. The list is
 * the daemon's (`meeting/list`), read again whenever a meeting changes state.
 */
import * as vscode from 'vscode';
import type { MeetingSummary } from '@roundtable/protocol';
import { coalesced } from './coalesce';
import type { DaemonLink } from './daemonLink';
import { contextOf, groupOf, needOfSummary, outcomeOf, shortTopic, type Group } from './meetingStatus';
import { inline } from '@roundtable/protocol/markdown';

const GROUPS: { id: Group; label: string }[] = [
  { id: 'running', label: 'Running' },
  { id: 'awaiting', label: 'Awaiting you' },
  { id: 'closed', label: 'Closed' },
];

export type MeetingsNode =
  { kind: 'group'; group: Group; count: number } | { kind: 'meeting'; meeting: MeetingSummary };

export class MeetingsTree implements vscode.TreeDataProvider<MeetingsNode>, vscode.Disposable {
  static readonly viewId = 'roundtable.meetings';
  private meetings: MeetingSummary[] = [];
  private loaded = false;
  private readonly emitter = new vscode.EventEmitter<MeetingsNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly listeners = new vscode.EventEmitter<MeetingSummary[]>();
  /** Fires with the new list after every refresh. */
  readonly onDidLoad = this.listeners.event;
  private refreshing: Promise<MeetingSummary[]> | undefined;

  constructor(
    private readonly link: DaemonLink,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  list(): MeetingSummary[] {
    return this.meetings;
  }

  find(meetingId: string): MeetingSummary | undefined {
    return this.meetings.find((m) => m.meetingId === meetingId);
  }

  /** Reads the list again now. */
  refresh(): Promise<MeetingSummary[]> {
    this.refreshing ??= this.link
      .request('meeting/list', {})
      .then(({ meetings }) => {
        const next = meetings.sort((a, b) => b.createdAt - a.createdAt);
        // Redraw only on a change: a redraw replaces the rows, and a click landing during it is lost.
        const changed = !this.loaded || JSON.stringify(next) !== JSON.stringify(this.meetings);
        this.meetings = next;
        this.loaded = true;
        if (changed) this.emitter.fire(undefined);
        this.listeners.fire(this.meetings);
        return this.meetings;
      })
      .catch((e: unknown) => {
        this.log.warn(`could not list the meetings: ${(e as Error).message}`);
        return this.meetings;
      })
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** Reads the list again soon: a burst of events makes one request. */
  readonly refreshSoon = coalesced(() => void this.refresh());

  getChildren(node?: MeetingsNode): MeetingsNode[] {
    if (!node) {
      if (!this.loaded || this.meetings.length === 0) return [];
      return GROUPS.map((g) => ({
        kind: 'group' as const,
        group: g.id,
        count: this.meetings.filter((m) => groupOf(m) === g.id).length,
      })).filter((g) => g.count > 0);
    }
    if (node.kind === 'group')
      return this.meetings.filter((m) => groupOf(m) === node.group).map((meeting) => ({ kind: 'meeting', meeting }));
    return [];
  }

  getTreeItem(node: MeetingsNode): vscode.TreeItem {
    if (node.kind === 'group') {
      const label = GROUPS.find((g) => g.id === node.group)?.label ?? node.group;
      const item = new vscode.TreeItem(
        label,
        node.group === 'closed' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded,
      );
      item.id = `group:${node.group}`;
      item.description = String(node.count);
      item.contextValue = `group.${node.group}`;
      return item;
    }
    const m = node.meeting;
    const item = new vscode.TreeItem(shortTopic(m.topic, 36), vscode.TreeItemCollapsibleState.None);
    const date = new Date(m.createdAt);
    const when = date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
    item.id = `meeting:${m.meetingId}`;
    // What matters first (the outcome) comes first: a narrow sidebar cuts the end off.
    item.description = `${outcomeOf(m)} · ${m.mode} · ${date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}`;
    // Through the escaping builder, as every Markdown surface: a topic's URL is no live link in the hover.
    const tip = new vscode.MarkdownString(undefined, false);
    tip.appendMarkdown(inline(m.topic.split('\n')[0] ?? ''));
    tip.appendMarkdown('\n\n');
    tip.appendMarkdown(
      inline(
        `${m.review ? 'Review' : m.mode === 'consensus' ? 'Consensus vote' : 'Roundtable'} · ${outcomeOf(m)} · ${when}`,
      ),
    );
    if (m.quarantined !== undefined) {
      tip.appendMarkdown('\n\n');
      tip.appendText(`Set aside at the daemon's start, kept on disk as written: ${m.quarantined}`);
    }
    item.tooltip = tip;
    item.contextValue = contextOf(m);
    item.accessibilityInformation = { label: `${shortTopic(m.topic, 200)}, ${m.mode}, ${outcomeOf(m)}, ${when}` };
    item.iconPath = iconOf(m);
    item.command = { command: 'roundtable.openMeeting', title: 'Open', arguments: [m.meetingId] };
    return item;
  }

  dispose(): void {
    this.refreshSoon.dispose();
    this.emitter.dispose();
    this.listeners.dispose();
  }
}

function iconOf(m: MeetingSummary): vscode.ThemeIcon {
  if (m.quarantined !== undefined)
    return new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
  switch (needOfSummary(m)) {
    case 'failed':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
    case 'review':
      return new vscode.ThemeIcon('checklist');
    case 'escalation':
      return new vscode.ThemeIcon('bell-dot');
    default:
      break;
  }
  if (m.status !== 'closed') return new vscode.ThemeIcon('sync~spin');
  // A finished review: what it came to (its findings are in the Problems panel), never a decision to take.
  if (m.review)
    return new vscode.ThemeIcon(
      m.review.incomplete ? 'warning' : m.review.proven + m.review.contested ? 'issues' : 'pass',
    );
  if (m.terminatedBy === 'error') return new vscode.ThemeIcon('error');
  return new vscode.ThemeIcon(m.decision === 'accepted' ? 'pass' : 'circle-outline');
}
