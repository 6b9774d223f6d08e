/** One client connection of the daemon's WebSocket API. */
import type { WebSocket } from 'ws';
import type { DaemonEvents } from '@roundtable/protocol';

/** One client connection: its subscriptions, its agent identities and its cursors. */
export class Connection {
  initialized = false;
  alive = true;
  bad = 0;
  /** meetingId -> last seq sent to this client. */
  readonly subscriptions = new Map<string, { lastSent: number; pumping: boolean; again: boolean }>();
  /** meetingId -> identity bound at join, with its own listen cursor. */
  readonly agents = new Map<string, { name: string; cursor: number }>();
  /** Meetings this connection opened (meeting/start): their opener may end them. */
  readonly opened = new Set<string>();
  /** Meetings this connection has sat in as a worker; kept after a leave, so leaving grants nothing. */
  readonly workerSeats = new Set<string>();
  /** Aborted when the connection closes: work done only for this client (an estimate) stops. */
  readonly gone = new AbortController();
  /** Set when this connection answers vscode-lm calls. */
  unregisterLm: (() => void) | undefined;

  constructor(
    readonly ws: WebSocket,
    readonly id: number,
  ) {}

  send(payload: unknown): void {
    this.sendRaw(JSON.stringify(payload));
  }

  sendRaw(frame: string): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(frame);
  }

  event<K extends keyof DaemonEvents>(method: K, params: DaemonEvents[K]): void {
    this.send({ kind: 'event', method, params });
  }
}
