/**
 * Who may connect to the daemon, settled in the HTTP `upgrade` handler before any WebSocket
 * exists: a valid token (compared in constant time), a Host of 127.0.0.1:<port> or
 * localhost:<port> (defeats DNS rebinding), and no browser Origin at all (the extension relays
 * for its webviews, so no browser ever needs the daemon).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { Duplex } from 'node:stream';

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** Constant-time token check: both sides are hashed first so lengths never leak through timing. */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  return timingSafeEqual(digest(given), digest(expected));
}

export function checkUpgrade(
  req: http.IncomingMessage,
  token: string,
  port: number,
): { ok: true } | { ok: false; status: number; reason: string } {
  if (req.headers.origin !== undefined) {
    return { ok: false, status: 403, reason: 'browser origins are not allowed to connect to the daemon' };
  }
  const host = (req.headers.host ?? '').toLowerCase();
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
    return { ok: false, status: 403, reason: 'the Host header must be 127.0.0.1:<port> or localhost:<port>' };
  }
  const auth = req.headers.authorization;
  const given = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : undefined;
  if (!tokenMatches(given, token)) return { ok: false, status: 401, reason: 'a valid token is required' };
  return { ok: true };
}

export function refuse(socket: Duplex, status: number, reason: string): void {
  const body = `${reason}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Refused'}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
