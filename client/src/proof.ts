/**
 * The challenge–response by which a client and the daemon prove to each other that they hold the
 * data dir's token, without either ever sending it:
 *
 *   client → daemon   initialize   { nonce: Nc }
 *   daemon → client   result       { nonce: Nd, proof: HMAC-SHA256(token, "roundtable-daemon" port Nc) }
 *   client → daemon   authenticate { proof: HMAC-SHA256(token, "roundtable-client" port Nd) }
 *
 * Each side picks its nonce fresh (32 random bytes), so a recorded proof is worth nothing on the
 * next connection; the labels differ, so the daemon's answer to a nonce can never be replayed as a
 * client's proof (nor the reverse); the port the client dialled is in both, so a relay on another
 * port cannot pass the daemon's proof on. Compared in constant time. Used by client/connection.ts
 * and the daemon's auth.ts: one definition for both ends.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, hex. */
export function newNonce(): string {
  return randomBytes(32).toString('hex');
}

function hmac(token: string, label: string, port: number, nonce: string): string {
  return createHmac('sha256', token).update(`${label}\n${port}\n${nonce}`, 'utf8').digest('hex');
}

/** What the daemon listening on `port` answers to a client's nonce. */
export function daemonProof(token: string, port: number, clientNonce: string): string {
  return hmac(token, 'roundtable-daemon', port, clientNonce);
}

/** What a client answers to the daemon's nonce. */
export function clientProof(token: string, port: number, daemonNonce: string): string {
  return hmac(token, 'roundtable-client', port, daemonNonce);
}

/** Constant-time comparison of a proof received with the one expected (both hex digests). */
export function proofMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
