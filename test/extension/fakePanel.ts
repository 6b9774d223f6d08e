/**
 * The panel the extension-host suites convene on: the first run's automatic proposal (no saved
 * panel, no picker) from the two models of a real loopback OpenAI-compatible server, answering with
 * the stub responder. A worker's turn on a topic that holds one of `held` is never answered, so a
 * test cuts a meeting mid-round without racing the replies (the cut aborts the call).
 */
import * as vscode from 'vscode';
import { PANEL_WORKERS } from '@roundtable/protocol';
import { stubReply } from '../../extension/src/testStubModels';
import { startFakeOpenAI, seatOf, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';

export const FAKE_PANEL_MODELS = ['alpha-large', 'beta-large'];

function promptOf(body: ChatBody): string {
  return (body.messages ?? []).map((m) => m.content).join('\n');
}

/** Sets the panel up for the current mocha suite (and puts the settings back after it); returns the server. */
export function useFakePanel(held: readonly string[]): () => FakeOpenAI {
  let fake: FakeOpenAI | undefined;
  const config = () => vscode.workspace.getConfiguration('roundtable');
  suiteSetup(async () => {
    fake = await startFakeOpenAI(
      (body) => {
        const prompt = promptOf(body);
        const { me } = seatOf(body);
        if (held.some((t) => prompt.includes(t)) && PANEL_WORKERS.some((w) => w.name === me))
          return new Promise<never>(() => undefined);
        return { text: stubReply({ id: body.model ?? 'model', family: 'fake' }, prompt) };
      },
      { models: FAKE_PANEL_MODELS },
    );
    await config().update('providerBaseUrl', fake.baseURL, vscode.ConfigurationTarget.Global);
    await config().update('maxRounds', 3, vscode.ConfigurationTarget.Global);
    // Two seats for two families: the proposal gives each worker its own family.
    await config().update('workers', 2, vscode.ConfigurationTarget.Global);
  });
  suiteTeardown(async () => {
    await config().update('providerBaseUrl', undefined, vscode.ConfigurationTarget.Global);
    await config().update('maxRounds', undefined, vscode.ConfigurationTarget.Global);
    await config().update('workers', undefined, vscode.ConfigurationTarget.Global);
    await fake?.close();
  });
  return () => {
    if (!fake) throw new Error('the fake panel starts in suiteSetup');
    return fake;
  };
}
