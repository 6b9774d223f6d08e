/**
 * The first part of "Start Roundtable", before the topic is typed: which panel will sit, and
 * whether every one of its models can answer. The configured `roundtable.participants` when set;
 * otherwise a panel proposed from the models the user already has (picker); only when there is
 * no model at all, the scripted demo, saying what it is. Then the preflight: a problem stops the
 * flow here, with one line each, before anything is started or written.
 */
import * as vscode from 'vscode';
import type { ModelChoice, Participant } from '@roundtable/protocol';
import { checkPanel, proposePanel } from '@roundtable/protocol';
import { listModels } from '@roundtable/client/models';
import { DEMO_NOTICE, DEMO_PANEL } from './demo';
import { DEFAULT_BASE_URL } from '@roundtable/client/config';
import type { ModelSource } from './chatModel';
import { chatModelChoices, findModel, serverModelChoices } from './modelSource';
import { pickPanel } from './panelPicker';
import { preflight, type PreflightProblem } from './preflight';

export interface ChosenPanel {
  panel: Participant[];
  /** Where it came from, for the start step ("roundtable.participants", "picked from your models"). */
  source: string;
  /** Picked in this flow and not yet saved: the start step offers "Save as my panel". */
  unsaved: boolean;
  demo: boolean;
}

export interface PanelSettings {
  participants: unknown[];
  baseUrl: string;
  workers: number;
}

/** The most problems shown as separate notifications; the rest are in the log. */
const SHOWN_PROBLEMS = 3;

/** Each problem as its own one-line error, with the button that fixes it (not waited for). */
export function showProblems(problems: readonly PreflightProblem[], log: vscode.LogOutputChannel): void {
  for (const p of problems) log.error(`preflight: ${p.message}`);
  const shown = problems.slice(0, SHOWN_PROBLEMS);
  if (problems.length > SHOWN_PROBLEMS)
    void vscode.window.showErrorMessage(
      `Roundtable: ${problems.length - SHOWN_PROBLEMS} more problem(s) before the meeting can start: see "Roundtable: Show Log".`,
    );
  for (const p of shown) {
    void vscode.window
      .showErrorMessage(`Roundtable: ${p.message}`, ...(p.action ? [p.action] : []))
      .then((choice) =>
        choice === 'Open Settings'
          ? vscode.commands.executeCommand('workbench.action.openSettings', 'roundtable.')
          : choice === 'Set API Key'
            ? vscode.commands.executeCommand('roundtable.setApiKey')
            : undefined,
      );
  }
}

/** Offered when no model is available at all: the demo, or where to get a model. */
async function offerDemo(why: string | undefined): Promise<'demo' | undefined> {
  const pick = await vscode.window.showQuickPick(
    [
      { label: '$(play) Run the demo', description: DEMO_NOTICE, action: 'demo' as const },
      {
        label: '$(settings) Set roundtable.providerBaseUrl…',
        description: 'a local server: Ollama http://127.0.0.1:11434/v1, LM Studio http://127.0.0.1:1234/v1',
        action: 'settings' as const,
      },
      { label: '$(key) Set API Key…', description: 'for the server or api.openai.com', action: 'key' as const },
    ],
    {
      title: 'Start Roundtable: no chat model found',
      placeHolder: `No chat model: sign in to GitHub Copilot, or point Roundtable at a model server${why ? ` (${why})` : ''}.`,
      ignoreFocusOut: true,
    },
  );
  if (pick?.action === 'settings')
    await vscode.commands.executeCommand('workbench.action.openSettings', 'roundtable.providerBaseUrl');
  else if (pick?.action === 'key') await vscode.commands.executeCommand('roundtable.setApiKey');
  return pick?.action === 'demo' ? 'demo' : undefined;
}

/** Every model a panel can be proposed from: VS Code's chat models and the configured server's. */
async function availableModels(o: PanelRequest): Promise<{ all: ModelChoice[]; problem: string | undefined }> {
  const { settings: cfg, apiKey, log } = o;
  const [vscodeModels, server] = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'Roundtable: looking for chat models…' },
    () =>
      Promise.all([
        chatModelChoices(o.models),
        serverModelChoices({ baseUrl: cfg.baseUrl, ...(apiKey ? { apiKey } : {}) }),
      ]),
  );
  if (server.problem) log.warn(`no models from the configured server: ${server.problem}`);
  const all: ModelChoice[] = [...vscodeModels, ...server.models];
  log.info(`models available for a panel: ${all.map((m) => `${m.id} (${m.source})`).join(', ') || 'none'}`);
  return { all, problem: server.problem };
}

export interface PanelRequest {
  settings: PanelSettings;
  apiKey: string | undefined;
  models: ModelSource;
  log: vscode.LogOutputChannel;
  /**
   * false: nobody is there to pick (agent mode, a chat tool): the proposal is taken as it is, and
   * "no model" or a preflight problem is thrown as one line instead of offering the demo.
   */
  interactive?: boolean;
}

/** The panel for this meeting, checked; undefined when the user cancelled or a check failed (shown). */
export async function choosePanel(o: PanelRequest): Promise<ChosenPanel | undefined> {
  const { settings: cfg, apiKey, log } = o;
  const interactive = o.interactive !== false;
  let chosen: ChosenPanel;
  if (cfg.participants.length > 0) {
    const checked = checkPanel(cfg.participants);
    if (!checked.ok)
      throw new Error(
        `roundtable.participants is invalid: ${checked.error}. Fix it with "Roundtable: Configure Participants".`,
      );
    chosen = { panel: checked.value, source: 'roundtable.participants', unsaved: false, demo: false };
  } else {
    const { all, problem } = await availableModels(o);
    if (all.length === 0 && !interactive)
      throw new Error(
        `No chat model for a panel${problem ? ` (${problem})` : ''}: sign in to GitHub Copilot, or set roundtable.providerBaseUrl to a model server.`,
      );
    if (all.length === 0) {
      if ((await offerDemo(problem)) !== 'demo') return undefined;
      return { panel: [...DEMO_PANEL], source: 'scripted demo', unsaved: false, demo: true };
    }
    const panel = interactive
      ? await pickPanel(all, {
          workers: cfg.workers,
          title: 'Start Roundtable: pick the workers (different model families debate best)',
        })
      : proposePanel(all, { workers: cfg.workers });
    if (!panel) return undefined;
    chosen = {
      panel,
      source: interactive ? 'picked from your models' : 'proposed from your models',
      unsaved: true,
      demo: false,
    };
  }

  const problems = await preflight(chosen.panel, {
    baseUrl: cfg.baseUrl,
    hasApiKey: Boolean(apiKey),
    findVscodeModel: async (model) => {
      const m = await findModel(o.models, model);
      return m ? { id: m.id, allowed: o.models.canSendRequest(m) } : undefined;
    },
    listServerModels: () =>
      listModels(cfg.baseUrl || DEFAULT_BASE_URL, { timeoutMs: 3_000, ...(apiKey ? { apiKey } : {}) }),
  });
  if (problems.length > 0 && !interactive) {
    for (const p of problems) log.error(`preflight: ${p.message}`);
    throw new Error(
      `${problems[0]!.message}${problems.length > 1 ? ` (and ${problems.length - 1} more problem(s): see "Roundtable: Show Log")` : ''}`,
    );
  }
  if (problems.length > 0) {
    showProblems(problems, log);
    return undefined;
  }
  return chosen;
}
