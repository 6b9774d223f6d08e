/**
 * The client's side of the handshake (client/src/proof.ts): whoever listens on the port named in
 * `daemon.json` is the daemon only once it has answered `initialize` with the proof of the token,
 * and only then does the client prove itself; the token is never sent, and no other request (so
 * no API key) goes out before. One deadline covers all of it, the TCP connect, the HTTP upgrade
 * and both answers (10 s, `ROUNDTABLE_HANDSHAKE_TIMEOUT_MS`; a daemon starting up on a loaded
 * machine may take seconds): a port that accepts and never answers, answers HTTP instead of
 * upgrading, sends garbage, an event, an answer to a request it was not sent, a frame over the
 * size limit or a wrong proof fails in one line, and the caller
 * closes the socket.
 */
import type WebSocket from 'ws';
import {
  MAX_MESSAGE_BYTES,
  PROTOCOL_VERSION,
  RpcError,
  UNSAFE_CHARS,
  collapseWhitespace,
  parseEnvelope,
  type RpcClient,
} from '@roundtable/protocol';
import { clientProof, daemonProof, newNonce, proofMatches } from './proof';

export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;

/** The handshake's deadline: `ROUNDTABLE_HANDSHAKE_TIMEOUT_MS` when it is a whole number of ms from 1 to 600,000. */
export function handshakeTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.ROUNDTABLE_HANDSHAKE_TIMEOUT_MS;
  return v && /^\d{1,6}$/.test(v) && Number(v) >= 1 && Number(v) <= 600_000 ? Number(v) : DEFAULT_HANDSHAKE_TIMEOUT_MS;
}

const UNSAFE_RE = new RegExp(`[${UNSAFE_CHARS}]`, 'g');

/** Text from a peer not proven yet, fit for one line of an error: no control characters, short. */
export function peerText(text: string, max = 200): string {
  const clean = collapseWhitespace(text.replace(UNSAFE_RE, ''));
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** Why a frame received during the handshake is not the daemon's answer, or undefined when it may be. */
export function handshakeFrameProblem(text: string, rpc: RpcClient): string | undefined {
  const env = parseEnvelope(text, MAX_MESSAGE_BYTES);
  if (!env.ok) return `it sent a frame the protocol refuses (${peerText(env.error, 120)})`;
  if (env.value.kind !== 'response')
    return `it sent ${env.value.kind === 'event' ? 'an event' : 'a request'} before the handshake was done`;
  if (!rpc.isPending(env.value.id)) return `it answered request ${env.value.id}, which it was not sent`;
  return undefined;
}

/** Resolves once the WebSocket is open; rejects with one line when the peer does not upgrade. */
function opened(ws: WebSocket, where: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      const done = (): void => {
        res.destroy();
        reject(
          new Error(
            `the process on ${where} refused the connection (HTTP ${res.statusCode ?? '?'})${body ? `: ${peerText(body)}` : ''}`,
          ),
        );
      };
      res.on('data', (d: Buffer) => {
        body += d.toString('utf8');
        if (body.length > 1024) done();
      });
      res.on('end', done);
      res.on('error', done);
    });
    ws.once('error', (e) => reject(new Error(`could not connect to ${where}: ${peerText(e.message)}`)));
  });
}

export interface ProveOptions {
  where: string;
  port: number;
  token: string;
  client: string;
  /** Declares the connection an agent's (see `initialize`'s `agent`). */
  agent?: boolean;
  timeoutMs: number;
  /** Receives the function by which the caller fails the handshake (a bad frame, the socket closing). */
  onFail: (fail: (e: Error) => void) => void;
}

/** The handshake's steps under one deadline; the caller closes the socket if it rejects. */
export async function proveDaemon(ws: WebSocket, rpc: RpcClient, o: ProveOptions): Promise<void> {
  const notDaemon = `the process on ${o.where} is not this data dir's Roundtable daemon`;
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_resolve, reject) => {
    o.onFail(reject);
    timer = setTimeout(
      () =>
        reject(
          new RpcError(
            'timeout',
            `${notDaemon}: it did not complete the handshake (initialize) within ${o.timeoutMs / 1000} s (a daemon still starting on a busy machine may need longer: ROUNDTABLE_HANDSHAKE_TIMEOUT_MS)`,
          ),
        ),
      o.timeoutMs,
    );
  });
  const steps = async (): Promise<void> => {
    await opened(ws, o.where);
    const nonce = newNonce();
    const init = await rpc.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      client: o.client,
      nonce,
      ...(o.agent ? { agent: true } : {}),
    });
    if (!proofMatches(init.proof, daemonProof(o.token, o.port, nonce)))
      throw new Error(`${notDaemon}: its answer to initialize does not prove it holds the token`);
    await rpc.request('authenticate', { proof: clientProof(o.token, o.port, init.nonce) });
  };
  try {
    await Promise.race([steps(), failed]);
  } catch (e) {
    // A refusal from a peer not proven yet is its text, not ours: one clean line, its code kept.
    if (e instanceof RpcError && e.code === 'closed')
      throw new RpcError('closed', `${notDaemon}: it closed the connection during the handshake`);
    if (e instanceof RpcError && e.code !== 'timeout')
      throw new RpcError(e.code, `the process on ${o.where} refused the handshake: ${peerText(e.message, 300)}`);
    throw e;
  } finally {
    clearTimeout(timer);
    failed.catch(() => undefined);
  }
}
