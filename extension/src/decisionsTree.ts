/**
 * The Decisions view (issue 33): the team's decision records, as the daemon's one rulebook loader
 * reads them through the workspace gate (`decisions/list`, the same listing as `roundtable
 * decisions`), grouped by status — the ones in force first, the ones no longer in force collapsed.
 * A search narrows them by words; the folder is read again when a record changes on disk.
 */
import * as vscode from 'vscode';
import type { DecisionEntry, DecisionStatus } from '@roundtable/protocol';
import { inline } from '@roundtable/protocol/markdown';
import { coalesced } from './coalesce';
import type { DaemonLink } from './daemonLink';
import { decisionsFolder, decisionsUnstatused, workspaceRoot } from './workspaceFolders';

/** Groups in the order a person looks for them; the last three are no longer in force and start collapsed. */
const GROUPS: { status: DecisionStatus; label: string; icon: string; collapsed: boolean }[] = [
  { status: 'accepted', label: 'Accepted', icon: 'pass', collapsed: false },
  { status: 'proposed', label: 'Proposed', icon: 'circle-large-outline', collapsed: false },
  { status: 'unknown', label: 'No status', icon: 'question', collapsed: false },
  { status: 'superseded', label: 'Superseded', icon: 'history', collapsed: true },
  { status: 'deprecated', label: 'Deprecated', icon: 'warning', collapsed: true },
  { status: 'rejected', label: 'Rejected', icon: 'circle-slash', collapsed: true },
];

export type DecisionsNode =
  { kind: 'group'; status: DecisionStatus; count: number } | { kind: 'record'; entry: DecisionEntry };

/** `0005 · 2026-11-27`: what a narrow sidebar keeps when it cuts the end off. */
export const descriptionOf = (e: DecisionEntry): string => [e.id, e.date].filter(Boolean).join(' · ');

/** The status as the record writes it, or what its missing status was read as (`roundtable.decisions.unstatused`). */
const statusLine = (e: DecisionEntry): string =>
  e.unstatused ? `no status written (read as ${e.status})` : (e.statusText ?? e.status);

/** The hover: status, path, scope and what superseded what, through the escaping Markdown builder. */
export function tooltipOf(e: DecisionEntry): vscode.MarkdownString {
  const lines = [
    `**${inline(e.title)}**`,
    inline(`${e.id} · ${statusLine(e)}${e.date ? ` · ${e.date}` : ''} · ${e.path}`),
    inline(e.scope.length > 0 ? `Scope: ${e.scope.join(', ')}` : 'Scope: none (applies by relevance only)'),
    ...(e.supersedes.length > 0 ? [inline(`Supersedes ${e.supersedes.join(', ')}`)] : []),
    ...(e.supersededBy.length > 0 ? [inline(`Superseded by ${e.supersededBy.join(', ')}`)] : []),
    ...(e.current && !e.supersededBy.includes(e.current) ? [inline(`In force now: ${e.current}`)] : []),
  ];
  return new vscode.MarkdownString(lines.join('\n\n'), false);
}

export class DecisionsTree implements vscode.TreeDataProvider<DecisionsNode>, vscode.Disposable {
  static readonly viewId = 'roundtable.decisions';
  private records: DecisionEntry[] = [];
  private total = 0;
  private query = '';
  private readonly emitter = new vscode.EventEmitter<DecisionsNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly loaded = new vscode.EventEmitter<DecisionEntry[]>();
  /** Fires with the records shown after every read. */
  readonly onDidLoad = this.loaded.event;

  constructor(
    private readonly link: DaemonLink,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The words the view is narrowed by ('' for all). */
  searchText(): string {
    return this.query;
  }

  /** What the view's title bar says under its name: how many, and what narrowed them. */
  message(): string | undefined {
    if (!this.query) return undefined;
    return this.records.length === 0
      ? `No decision matches "${this.query}".`
      : `${this.records.length} of ${this.total} matching "${this.query}"`;
  }

  async search(words: string): Promise<DecisionEntry[]> {
    this.query = words.trim();
    return this.refresh();
  }

  /** The records narrowed as asked, read again now through the daemon. */
  async list(extra: { file?: string } = {}): Promise<DecisionEntry[]> {
    const root = workspaceRoot();
    if (!root || root.scheme !== 'file') return [];
    const { records, total } = await this.link.request('decisions/list', {
      workspace: root.fsPath,
      folder: decisionsFolder(),
      unstatused: decisionsUnstatused(),
      ...(extra.file ? { file: extra.file } : { query: this.query }),
    });
    if (!extra.file) this.total = total;
    return records;
  }

  async refresh(): Promise<DecisionEntry[]> {
    try {
      this.records = await this.list();
    } catch (e) {
      this.log.warn(`could not list the decision records: ${(e as Error).message}`);
    }
    void vscode.commands.executeCommand('setContext', 'roundtable.hasDecisions', this.total > 0);
    this.emitter.fire(undefined);
    this.loaded.fire(this.records);
    return this.records;
  }

  /** Reads the folder again soon: a burst of file events makes one request. */
  readonly refreshSoon = coalesced(() => void this.refresh());

  getChildren(node?: DecisionsNode): DecisionsNode[] {
    if (!node)
      return GROUPS.map((g) => ({
        kind: 'group' as const,
        status: g.status,
        count: this.records.filter((r) => r.status === g.status).length,
      })).filter((g) => g.count > 0);
    if (node.kind === 'group')
      return this.records.filter((r) => r.status === node.status).map((entry) => ({ kind: 'record', entry }));
    return [];
  }

  getTreeItem(node: DecisionsNode): vscode.TreeItem {
    if (node.kind === 'group') {
      const g = GROUPS.find((x) => x.status === node.status);
      const item = new vscode.TreeItem(
        g?.label ?? node.status,
        // Searching opens every group: a match must not hide in a collapsed one.
        g?.collapsed && !this.query
          ? vscode.TreeItemCollapsibleState.Collapsed
          : vscode.TreeItemCollapsibleState.Expanded,
      );
      item.id = `decisions:${node.status}:${this.query}`;
      item.description = String(node.count);
      item.contextValue = `decisionGroup.${node.status}`;
      return item;
    }
    const e = node.entry;
    const item = new vscode.TreeItem(e.title, vscode.TreeItemCollapsibleState.None);
    item.id = `decision:${e.path}`;
    item.description = descriptionOf(e);
    item.tooltip = tooltipOf(e);
    item.iconPath = new vscode.ThemeIcon(GROUPS.find((g) => g.status === e.status)?.icon ?? 'question');
    item.contextValue = `decision.${e.status}`;
    item.accessibilityInformation = {
      label: `${e.title}, ${e.status}, ${descriptionOf(e)}${e.scope.length ? `, scope ${e.scope.join(', ')}` : ''}`,
    };
    const root = workspaceRoot();
    if (root) item.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.joinPath(root, e.path)] };
    return item;
  }

  dispose(): void {
    this.refreshSoon.dispose();
    this.emitter.dispose();
    this.loaded.dispose();
  }
}
