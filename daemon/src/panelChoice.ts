/**
 * Which panel `roundtable run` uses, and on which server. `--provider auto` (the default) uses a
 * configured server (`--base-url`, `ROUNDTABLE_BASE_URL`, or an API key for OpenAI), else the first
 * local server that answers the probe with models (Ollama, LM Studio, vLLM), else the scripted
 * demo, said plainly on stderr. Without `--model`/`--models`, a server's own model list builds
 * the panel (distinct families as workers, see protocol/src/panel.ts).
 */
import * as path from 'node:path';
import type { Participant } from '@roundtable/protocol';
import { familyOf, proposePanel, PANEL_WORKERS, type ModelChoice } from '@roundtable/protocol/panel';
import type { ModelList } from '@roundtable/protocol/modelList';
import { loadPanel } from './panel';
import { listModels, probeLocalServers } from './modelLists';
import { LOCAL_SERVERS } from '@roundtable/client/models';
import { NoModelError, UsageError } from '@roundtable/client/usage';
import { apiKeyOf, baseUrlOf, configuredBaseUrl } from '@roundtable/client/config';
import { examplesDir } from './providers/demo';

export type ProviderFlag = 'auto' | 'scripted' | 'openai';

export interface PanelChoiceInput {
  provider: ProviderFlag;
  /** --participants FILE */
  participantsFile?: string;
  /** --model: every participant */
  model?: string;
  /** --models a,b,c: one per worker */
  models?: string[];
  /** --base-url */
  baseUrl?: string;
  /** --script given: scripted replies were asked for, so `auto` means scripted. */
  script?: boolean;
  env: NodeJS.ProcessEnv;
}

export interface PanelChoice {
  participants: Participant[];
  baseURL: string;
  /** True when the panel is the shipped scripted demo chosen because no model was found. */
  demoFallback: boolean;
  /** One line for stderr saying what was chosen (a server found by the probe), if anything. */
  notice?: string;
}

export interface PanelChoiceDeps {
  listModels?: (baseUrl: string, o?: { apiKey?: string }) => Promise<ModelList>;
  /** The local servers to probe; default `LOCAL_SERVERS`, or `ROUNDTABLE_PROBE_SERVERS` (comma-separated URLs). */
  probe?: () => Promise<{ name: string; baseUrl: string; models: string[] }[]>;
}

/** Tests (and unusual setups) name the servers to probe; an empty value probes none. */
function probeServers(env: NodeJS.ProcessEnv): readonly { name: string; baseUrl: string }[] {
  const raw = env.ROUNDTABLE_PROBE_SERVERS;
  if (raw === undefined) return LOCAL_SERVERS;
  return raw
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean)
    .map((baseUrl) => ({ name: baseUrl, baseUrl }));
}

export function parseModelsFlag(v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const list = v.split(',').map((m) => m.trim());
  if (list.some((m) => !m) || list.length < 2 || list.length > PANEL_WORKERS.length)
    throw new UsageError(
      `--models takes 2 to ${PANEL_WORKERS.length} model names separated by commas, one per worker, got "${v}"`,
    );
  return list;
}

function demoPanel(): Participant[] {
  return loadPanel(path.join(examplesDir(), 'demo-panel.json'));
}

function choices(ids: readonly string[], source: string): ModelChoice[] {
  return ids.map((id) => ({ provider: 'openai', id, family: familyOf(id), source }));
}

/** Gives each worker its model from `--models`, in order; the count must match. */
function withWorkerModels(panel: Participant[], models: string[]): Participant[] {
  const workers = panel.filter((p) => p.role === 'worker').length;
  if (workers !== models.length)
    throw new UsageError(
      `--models names ${models.length} models but the panel has ${workers} workers: give one per worker`,
    );
  let i = 0;
  return panel.map((p) => (p.role === 'worker' ? { ...p, model: models[i++] as string } : p));
}

