/**
 * "Roundtable: Review Changes" (Source Control title bar and palette): what to review — the
 * uncommitted changes, or this branch against its base (the merge base with the default branch,
 * or with a branch the person picks) — then the panel as "Start Roundtable" chooses it, and a
 * consensus meeting with `review` set, shown live in the room. When it closes, its PROVEN and
 * CONTESTED findings go to the Problems panel (reviewDiagnostics.ts); a new review clears them.
 */
import * as vscode from 'vscode';
import type { MeetingState, ReviewRequest } from '@roundtable/protocol';
import { reviewOutcome } from '@roundtable/protocol';
import type { DaemonLink } from './daemonLink';
import { currentBranch, defaultBranch, otherBranches } from './gitBase';
import { decisionsFolder, decisionsUnstatused, workspaceRoot } from './workspaceFolders';
import { findingDiagnostics, shownClaim } from './reviewFindings';
import { ReviewDiagnostics } from './reviewDiagnostics';
import { meetingConfig, meetingParams, settingsAndPanel, startAndFollow } from './startFlow';

export interface ReviewHost {
  context: vscode.ExtensionContext;
  link: DaemonLink;
  log: vscode.LogOutputChannel;
  /** A meeting started here: followed from its first event, then shown. */
  startedHere(meetingId: string): Promise<void>;
}

/** What to review, as the person picked it. */
interface Target {
  request: ReviewRequest;
  /** The meeting's topic: what was reviewed, in words. */
  topic: string;
}

type TargetItem = vscode.QuickPickItem & { pick: 'worktree' | 'default' | 'other' };

/** The quick pick's choice; undefined when cancelled. */
async function askTarget(cwd: string): Promise<Target | undefined> {
  const [main, branch] = await Promise.all([defaultBranch(cwd), currentBranch(cwd)]);
  const items: TargetItem[] = [
    { label: '$(edit) Uncommitted changes', description: 'work tree against HEAD', pick: 'worktree' },
    {
      label: '$(git-branch) This branch against its base',
      description: main
        ? `commits since the merge base with ${main}, and the work tree`
        : 'no default branch found: pick one',
      pick: main ? 'default' : 'other',
    },
    { label: '$(list-selection) This branch against another branch…', pick: 'other' },
  ];
  const chosen = await vscode.window.showQuickPick(items, {
    title: 'Roundtable: Review Changes',
    placeHolder: 'What should the panel review against the accepted decision records?',
    ignoreFocusOut: true,
  });
  if (!chosen) return undefined;
  if (chosen.pick === 'worktree') return { request: { worktree: true }, topic: 'Review of the uncommitted changes' };
  const against = chosen.pick === 'default' ? main : await askBranch(cwd);
  if (!against) return undefined;
  // The daemon diffs from the merge base of HEAD with it, and says so when they share none.
  return { request: { base: against }, topic: `Review of ${branch ?? 'HEAD'} against ${against}` };
}

async function askBranch(cwd: string): Promise<string | undefined> {
  const branches = await otherBranches(cwd);
  if (branches.length === 0) throw new Error('No other branch to review against.');
  const picked = await vscode.window.showQuickPick(
    branches.map((label) => ({ label })),
    { title: 'Roundtable: Review Changes against the merge base with…', ignoreFocusOut: true },
  );
  return picked?.label;
}

/** The command: the target, the panel, the meeting. */
async function reviewChanges(
  h: ReviewHost,
  diagnostics: ReviewDiagnostics,
  expect: (meetingId: string) => void,
): Promise<void> {
  const root = workspaceRoot();
  if (!root) throw new Error('Open a folder (a git repository) to review its changes.');
  const target = await askTarget(root.fsPath);
  if (!target) return;
  const { cfg, storedKey, chosen } = await settingsAndPanel(h.context, h.log);
  if (!chosen) return;
  if (chosen.demo)
    throw new Error(
      'The scripted demo cannot review a change: point Roundtable at a model server, or sign in to Copilot.',
    );
  const review: ReviewRequest = {
    ...target.request,
    decisionsFolder: decisionsFolder(),
    unstatused: decisionsUnstatused(),
  };
  const params = meetingParams({
    topic: target.topic,
    mode: 'consensus',
    options: [],
    panel: chosen.panel,
    cfg,
    config: meetingConfig(cfg),
    storedKey,
    attach: undefined,
    review,
  });
  diagnostics.clear();
  await startAndFollow(h.link, h.log, params, async (meetingId) => {
    expect(meetingId);
    await h.startedHere(meetingId);
  });
}

/**
 * The reviews of this window: "Review Changes" and "Clear Review Findings", and the close of each
 * review started here turned into diagnostics, with a line that says what it came to.
 */
export class Reviews implements vscode.Disposable {
  private readonly pending = new Set<string>();
  private readonly subscription: vscode.Disposable;
  private readonly diagnostics = new ReviewDiagnostics();

  constructor(private readonly h: ReviewHost) {
    this.subscription = h.link.onEvent((e) => {
      if (e.type !== 'meeting_closed' || !this.pending.delete(e.meetingId)) return;
      this.closed(h.link.state(e.meetingId));
    });
  }

  /** "Roundtable: Review Changes". */
  run(): Promise<void> {
    return reviewChanges(this.h, this.diagnostics, (id) => this.expect(id));
  }

  /** "Roundtable: Clear Review Findings". */
  clear(): void {
    this.diagnostics.clear();
  }

  /** A review meeting started here: its close is awaited. */
  private expect(meetingId: string): void {
    const s = this.h.link.state(meetingId);
    // Closed before this was asked (a review refused at once): handled now, not never.
    if (s.status === 'closed') this.closed(s);
    else this.pending.add(meetingId);
  }

  private closed(s: MeetingState): void {
    const root = workspaceRoot();
    if (!root) return;
    // The bar (--fail-on) is the CLI's: here every PROVEN and CONTESTED finding is shown.
    const outcome = reviewOutcome(s, 'blocking');
    const shown = findingDiagnostics(outcome.findings, outcome.scope ?? s.config.review);
    this.diagnostics.show(root, shown);
    this.h.log.info(`review ${s.meetingId}: ${shown.length} finding(s) in the Problems panel, exit ${outcome.exit}`);
    if (outcome.exit === 3) {
      void vscode.window
        .showWarningMessage(
          `Roundtable: the review could not be done${outcome.why ? `: ${shownClaim(outcome.why)}` : '.'}`,
          'Show Log',
        )
        .then((c) => (c ? this.h.log.show() : undefined));
      return;
    }
    const contested = shown.filter((d) => d.verdict === 'CONTESTED' && !d.waived).length;
    const waived = shown.filter((d) => d.waived).length;
    const summary =
      shown.length === 0
        ? 'Roundtable: the review found nothing the panel upheld.'
        : `Roundtable: the review upheld ${shown.length - contested - waived} finding(s)${contested ? `, ${contested} contested` : ''}${waived ? `, ${waived} waived by an exception` : ''}: see the Problems panel.`;
    void vscode.window
      .showInformationMessage(summary, ...(shown.length ? ['Show Problems'] : []))
      .then((c) => (c ? vscode.commands.executeCommand('workbench.actions.view.problems') : undefined));
  }

  dispose(): void {
    this.subscription.dispose();
    this.diagnostics.dispose();
  }
}
