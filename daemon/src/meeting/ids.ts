import { randomUUID } from 'node:crypto';

/**
 * A fresh id for a message a human or the engine adds. Random, never read from the state: the
 * state may not yet hold appends that are under way, so five concurrent posts get five ids.
 */
export function newMessageId(prefix = 'h'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}
