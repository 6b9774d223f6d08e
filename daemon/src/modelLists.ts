/**
 * The model lists of OpenAI-compatible servers as the daemon asks them (client/src/models.ts does
 * the asking): what a list says about its models is handed to the server profile, so the provider
 * sends each server the parameters it accepts. Above the providers: they are handed `listModels`
 * (providers/registry.ts), they do not reach for the client.
 */
import * as client from '@roundtable/client/models';
import type { ModelInfo, ModelList } from '@roundtable/protocol/modelList';
import { untilAborted } from './providers/openaiErrors';
import { normalizeBaseURL, noteServerModels } from './providers/serverProfile';

const note = (baseUrl: string) => (infos: ModelInfo[]) => noteServerModels(baseUrl, infos);

/** The model ids a server lists, or why it could not be asked; what it says of them is noted. */
export function listModels(baseUrl: string, o: client.ListModelsOptions = {}): Promise<ModelList> {
  return client.listModels(baseUrl, { ...o, onInfos: note(baseUrl) });
}

/** The local servers that answer with at least one model, in `LOCAL_SERVERS` order. */
export function probeLocalServers(
  o: { timeoutMs?: number; servers?: readonly { name: string; baseUrl: string }[] } = {},
): Promise<{ name: string; baseUrl: string; models: string[] }[]> {
  return client.probeLocalServers({ ...o, onInfos: note });
}

/** Each server's answer to `readServerSlots`, asked once per server for the daemon's life. */
const slotsAsked = new Map<string, Promise<number | undefined>>();

/**
 * How many requests the server runs at once, where it says (llama.cpp's `/props`): asked once per
 * server for the daemon's life, before its first call; never fails, never waits past `signal`.
 */
export function serverSlots(
  baseUrl: string,
  apiKey: string | undefined,
  signal?: AbortSignal,
): Promise<number | undefined> {
  const key = normalizeBaseURL(baseUrl);
  let asked = slotsAsked.get(key);
  if (!asked) slotsAsked.set(key, (asked = client.readServerSlots(key, apiKey ? { apiKey } : {})));
  return signal ? untilAborted(asked, signal).catch(() => undefined) : asked;
}
