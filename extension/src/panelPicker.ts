/**
 * The panel picker of the first run: every model the user has (VS Code's chat models, the
 * configured server's `/v1/models`), grouped by where it comes from, with the proposed workers
 * (distinct families) already picked. The user changes the workers in one multi-select; the
 * panel can then be saved as `roundtable.participants`.
 */
import * as vscode from 'vscode';
import type { ModelChoice, Participant } from '@roundtable/protocol';
import { collapseWhitespace, PANEL_WORKERS, proposePanel } from '@roundtable/protocol';

/** Rows of the picker: a separator per source, then its models. Pure, so it is unit-tested. */
export type PickerRow = { kind: 'source'; label: string } | { kind: 'model'; model: ModelChoice; picked: boolean };

const key = (m: { provider: string; id: string }): string => `${m.provider}:${m.id}`;

export function pickerRows(models: readonly ModelChoice[], proposed: readonly Participant[]): PickerRow[] {
  const workers = new Set(proposed.filter((p) => p.role === 'worker').map((p) => key({ ...p, id: p.model })));
  const sources = [...new Set(models.map((m) => m.source))];
  return sources.flatMap((source) => [
    { kind: 'source' as const, label: source },
    ...models
      .filter((m) => m.source === source)
      .map((m) => ({ kind: 'model' as const, model: m, picked: workers.has(key(m)) })),
  ]);
}

/** One line describing a panel: who sits on which model. */
export function describePanel(panel: readonly Participant[]): string {
  return panel.map((p) => `${p.name} (${p.role}) on ${p.model}`).join(' · ');
}

/**
 * A model name from a server, safe in a quick pick: one line, and no `$(icon)` syntax, which
 * VS Code would render as an icon (a zero-width space after the `$` keeps it literal).
 */
export function pickerText(text: string): string {
  return collapseWhitespace(text).replace(/\$\(/g, '$\u200b(');
}

interface ModelItem extends vscode.QuickPickItem {
  model?: ModelChoice;
}

/**
 * Shows the picker with the proposal pre-picked and returns the panel for the picked workers
 * (judge and assistant chosen by the same rule as the proposal), or undefined when cancelled.
 */
export async function pickPanel(
  models: readonly ModelChoice[],
  opts: { workers: number; title: string },
): Promise<Participant[] | undefined> {
  const proposed = proposePanel(models, { workers: opts.workers });
  if (!proposed) return undefined;
  const items: ModelItem[] = pickerRows(models, proposed).map((r) =>
    r.kind === 'source'
      ? { label: pickerText(r.label), kind: vscode.QuickPickItemKind.Separator }
      : {
          label: pickerText(r.model.id),
          description: pickerText(`${r.model.family} · ${r.model.source}`),
          picked: r.picked,
          model: r.model,
        },
  );
  const qp = vscode.window.createQuickPick<ModelItem>();
  qp.title = opts.title;
  qp.canSelectMany = true;
  qp.ignoreFocusOut = true;
  qp.matchOnDescription = true;
  qp.items = items;
  qp.selectedItems = items.filter((i) => i.picked);
  const hint = `${proposed.filter((p) => p.role === 'worker').length} workers proposed, one per model family: Enter to use them`;
  qp.placeholder = hint;
  try {
    const picked = await new Promise<readonly ModelItem[] | undefined>((resolve) => {
      qp.onDidAccept(() => {
        const chosen = qp.selectedItems.filter((i) => i.model);
        if (chosen.length === 0) qp.placeholder = 'Pick at least one model (two or more make a debate).';
        else if (chosen.length > PANEL_WORKERS.length) qp.placeholder = `Pick at most ${PANEL_WORKERS.length} workers.`;
        else resolve(chosen);
      });
      qp.onDidChangeSelection(() => (qp.placeholder = hint));
      qp.onDidHide(() => resolve(undefined));
      qp.show();
    });
    if (!picked) return undefined;
    return proposePanel(models, { workerModels: picked.map((i) => i.model as ModelChoice) });
  } finally {
    qp.dispose();
  }
}

/**
 * Saves a panel as `roundtable.participants`. In the user settings: which models a person has
 * (a Copilot subscription, a local Ollama) belongs to them and their machine, not to the
 * repository their teammates share. Only when the workspace already sets the key (even to []),
 * which would shadow the user value, is the workspace value replaced instead.
 */
export async function savePanel(panel: readonly Participant[]): Promise<vscode.ConfigurationTarget> {
  const c = vscode.workspace.getConfiguration('roundtable');
  const inspected = c.inspect<unknown[]>('participants');
  const target =
    inspected?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await c.update('participants', panel, target);
  return target;
}
