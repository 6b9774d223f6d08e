/** One client connection of the daemon's WebSocket API. */
import type { WebSocket } from 'ws';
import type { DaemonEvents } from '@roundtable/protocol';
import { CLIENT_REQUESTS, OutgoingCalls } from '@roundtable/protocol';
import { PreparedStarts } from './preparedStarts';

/** One client connection: its subscriptions, its agent identities and its cursors. */
export class Connection {
  /** The nonce this daemon sent in answer to `initialize`; the client's `authenticate` answers it. */
  daemonNonce: string | undefined;
  /** Set once the client proved it holds the token; nothing else is served before. */
  authenticated = false;
  /** Closes the connection if the handshake is not done in time; cleared once it is. */
  handshakeTimer: NodeJS.Timeout | undefined;
  /** Declared at `initialize`: this connection speaks for an agent (the MCP server), not the person. */
  agent = false;
  alive = true;
  bad = 0;
  /** meetingId -> last seq sent to this client. */
  readonly subscriptions = new Map<string, { lastSent: number; pumping: boolean; again: boolean }>();
  /** meetingId -> identity bound at join, with its own listen cursor. */
  readonly agents = new Map<string, { name: string; cursor: number }>();
  /** Meetings this connection opened (meeting/start): their opener may end them. */
  readonly opened = new Set<string>();
  /** Meetings this connection has taken a seat in; kept after a leave, so leaving grants nothing. */
  readonly seated = new Set<string>();
  /** Starts its estimates prepared, for `meeting/startPrepared` on this connection only. */
  readonly prepared = new PreparedStarts();
  /** Aborted when the connection closes: work done only for this client (an estimate) stops. */
  readonly gone = new AbortController();
  /** Set when this connection answers vscode-lm calls. */
  unregisterLm: (() => void) | undefined;
  /** The daemon's requests to this client (`lm/chat`), waiting for their answers: failed when it goes. */
  readonly calls = new OutgoingCalls(CLIENT_REQUESTS, (m) => this.send(m), {
    timeoutMs: 0,
    peer: 'the VS Code window',
  });
  /** This client's requests being served, by id: its `$/cancelRequest` aborts one. */
  readonly serving = new Map<number, AbortController>();

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
