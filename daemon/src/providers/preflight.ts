/**
 * The check before a meeting starts: every `openai` participant's server answers, accepts the
 * key, and lists the participant's model. Each problem is one line that says what to do, so a
 * panel that cannot run is refused before a meeting id exists or anything is written. Scripted
 * and attached seats need no check; `vscode-lm` seats are checked by the extension, which owns
 * VS Code's model list. Pure apart from `listModels`, so the daemon can reuse it.
 */
import type { Participant } from '@roundtable/protocol';
import type { ListModels } from '@roundtable/protocol/modelList';

export interface PreflightOptions {
  baseUrl: string;
  apiKey?: string;
  listModels: ListModels;
  /** How the user picks another model, ending the "not on the server" line (default: `--models`). */
  pickHint?: string;
}

const OLLAMA_PORT = ':11434';
const SHOWN_MODELS = 8;

function listed(models: string[]): string {
  if (models.length === 0) return 'it lists no models';
  const shown = models.slice(0, SHOWN_MODELS).join(', ');
  return `it has: ${shown}${models.length > SHOWN_MODELS ? `, and ${models.length - SHOWN_MODELS} more` : ''}`;
}

/** The problems that would stop `panel` from running, one line each; empty when it can start. */
export async function preflightPanel(panel: readonly Participant[], o: PreflightOptions): Promise<string[]> {
  const wanted = [...new Set(panel.filter((p) => p.provider === 'openai').map((p) => p.model))];
  if (wanted.length === 0) return [];
  const list = await o.listModels(o.baseUrl, o.apiKey ? { apiKey: o.apiKey } : {});
  if (!list.ok) {
    if (list.kind === 'unreachable')
      return [`the model server ${list.error} — start it, or point --base-url / ROUNDTABLE_BASE_URL at one that runs`];
    if (list.kind === 'auth')
      return [`${list.error} — set ROUNDTABLE_API_KEY (or OPENAI_API_KEY) to a key this server accepts`];
    // A server without a usable /models list still answered: its models cannot be checked here.
    return [];
  }
  const have = new Set(list.models);
  const pick = o.pickHint ?? 'pick one with --models';
  const fetchHint = o.baseUrl.includes(OLLAMA_PORT)
    ? (m: string) => `pull it with \`ollama pull ${m}\``
    : () => 'load it on the server';
  return wanted
    .filter((m) => !have.has(m))
    .map((m) => `model "${m}" is not on ${o.baseUrl} (${listed(list.models)}) — ${fetchHint(m)} or ${pick}`);
}
