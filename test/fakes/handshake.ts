/**
 * The daemon's handshake done by hand over a raw WebSocket, for tests that then send frames of
 * their own (malformed, hostile, out of order) on an authenticated connection. What a client does
 * is client/src/handshake.ts; the proofs are client/src/proof.ts's.
 */
import WebSocket from 'ws';
import { PROTOCOL_VERSION } from '@roundtable/protocol';
import { rawText } from '@roundtable/client/rawData';
import { clientProof, daemonProof, newNonce } from '@roundtable/client/proof';

interface Reply {
  id?: number;
  ok?: boolean;
  result?: { nonce?: string; proof?: string };
  error?: { code: string; message: string };
}

function nextReply(ws: WebSocket): Promise<Reply> {
  return new Promise((resolve, reject) => {
    ws.once('message', (m: WebSocket.RawData) => resolve(JSON.parse(rawText(m)) as Reply));
    ws.once('close', () => reject(new Error('closed during the handshake')));
  });
}

/** Opens a socket to the daemon on `port`, proves the token both ways (ids 1 and 2) and hands it over. */
export async function openAuthenticated(
  port: number,
  token: string,
  headers: Record<string, string> = {},
): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}`, { headers });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const nonce = newNonce();
  ws.send(
    JSON.stringify({
      kind: 'request',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL_VERSION, client: 'raw', nonce },
    }),
  );
  const init = await nextReply(ws);
  if (init.result?.proof !== daemonProof(token, port, nonce) || !init.result.nonce)
    throw new Error(`initialize was not answered with the proof: ${JSON.stringify(init)}`);
  ws.send(
    JSON.stringify({
      kind: 'request',
      id: 2,
      method: 'authenticate',
      params: { proof: clientProof(token, port, init.result.nonce) },
    }),
  );
  const auth = await nextReply(ws);
  if (!auth.ok) throw new Error(`authenticate was refused: ${JSON.stringify(auth)}`);
  ws.removeAllListeners('close');
  return ws;
}
