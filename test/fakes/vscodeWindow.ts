/**
 * A fake VS Code window over the daemon's real WebSocket: it answers the daemon's `lm/chat`
 * requests with the test's handler (as extension/src/lmBridge.ts does with `vscode.lm`) and
 * registers for vscode-lm calls. Every frame it receives is kept, so a test can count the wire.
 */
import type { LmChatProgress, LmChatResult, LmRequest, Participant, ServeContext } from '@roundtable/protocol';
import type WebSocket from 'ws';
import { connectDaemon, type DaemonConnection } from '@roundtable/client';
import { rawText } from '@roundtable/client/rawData';

export type LmHandler = (r: LmRequest, call: ServeContext<LmChatProgress>) => Promise<LmChatResult>;

export interface FakeWindow {
  conn: DaemonConnection;
  /** Every frame the daemon sent this window since it connected, parsed. */
  frames: { kind: string; method?: string }[];
  /** Every frame this window sent the daemon, parsed. */
  sent: { kind: string; method?: string }[];
}

export async function connectWindow(
  port: number,
  token: string,
  handler: LmHandler,
  opts: { register?: boolean } = {},
): Promise<FakeWindow> {
  const conn = await connectDaemon(port, token, { client: 'fake-vscode', handshakeTimeoutMs: 120_000 });
  const frames: FakeWindow['frames'] = [];
  const sent: FakeWindow['sent'] = [];
  conn.ws.on('message', (data: WebSocket.RawData) => frames.push(JSON.parse(rawText(data)) as { kind: string }));
  const send = conn.ws.send.bind(conn.ws);
  conn.ws.send = ((text: string, ...rest: never[]) => {
    sent.push(JSON.parse(text) as { kind: string });
    return send(text, ...rest);
  }) as typeof conn.ws.send;
  conn.rpc.handle('lm/chat', handler);
  if (opts.register !== false)
    await conn.rpc.request('lm/register', { models: ['copilot-gpt-4o'], answers: ['lm/chat'] });
  return { conn, frames, sent };
}

/** The panel of the vscode-lm tests: a scripted assistant, and two workers whose model is the window's. */
export const copilotPanel = (): Participant[] => [
  { name: 'sam', role: 'assistant', provider: 'scripted', model: 'scripted' },
  { name: 'ada', role: 'worker', provider: 'vscode-lm', model: 'copilot' },
  { name: 'grace', role: 'worker', provider: 'vscode-lm', model: 'copilot' },
];

/** Answers with `text` in pieces of `size` characters, each sent as progress first. */
export function streamed(text: string, size: number, usage: { promptTokens?: number; completionTokens?: number } = {}) {
  return (call: ServeContext<LmChatProgress>): Promise<LmChatResult> => {
    for (let i = 0; i < text.length; i += size) call.progress({ text: text.slice(i, i + size) });
    return Promise.resolve({ ok: true, text, ...usage });
  };
}
