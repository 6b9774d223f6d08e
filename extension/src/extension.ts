/**
 * Roundtable in VS Code: wires the daemon link, the room view, the digest review, the status bar
 * and the commands together. Everything a meeting leaves in the workspace is written here.
 */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DecisionKind, MeetingEvent, MeetingState, StartMeetingParams } from '../../protocol/src';
import { fold, settles } from '../../protocol/src';
import { DaemonLink, dataDir } from './daemonLink';
import { DigestPanel, type ReviewActions } from './digestPanel';
import { LmBridge } from './lmBridge';
import { registerMcpServer } from './mcpRegistration';
import { stageInGit, workspaceRoot, writeDecisionRecord, writeMinutesFile } from './outputs';
import { RoomViewProvider } from './roomView';
import { API_KEY_SECRET, startFlow } from './startFlow';
import { registerDiscuss } from './discuss';
import { meetingStatusBar } from './statusBar';

/** What activate() returns: used by the extension-host tests, not a public API. */
export interface RoundtableApi {
  startMeeting(params: StartMeetingParams): Promise<string>;
  state(meetingId: string): MeetingState;
  roomResolved(): boolean;
  daemonPid(): Promise<number | undefined>;
  link: DaemonLink;
}

export function activate(context: vscode.ExtensionContext): RoundtableApi {
  const log = vscode.window.createOutputChannel('Roundtable', { log: true });
  const link = new DaemonLink(context.extensionPath, log);
  const lm = new LmBridge(link, log);
  // Where each meeting's minutes were written, kept across reloads so they are updated in place.
  const minutesFiles = new Map<string, vscode.Uri>(
    Object.entries(context.workspaceState.get<Record<string, string>>('roundtable.minutesFiles') ?? {}).map(
      ([k, v]) => [k, vscode.Uri.parse(v)],
    ),
  );
  const reviewed = new Set<string>();
  let activeMeeting: string | undefined;
  /** Per meeting, the last seq whose minutes and review were already handled (before a reload). */
  const handledUpTo = new Map<string, number>();

  const status = meetingStatusBar(link, () => activeMeeting);
  const updateStatus = status.update;

  const post = async (text: string): Promise<void> => {
    if (!activeMeeting) throw new Error('No meeting is running: start one with "Roundtable: Start Roundtable".');
    await link.request('room/post', { meetingId: activeMeeting, text });
  };
  const cut = async (reason?: string): Promise<void> => {
    if (!activeMeeting) throw new Error('No meeting is running.');
    await link.request('meeting/cut', { meetingId: activeMeeting, ...(reason ? { reason } : {}) });
  };

  const saveMinutes = async (meetingId: string): Promise<vscode.Uri | undefined> => {
    const rendered = await link.request('meeting/render', { meetingId });
    const file = await writeMinutesFile(rendered, minutesFiles.get(meetingId));
    if (file) {
      minutesFiles.set(meetingId, file);
      await context.workspaceState.update(
        'roundtable.minutesFiles',
        Object.fromEntries([...minutesFiles].map(([k, v]) => [k, v.toString()])),
      );
      log.info(`minutes written to ${vscode.workspace.asRelativePath(file)}`);
    }
    return file;
  };

  const actions: ReviewActions = {
    decide: async (meetingId: string, decision: DecisionKind, digestText: string, instruction?: string) => {
      await link.request('meeting/decide', {
        meetingId,
        decision,
        digestText,
        ...(instruction ? { instruction } : {}),
      });
      await waitFor(meetingId, (e) => e.type === 'decision_recorded');
      if (decision === 'another_round') {
        void vscode.window.showInformationMessage('Another round is running; the review opens again when it ends.');
        return;
      }
      const minutes = await saveMinutes(meetingId);
      const written: vscode.Uri[] = minutes ? [minutes] : [];
      if (decision === 'accepted' && minutes) {
        const s = fold(link.logs.get(meetingId) ?? []);
        const record = await writeDecisionRecord(s, digestText, minutes);
        if (record) written.push(record);
      }
      const staged = written.length > 0 && (await stageInGit(written, log));
      for (const f of written) await vscode.window.showTextDocument(f, { preview: false });
      void vscode.window.showInformationMessage(
        `Decision ${decision}: ${written.map((f) => vscode.workspace.asRelativePath(f)).join(' and ')} written${staged ? ' and staged in git' : ''}.`,
      );
    },
    resolve: async (meetingId, action, opts) => {
      await link.request('meeting/resolve', { meetingId, action, ...opts });
    },
  };

  const review = (meetingId?: string): Promise<void> => {
    const id = meetingId ?? activeMeeting;
    if (!id) return Promise.reject(new Error('No meeting to review.'));
    DigestPanel.show(context.extensionUri, link, id, actions, log);
    return Promise.resolve();
  };

  /** Resolves once the meeting's log holds an event matching `pred` (it may already). */
  function waitFor(meetingId: string, pred: (e: MeetingEvent) => boolean): Promise<void> {
    if ((link.logs.get(meetingId) ?? []).some(pred)) return Promise.resolve();
    return new Promise((resolve) => {
      const d = link.onEvent((e) => {
        if (e.meetingId === meetingId && pred(e)) {
          d.dispose();
          resolve();
        }
      });
    });
  }

  const room = new RoomViewProvider(context.extensionUri, link, log, { post, cut, review });

  /**
   * Shows a meeting in the room and the status bar, remembered across window reloads. After a
   * reload the log is fetched again: what was already there is not reviewed a second time.
   */
  const follow = async (meetingId: string, opts: { restored: boolean }): Promise<void> => {
    activeMeeting = meetingId;
    await context.workspaceState.update('roundtable.activeMeeting', meetingId);
    room.show(meetingId);
    const lastSeq = await link.subscribe(meetingId);
    if (opts.restored) handledUpTo.set(meetingId, lastSeq);
    updateStatus();
  };
  const remembered = context.workspaceState.get<string>('roundtable.activeMeeting');
  if (remembered) {
    void follow(remembered, { restored: true }).catch((e: unknown) =>
      log.warn(`could not follow ${remembered} after a reload: ${(e as Error).message}`),
    );
  }

  context.subscriptions.push(
    log,
    link,
    lm,
    status.item,
    room,
    vscode.window.registerWebviewViewProvider(RoomViewProvider.viewId, room),
    link.onEvent((e) => {
      if (e.meetingId !== activeMeeting) return;
      updateStatus();
      if (e.seq <= (handledUpTo.get(e.meetingId) ?? 0)) return;
      // Minutes are always saved, and the review opens, when a meeting closes or needs the human.
      if (settles(e) && !reviewed.has(`${e.meetingId}:${e.seq}`)) {
        reviewed.add(`${e.meetingId}:${e.seq}`);
        void (async () => {
          // At an escalation the report (Status: blocked: votes, matrix, conflicts) is written and
          // opened beside the review, so the human decides with it; resolving rewrites the same file.
          const file = await saveMinutes(e.meetingId);
          if (e.type === 'escalated' && file)
            await vscode.window.showTextDocument(file, { preview: false, viewColumn: vscode.ViewColumn.Beside });
          await review(e.meetingId);
        })().catch((err: unknown) => showError(log, err));
      }
    }),
    link.onConnected(
      () =>
        void lm.register().catch((e: unknown) => log.warn(`vscode-lm bridge not available: ${(e as Error).message}`)),
    ),
    vscode.commands.registerCommand('roundtable.start', () =>
      startFlow(context, link, log, follow).catch((e: unknown) => showError(log, e)),
    ),
    registerDiscuss((attach) => startFlow(context, link, log, follow, attach).catch((e: unknown) => showError(log, e))),
    vscode.commands.registerCommand('roundtable.cut', () => cut().catch((e: unknown) => showError(log, e))),
    vscode.commands.registerCommand('roundtable.post', async () => {
      const text = await vscode.window.showInputBox({
        prompt: 'Post to the room (workers see it next round, as yours)',
      });
      if (text?.trim()) await post(text).catch((e: unknown) => showError(log, e));
    }),
    vscode.commands.registerCommand('roundtable.reviewDigest', () => review().catch((e: unknown) => showError(log, e))),
    vscode.commands.registerCommand('roundtable.openMinutes', async () => {
      const file = activeMeeting ? minutesFiles.get(activeMeeting) : undefined;
      if (file) {
        await vscode.window.showTextDocument(file);
        return;
      }
      const root = workspaceRoot();
      const folder = vscode.workspace.getConfiguration('roundtable').get<string>('minutesFolder') ?? 'docs/roundtable';
      if (!root) return void vscode.window.showWarningMessage('Open a folder to keep Roundtable minutes in it.');
      const picked = await vscode.window.showOpenDialog({
        defaultUri: vscode.Uri.joinPath(root, folder),
        filters: { Minutes: ['md'] },
      });
      if (picked?.[0]) await vscode.window.showTextDocument(picked[0]);
    }),
    vscode.commands.registerCommand('roundtable.setApiKey', async () => {
      const key = await vscode.window.showInputBox({
        prompt:
          "API key for the OpenAI-compatible server (kept in VS Code's secret storage, never written to disk in the clear)",
        password: true,
        ignoreFocusOut: true,
      });
      if (key === undefined) return;
      if (key.trim() === '') await context.secrets.delete(API_KEY_SECRET);
      else await context.secrets.store(API_KEY_SECRET, key.trim());
      void vscode.window.showInformationMessage(
        key.trim() ? 'Roundtable API key saved.' : 'Roundtable API key removed.',
      );
    }),
    vscode.commands.registerCommand('roundtable.configureParticipants', async () => {
      await vscode.commands.executeCommand('workbench.action.openSettingsJson', {
        revealSetting: { key: 'roundtable.participants', edit: true },
      });
    }),
    vscode.commands.registerCommand('roundtable.focusRoom', () =>
      vscode.commands.executeCommand(`${RoomViewProvider.viewId}.focus`),
    ),
    vscode.commands.registerCommand('roundtable.showLog', () => log.show()),
  );

  try {
    registerMcpServer(context, log);
  } catch (e) {
    // Even reading a proposed API can throw on some versions; Roundtable works without it.
    log.info(`MCP server registration skipped: ${(e as Error).message}`);
  }

  const api: RoundtableApi = {
    link,
    startMeeting: async (params) => {
      const { meetingId } = await link.request('meeting/start', params);
      await follow(meetingId, { restored: false });
      return meetingId;
    },
    state: (meetingId) => fold(link.logs.get(meetingId) ?? []),
    roomResolved: () => room.resolved,
    daemonPid: async () => {
      try {
        return (JSON.parse(await readFile(path.join(dataDir(), 'daemon.json'), 'utf8')) as { pid: number }).pid;
      } catch {
        return undefined;
      }
    },
  };

  // Development only: runs the extension-host test suites inside whatever VS Code hosts this
  // extension (code-server in CI, where @vscode/test-electron cannot download a desktop build).
  const results = process.env.ROUNDTABLE_EXTENSION_TESTS;
  if (results) {
    setTimeout(() => {
      const runner = path.join(context.extensionPath, 'dist', 'test', 'suite.js');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const suite = require(runner) as { runTo(out: string): Promise<void> };
      suite.runTo(results).catch((e: unknown) => log.error(`extension tests failed to run: ${(e as Error).message}`));
    }, 500);
  }
  return api;
}

function showError(log: vscode.LogOutputChannel, e: unknown): void {
  const message = (e as Error)?.message ?? String(e);
  log.error(message);
  void vscode.window.showErrorMessage(`Roundtable: ${message}`, 'Show Log').then((choice) => {
    if (choice === 'Show Log') log.show();
  });
}

export function deactivate(): void {
  // Subscriptions are disposed by VS Code; the daemon keeps running for other windows and the CLI.
}
