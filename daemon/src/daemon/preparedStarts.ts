/**
 * Starts prepared by `meeting/estimate` with `prepare`, kept on the connection that asked for a
 * few minutes, so `meeting/startPrepared` opens the meeting on what the estimate read: the topic is
 * sent once and the attached context read once. Bounded: a few per connection (the oldest goes
 * first), each at most `MAX_PREPARED_BYTES`, each for `PREPARED_TTL_MS`; all gone with the
 * connection. The token is 32 random bytes, and good on its own connection only.
 */
import { randomBytes } from 'node:crypto';
import { RpcError } from '@roundtable/protocol';
import type { PreparedStart } from '../meeting/prepared';

/** How long a prepared start waits for the person to confirm it. */
export const PREPARED_TTL_MS = 10 * 60_000;
/** Prepared starts one connection may hold; a new one drops the oldest. */
export const MAX_PREPARED_PER_CONNECTION = 4;
/** A prepared start larger than this (its params and context as JSON) is not kept: the start reads again. */
export const MAX_PREPARED_BYTES = 8 * 1024 * 1024;

/** What an unknown or expired token is answered with; the client then starts with the full params. */
export const PREPARED_GONE = 'the prepared start is gone (expired, or its connection closed): start it again';

export class PreparedStarts {
  private readonly kept = new Map<string, { prepared: PreparedStart; expires: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Keeps `prepared` and returns its token; undefined when it is too large to keep. */
  keep(prepared: PreparedStart): string | undefined {
    if (Buffer.byteLength(JSON.stringify(prepared), 'utf8') > MAX_PREPARED_BYTES) return undefined;
    this.expire();
    while (this.kept.size >= MAX_PREPARED_PER_CONNECTION) this.kept.delete(this.kept.keys().next().value as string);
    const token = randomBytes(32).toString('hex');
    this.kept.set(token, { prepared, expires: this.now() + PREPARED_TTL_MS });
    return token;
  }

  /** Whether this connection holds `token` now (it is not taken). */
  holds(token: string): boolean {
    this.expire();
    return this.kept.has(token);
  }

  /** The prepared start of `token`, taken (a token starts one meeting); `not_found` when gone. */
  take(token: string): PreparedStart {
    this.expire();
    const found = this.kept.get(token);
    if (!found) throw new RpcError('not_found', PREPARED_GONE);
    this.kept.delete(token);
    return found.prepared;
  }

  private expire(): void {
    const now = this.now();
    for (const [token, { expires }] of this.kept) if (expires <= now) this.kept.delete(token);
  }
}
