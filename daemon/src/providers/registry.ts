/**
 * Which provider answers for each kind of seat, and what it needs: the one table every process
 * that runs a meeting builds its providers from (the daemon, `roundtable run` and `resolve` in
 * their own process). A new provider is its own file and one line here; its kind is added to
 * `PROVIDER_KINDS` (protocol/src/domain.ts), and `PROVIDERS` is typed over those kinds, so the
 * compiler asks for the other. A kind not in the table is refused in one line (`providerEntry`).
 */
import type { Participant, ProviderKind } from '@roundtable/protocol';
import { PROVIDER_KINDS, RpcError } from '@roundtable/protocol';
import type { ListModels } from '@roundtable/protocol/modelList';
import type { ServerSlots } from './types';
import { loadDemoScript } from './demo';
import { OpenAIProvider } from './openai';
import { ScriptedProvider, parseScript, type Script } from './scripted';
import { ProviderError, type ChatProvider } from './types';
import type { VscodeLmBridge } from './vscodeLm';

/** What a process gives the providers of one meeting. */
export interface ProviderSetup {
  /** The OpenAI-compatible server, resolved by client/src/config.ts. */
  baseURL: string;
  apiKey?: string;
  /** The meeting's script (the shipped demo's when none). */
  script?: Script;
  /** The VS Code window connected to the daemon, if any. */
  lmBridge?: VscodeLmBridge;
  log?: (line: string) => void;
  /** How a server's model list is asked (what it says of its models is noted for its provider). */
  listModels?: ListModels;
  /** How a server's slots are asked (llama.cpp's `/props`), for the endpoint limiter. */
  serverSlots?: ServerSlots;
  /** Providers kept across the meetings of one process: one OpenAI client per endpoint and key. */
  shared: Map<string, ChatProvider>;
}

export interface ProviderEntry {
  /**
   * What answering needs: a model `server`, a `script`, or the `daemon` with VS Code or an agent
   * connected to it (a process of its own, as `roundtable run --no-daemon`, cannot answer those).
   */
  needs: 'server' | 'script' | 'daemon';
  /** The provider for this kind's seats in one meeting (called once per meeting, when a seat of the kind first speaks). */
  create(setup: ProviderSetup): (p: Participant) => ChatProvider;
}

/** A seat nobody in this process can answer: every call fails with one line saying what it needs. */
function unreachable(p: Participant): ChatProvider {
  return {
    id: p.provider,
    chat: () =>
      Promise.reject(
        new ProviderError(
          `${p.name} uses ${p.provider}, which needs the VS Code extension connected to the daemon`,
          'unreachable',
        ),
      ),
  };
}

function openai(s: ProviderSetup): ChatProvider {
  const key = `openai\u0000${s.baseURL}\u0000${s.apiKey ?? ''}`;
  let client = s.shared.get(key);
  if (!client) {
    client = new OpenAIProvider({
      baseURL: s.baseURL,
      ...(s.apiKey ? { apiKey: s.apiKey } : {}),
      ...(s.log ? { log: s.log } : {}),
      ...(s.listModels ? { listModels: s.listModels } : {}),
      ...(s.serverSlots ? { serverSlots: s.serverSlots } : {}),
    });
    s.shared.set(key, client);
  }
  return client;
}

/** Every seat of the kind answered by one provider. */
const always = (provider: ChatProvider) => (): ChatProvider => provider;

export const PROVIDERS: { readonly [K in ProviderKind]: ProviderEntry } = {
  openai: { needs: 'server', create: (s) => always(openai(s)) },
  scripted: { needs: 'script', create: (s) => always(new ScriptedProvider(s.script ?? parseScript(loadDemoScript()))) },
  // Without a bridge (a process with no VS Code window connected) nobody can answer.
  'vscode-lm': { needs: 'daemon', create: (s) => (s.lmBridge ? always(s.lmBridge) : unreachable) },
  // The daemon's meeting manager seats the agents (daemon/src/daemon/manager.ts); anywhere else nobody can.
  attached: { needs: 'daemon', create: () => unreachable },
};

/** The entry of a kind, or a `bad_request` in one line naming the kinds there are. */
export function providerEntry(kind: string): ProviderEntry {
  if (!Object.hasOwn(PROVIDERS, kind))
    throw new RpcError('bad_request', `unknown provider "${kind}": Roundtable has ${PROVIDER_KINDS.join(', ')}`);
  return PROVIDERS[kind as ProviderKind];
}

/** The lookup of one meeting: each seat's provider from the table, built once per kind. */
export function meetingProviders(setup: ProviderSetup): (p: Participant) => ChatProvider {
  const made = new Map<string, (p: Participant) => ChatProvider>();
  return (p) => {
    let of = made.get(p.provider);
    if (!of) made.set(p.provider, (of = providerEntry(p.provider).create(setup)));
    return of(p);
  };
}
