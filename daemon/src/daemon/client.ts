/** Node client of the daemon's WebSocket API (used by the CLI and the tests). */
import WebSocket from 'ws';
import type { DaemonEvents } from '../../../protocol/src';
import { PROTOCOL_VERSION, RpcClient } from '../../../protocol/src';
import { rawText } from './rawData';

export interface DaemonConnection {
  rpc: RpcClient;
  ws: WebSocket;
  close(): Promise<void>;
}

export type EventListener = <K extends keyof DaemonEvents>(method: K, params: DaemonEvents[K]) => void;

/** Connects, authenticates with the token and sends `initialize`. */
export async function connectDaemon(
  port: number,
  token: string,
  opts: { onEvent?: EventListener; client?: string; host?: string } = {},
): Promise<DaemonConnection> {
  const ws = new WebSocket(`ws://${opts.host ?? '127.0.0.1'}:${port}`, {
    headers: { Authorization: `Bearer ${token}` },
    maxPayload: 64 * 1024 * 1024,
  });
  const rpc = new RpcClient(
    {
      send: (text) => ws.send(text),
      close: () => ws.close(),
    },
    opts.onEvent,
  );
  ws.on('message', (data: WebSocket.RawData) => rpc.receive(rawText(data)));
  ws.on('close', () => rpc.closedBy('the daemon closed the connection'));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => reject(new Error(`the daemon refused the connection (${res.statusCode}): ${body.trim()}`)));
    });
    ws.once('error', reject);
  });
  await rpc.request('initialize', { protocolVersion: PROTOCOL_VERSION, client: opts.client ?? 'roundtable-cli' });
  return {
    rpc,
    ws,
    close: () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
}
