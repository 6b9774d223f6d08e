/**
 * The checks before a meeting starts (before the topic is typed): every participant's provider is
 * reachable and its model exists, and Roundtable may use VS Code's models. Each problem is one line
 * that says what to do, with the button that does it where there is one. Nothing is started or
 * written when a check fails. No `vscode` import: the start flow passes what it can see, so the
 * checks are unit-tested under Node.
 */
import type { Participant } from '@roundtable/protocol';
import { collapseWhitespace } from '@roundtable/protocol';
import type { ModelList } from '@roundtable/protocol/modelList';

export type PreflightAction = 'Open Settings' | 'Set API Key';

export interface PreflightProblem {
  message: string;
  action?: PreflightAction;
}

export interface PreflightDeps {
  /** The VS Code model a participant's `model` names (as the bridge will pick it), and its consent. */
  findVscodeModel(model: string): Promise<{ id: string; allowed: boolean | undefined } | undefined>;
  /** The configured OpenAI-compatible server, as `roundtable.providerBaseUrl` says ('' = api.openai.com). */
  baseUrl: string;
  hasApiKey: boolean;
  /** Its `/v1/models`, asked at most once. */
  listServerModels(): Promise<ModelList>;
}

/** Participants grouped by model, so three seats on one missing model make one line, not three. */
function byModel(panel: readonly Participant[], provider: Participant['provider']): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of panel) if (p.provider === provider) out.set(p.model, [...(out.get(p.model) ?? []), p.name]);
  return out;
}

function names(list: string[]): string {
  return list.join(', ');
}

/**
 * A model name as it appears in a notification: one short line, and without `[` `]`, so a name a
 * server made up cannot become a Markdown link (VS Code renders links, command links too, there).
 */
export function shownName(name: string): string {
  const flat = collapseWhitespace(name).replace(/[[\]]/g, '');
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

export async function preflight(panel: readonly Participant[], deps: PreflightDeps): Promise<PreflightProblem[]> {
  const problems: PreflightProblem[] = [];

  for (const [model, who] of byModel(panel, 'vscode-lm')) {
    const found = await deps.findVscodeModel(model);
    if (!found) {
      problems.push({
        message: `${names(who)}: the VS Code model "${shownName(model)}" is not available: sign in to GitHub Copilot (or another model provider) or pick another model in roundtable.participants.`,
        action: 'Open Settings',
      });
    } else if (found.allowed === false) {
      problems.push({
        message: `${names(who)}: Roundtable is not allowed to use "${shownName(found.id)}": allow it under Accounts → Manage Language Model Access, then start again.`,
      });
    }
  }

  const openai = byModel(panel, 'openai');
  if (openai.size > 0) {
    const all = names([...openai.values()].flat());
    if (!deps.baseUrl && !deps.hasApiKey) {
      problems.push({
        message: `${all}: api.openai.com needs an API key: set one with "Roundtable: Set API Key", or set roundtable.providerBaseUrl to a local server.`,
        action: 'Set API Key',
      });
      return problems;
    }
    const list = await deps.listServerModels();
    if (!list.ok) {
      if (list.kind === 'auth')
        problems.push({
          message: `${list.error}: set the right key with "Roundtable: Set API Key".`,
          action: 'Set API Key',
        });
      else if (list.kind === 'unreachable')
        problems.push({
          message: `${list.error}: start the server, or fix roundtable.providerBaseUrl.`,
          action: 'Open Settings',
        });
      else
        problems.push({
          message: `${list.error}: roundtable.providerBaseUrl must be an OpenAI-compatible URL ending in /v1.`,
          action: 'Open Settings',
        });
      return problems;
    }
    // A server that lists nothing cannot tell us a name is wrong; the call itself will.
    if (list.models.length > 0) {
      for (const [model, who] of openai) {
        if (list.models.includes(model)) continue;
        const has = list.models.slice(0, 5).map(shownName).join(', ') + (list.models.length > 5 ? ', …' : '');
        problems.push({
          message: `${names(who)}: the server has no model "${shownName(model)}" (it has ${has}): fix roundtable.participants or pull the model.`,
          action: 'Open Settings',
        });
      }
    }
  }
  return problems;
}
