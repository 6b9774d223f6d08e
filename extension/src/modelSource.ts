/**
 * Where the extension's chat models come from. Normally that is `vscode.lm` (Copilot and any other
 * provider registered in VS Code). Tests launched with ROUNDTABLE_TEST_LM_MODELS get stub models
 * instead (testStubModels.ts), because VS Code 1.100 cannot register a chat model without proposed
 * API: the stubs then go through exactly the same bridge, picker and preflight code.
 */
import * as vscode from 'vscode';
import type { ModelChoice } from '@roundtable/protocol';
import { costRank, familyOf } from '@roundtable/protocol';
import { listModels } from '@roundtable/client/models';
import { DEFAULT_BASE_URL } from '@roundtable/client/config';
import type { ChatModel, ModelSource } from './chatModel';
import { STUB_VENDOR, stubModelSourceFromEnv } from './testStubModels';

/** VS Code's own language models: the normal path. */
export function vscodeLmSource(context: vscode.ExtensionContext): ModelSource {
  return {
    label: 'VS Code',
    select: async (selector) => vscode.lm.selectChatModels(selector),
    canSendRequest: (model) => context.languageModelAccessInformation.canSendRequest(model as vscode.LanguageModelChat),
  };
}

let chosen: ModelSource | undefined;

/**
 * The stub models when a test asked for them, else `vscode.lm`. Decided once (at activation, by
 * the bridge) so the bridge, the picker and the preflight always see the same models.
 */
export function modelSourceFor(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): ModelSource {
  chosen ??= stubModelSourceFromEnv(process.env, log) ?? vscodeLmSource(context);
  return chosen;
}

/** Picks a model by id, then by family ("gpt-4o"), then by vendor ("copilot"). */
export async function findModel(source: ModelSource, model: string): Promise<ChatModel | undefined> {
  for (const selector of [{ id: model }, { family: model }, { vendor: model }]) {
    const found = await source.select(selector);
    if (found[0]) return found[0];
  }
  return model === 'auto' || model === 'default' ? (await source.select())[0] : undefined;
}

const VENDOR_NAMES: Record<string, string> = { copilot: 'GitHub Copilot', [STUB_VENDOR]: 'Test stub models' };

/** The VS Code models as panel choices, each saying where it comes from. */
export async function chatModelChoices(source: ModelSource): Promise<ModelChoice[]> {
  const models = await source.select().catch(() => [] as ChatModel[]);
  return models.map((m) => ({
    provider: 'vscode-lm' as const,
    id: m.id,
    family: m.family || m.id,
    source: VENDOR_NAMES[m.vendor] ?? `${source.label}: ${m.vendor}`,
    cost: costRank(m.id),
  }));
}

/** "Server at 127.0.0.1:11434" from a base URL, without any credentials in it. */
export function serverLabel(baseUrl: string): string {
  try {
    return `Server at ${new URL(baseUrl).host}`;
  } catch {
    return 'OpenAI-compatible server';
  }
}

/**
 * The configured OpenAI-compatible server's models as panel choices. Nothing is asked of
 * api.openai.com without a key (it would only refuse); a server that is down adds no models, and
 * why is returned for the log.
 */
export async function serverModelChoices(o: {
  baseUrl: string;
  apiKey?: string;
  timeoutMs?: number;
}): Promise<{ models: ModelChoice[]; problem?: string }> {
  if (!o.baseUrl && !o.apiKey) return { models: [] };
  const baseUrl = o.baseUrl || DEFAULT_BASE_URL;
  const list = await listModels(baseUrl, {
    timeoutMs: o.timeoutMs ?? 2_000,
    ...(o.apiKey ? { apiKey: o.apiKey } : {}),
  });
  if (!list.ok) return { models: [], problem: list.error };
  const source = serverLabel(baseUrl);
  return {
    models: list.models.map((id) => ({ provider: 'openai' as const, id, family: familyOf(id), source })),
  };
}