/** A panel on one OpenAI-compatible server: from `--models`/`--model`, a file, or the server's list. */
async function serverPanel(
  input: PanelChoiceInput,
  baseURL: string,
  deps: PanelChoiceDeps,
  listed?: string[],
): Promise<Participant[]> {
  const apiKey = apiKeyOf(input.env);
  if (input.participantsFile) {
    let panel: Participant[] = loadPanel(input.participantsFile).map((p) => ({ ...p, provider: 'openai' as const }));
    if (input.model) panel = panel.map((p) => ({ ...p, model: input.model as string }));
    if (input.models) panel = withWorkerModels(panel, input.models);
    return panel;
  }
  if (input.models) {
    // The user's models as workers, in order; judge and assistant chosen among them.
    const panel = proposePanel(choices(input.models, baseURL), { workers: input.models.length }) ?? [];
    const given = withWorkerModels(panel, input.models);
    return input.model ? given.map((p) => (p.role === 'worker' ? p : { ...p, model: input.model as string })) : given;
  }
  if (input.model) return proposePanel(choices([input.model], baseURL)) ?? [];
  let models = listed;
  if (!models) {
    const list = await (deps.listModels ?? listModels)(baseURL, apiKey ? { apiKey } : {});
    if (!list.ok) throw new NoModelError(`${list.error} — start it, fix --base-url, or name the model with --model`);
    models = list.models;
  }
  const panel = proposePanel(choices(models, baseURL));
  if (!panel)
    throw new NoModelError(
      `${baseURL} lists no models — load one on the server (e.g. \`ollama pull llama3.1\`) or name it with --model`,
    );
  return panel;
}

function workerModels(panel: Participant[]): string {
  return panel
    .filter((p) => p.role === 'worker')
    .map((p) => p.model)
    .join(', ');
}

export async function choosePanel(input: PanelChoiceInput, deps: PanelChoiceDeps = {}): Promise<PanelChoice> {
  const explicitUrl = configuredBaseUrl(input.env, input.baseUrl);
  const hasKey = apiKeyOf(input.env) !== undefined;
  const baseURL = baseUrlOf(input.env, input.baseUrl);
  const file = (f: string) => {
    try {
      return loadPanel(f);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  };

  if (input.provider === 'scripted' || (input.provider === 'auto' && input.script && !input.participantsFile)) {
    if (input.models) throw new UsageError('--models is for a model server: the scripted demo has no models');
    const panel = (input.participantsFile ? file(input.participantsFile) : demoPanel()).map((p) => ({
      ...p,
      provider: 'scripted' as const,
      ...(input.model ? { model: input.model } : {}),
    }));
    return { participants: panel, baseURL, demoFallback: false };
  }
  if (input.participantsFile) file(input.participantsFile); // a bad file is a usage error, whatever the provider
  if (input.provider === 'openai') {
    return { participants: await serverPanel(input, baseURL, deps), baseURL, demoFallback: false };
  }
  if (input.participantsFile) {
    // `auto` with a panel file: the file names its own providers, used as written.
    let panel = file(input.participantsFile);
    if (input.model) panel = panel.map((p) => ({ ...p, model: input.model as string }));
    if (input.models) panel = withWorkerModels(panel, input.models);
    return { participants: panel, baseURL, demoFallback: false };
  }
  if (explicitUrl || hasKey) {
    return { participants: await serverPanel(input, baseURL, deps), baseURL, demoFallback: false };
  }
  const found = (await (deps.probe ?? (() => probeLocalServers({ servers: probeServers(input.env) })))())[0];
  if (found) {
    const participants = await serverPanel(input, found.baseUrl, deps, found.models);
    return {
      participants,
      baseURL: found.baseUrl,
      demoFallback: false,
      notice: `using ${found.name} at ${found.baseUrl} (workers: ${workerModels(participants)})`,
    };
  }
  if (input.model || input.models)
    throw new NoModelError(
      'no model server found for --model/--models: set ROUNDTABLE_BASE_URL (or --base-url), or start Ollama, LM Studio or vLLM',
    );
  return { participants: demoPanel(), baseURL, demoFallback: true };
}

/** The stderr line when no model was found and the scripted demo runs instead. */
export const DEMO_HINT =
  'No model found — point Roundtable at one with ROUNDTABLE_BASE_URL=http://HOST:PORT/v1 (or --base-url), --provider openai --model NAME with OPENAI_API_KEY, or start Ollama (ollama serve; ollama pull llama3.1)';
