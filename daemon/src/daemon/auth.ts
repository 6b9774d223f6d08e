/**
 * Who may talk to the daemon. In the HTTP `upgrade` handler, before any WebSocket exists: a Host
 * of 127.0.0.1:<port> or localhost:<port> (defeats DNS rebinding), no browser Origin at all (the
 * extension relays for its webviews, so no browser ever needs the daemon), and a bounded number of
 * connections still in their handshake. Then the handshake (client/src/proof.ts): `initialize`
 * carries the client's nonce and is answered with the daemon's proof and nonce; `authenticate`
 * carries the client's proof. Nothing else is served before it; a wrong proof, or no proof within
 * the deadline, closes the connection. The token itself never crosses the socket.
 */
import * as http from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode, ParamsOf, ResultOf } from '@roundtable/protocol';
import { PROTOCOL_VERSION } from '@roundtable/protocol';
import { clientProof, daemonProof, newNonce, proofMatches } from '@roundtable/client/proof';
import type { Connection } from './connection';

/** Connections that may be in their handshake at once; more are refused with 503 until some finish. */
export const MAX_PENDING_HANDSHAKES = 64;

export function checkUpgrade(
  req: http.IncomingMessage,
  port: number,
  pendingHandshakes: number,
): { ok: true } | { ok: false; status: number; reason: string } {
  if (req.headers.origin !== undefined) {
    return { ok: false, status: 403, reason: 'browser origins are not allowed to connect to the daemon' };
  }
  const host = (req.headers.host ?? '').toLowerCase();
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
    return { ok: false, status: 403, reason: 'the Host header must be 127.0.0.1:<port> or localhost:<port>' };
  }
  if (pendingHandshakes >= MAX_PENDING_HANDSHAKES) {
    return { ok: false, status: 503, reason: `${MAX_PENDING_HANDSHAKES} connections are already in their handshake` };
  }
  return { ok: true };
}

export function refuse(socket: Duplex, status: number, reason: string): void {
  const body = `${reason}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Refused'}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

type Step<R> = { ok: true; result: R } | { ok: false; code: ErrorCode; message: string; close?: boolean };

/** The answer to `initialize`: the version agreed, the proof of the token, and the daemon's nonce. */
export function answerInitialize(
  conn: Connection,
  p: ParamsOf<'initialize'>,
  token: string,
  port: number,
  daemonVersion: string,
): Step<ResultOf<'initialize'>> {
  if (p.protocolVersion !== PROTOCOL_VERSION) {
    return {
      ok: false,
      code: 'version_mismatch',
      message: `protocol version ${p.protocolVersion} is not supported by this daemon (it speaks ${PROTOCOL_VERSION}); update the client or the daemon so they match`,
    };
  }
  if (conn.daemonNonce !== undefined) {
    return { ok: false, code: 'conflict', message: 'initialize was already sent on this connection' };
  }
  if (p.nonce === undefined) {
    return { ok: false, code: 'bad_request', message: 'nonce: initialize must carry the client nonce (64 hex digits)' };
  }
  conn.daemonNonce = newNonce();
  // Declared once, at the only initialize a connection may send: an agent never becomes the person.
  if (p.agent === true) conn.agent = true;
  return {
    ok: true,
    result: {
      protocolVersion: PROTOCOL_VERSION,
      daemonVersion,
      nonce: conn.daemonNonce,
      proof: daemonProof(token, port, p.nonce),
    },
  };
}

/** The check of `authenticate`: one attempt per connection, a wrong proof closes it. */
export function checkAuthenticate(
  conn: Connection,
  p: ParamsOf<'authenticate'>,
  token: string,
  port: number,
): Step<ResultOf<'authenticate'>> {
  if (conn.daemonNonce === undefined) {
    return { ok: false, code: 'not_initialized', message: 'send initialize with the protocol version first' };
  }
  if (conn.authenticated) {
    return { ok: false, code: 'conflict', message: 'this connection is already authenticated' };
  }
  if (!proofMatches(p.proof, clientProof(token, port, conn.daemonNonce))) {
    return { ok: false, code: 'forbidden', message: 'the proof does not match this daemon token', close: true };
  }
  conn.authenticated = true;
  return { ok: true, result: {} };
}
