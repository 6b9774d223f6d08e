/** A WebSocket connection to the daemon: the proven handshake, typed requests and events. */
import WebSocket from 'ws';
import type { DaemonEventListener, MeetingEvent } from '@roundtable/protocol';
import { RpcClient } from '@roundtable/protocol';
import { handshakeFrameProblem, handshakeTimeoutMs, proveDaemon } from './handshake';
import { MeetingHandles } from './meetingHandle';
import { rawText } from './rawData';

export interface ConnectOptions {
  onEvent?: DaemonEventListener;
  /** Named in `initialize` (shows in the daemon's log). */
  client?: string;
  host?: string;
  /** Default timeout of each request (see RpcClient). */
  timeoutMs?: number;
  /** Deadline of the whole handshake (default handshakeTimeoutMs()). */
  handshakeTimeoutMs?: number;
  /** Speaks for an agent (the MCP server), not the person: the daemon lets it end only what it opened. */
  agent?: boolean;
  /**
   * Where this connection's `room/event`s go (a DaemonSession keeps its meetings across
   * reconnections); by default the connection's own, ended when it closes.
   */
  meetings?: MeetingHandles;
}

export interface DaemonConnection {
  rpc: RpcClient;
  ws: WebSocket;
  port: number;
  /** Resolves with the reason once the connection is gone, whoever closed it. */
  closed: Promise<string>;
  /** Adds a listener for daemon → client events; returns its remover. */
  onEvent(listener: DaemonEventListener): () => void;
  /** The meetings followed on this connection: `open` (start) and `attach` give a MeetingHandle. */
  meetings: MeetingHandles;
  close(): Promise<void>;
}

/**
 * Connects and proves, both ways, that this is the data dir's daemon (handshake.ts): the token is
 * never sent, and the connection is handed out only once the daemon has proved it holds it. Any
 * failure closes the socket and clears its timers before it rejects, in one line.
 */
export async function connectDaemon(port: number, token: string, opts: ConnectOptions = {}): Promise<DaemonConnection> {
  const where = `${opts.host ?? '127.0.0.1'}:${port}`;
  const ws = new WebSocket(`ws://${where}`, { maxPayload: 64 * 1024 * 1024 });
  // Errors surface as `close` (or, during the handshake, as its failure); without a listener `error` would throw.
  ws.on('error', () => undefined);
  const listeners = new Set<DaemonEventListener>(opts.onEvent ? [opts.onEvent] : []);
  const meetings = opts.meetings ?? new MeetingHandles({ rpc: () => Promise.resolve(rpc) });
  const rpc = new RpcClient(
    { send: (text) => ws.send(text), close: () => ws.close() },
    (method, params) => {
      if (method === 'room/event') meetings.receive((params as { event: MeetingEvent }).event);
      for (const l of [...listeners]) l(method, params);
    },
    opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {},
  );
  let proven = false;
  let failHandshake: (e: Error) => void = () => undefined;
  ws.on('message', (data: WebSocket.RawData) => {
    const text = rawText(data);
    const bad = proven ? undefined : handshakeFrameProblem(text, rpc);
    if (bad) failHandshake(new Error(`the process on ${where} is not this data dir's Roundtable daemon: ${bad}`));
    else rpc.receive(text);
  });
  const closed = new Promise<string>((resolve) =>
    ws.once('close', () => {
      rpc.closedBy('the daemon closed the connection');
      resolve('the daemon closed the connection');
    }),
  );
  try {
    await proveDaemon(ws, rpc, {
      where,
      port,
      token,
      client: opts.client ?? 'roundtable-cli',
      ...(opts.agent ? { agent: true } : {}),
      timeoutMs: opts.handshakeTimeoutMs ?? handshakeTimeoutMs(),
      onFail: (fail) => (failHandshake = fail),
    });
  } catch (e) {
    ws.terminate();
    rpc.closedBy((e as Error).message);
    throw e;
  }
  proven = true;
  const onEvent = (listener: DaemonEventListener): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  // One connection, no reconnect: once it is gone nothing more arrives, and waiters hear why.
  if (!opts.meetings) void closed.then((reason) => meetings.end(`${reason} before the meeting ended`));
  return {
    rpc,
    ws,
    port,
    closed,
    onEvent,
    meetings,
    close: () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
}
