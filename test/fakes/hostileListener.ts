/**
 * Whatever may listen on the port a `daemon.json` names once the daemon is gone: real sockets on
 * 127.0.0.1 that accept and never answer, answer HTTP, upgrade and misbehave. Each records every
 * byte it received, so a test can check that neither the token nor an API key reached it, and
 * whether the client closed its socket. `plantDaemon` writes the discovery files a test needs.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import * as net from 'node:net';
import * as path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { PROTOCOL_VERSION } from '@roundtable/protocol';
import type { DaemonInfo } from '@roundtable/client';
import { processIdentity } from '@roundtable/client/processIdentity';
import { rawText } from '@roundtable/client/rawData';

export interface Listener {
  port: number;
  /** Everything received, raw bytes as latin1 text (headers and frames alike). */
  received(): string;
  /** The frames received over WebSocket, as text. */
  frames: string[];
  /** Resolves once every socket accepted so far has closed. */
  allClosed(): Promise<void>;
  accepted(): number;
  close(): Promise<void>;
}

/** A TCP server that accepts and, with `answer`, writes it once (or never). */
export async function tcpListener(answer?: string): Promise<Listener> {
  const sockets: net.Socket[] = [];
  const closedOnes: Promise<void>[] = [];
  let bytes = '';
  const server = net.createServer((s) => {
    sockets.push(s);
    closedOnes.push(new Promise((r) => s.once('close', () => r())));
    s.on('data', (d) => (bytes += d.toString('latin1')));
    s.on('error', () => undefined);
    if (answer !== undefined) s.write(answer);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    received: () => bytes,
    frames: [],
    allClosed: async () => void (await Promise.all(closedOnes)),
    accepted: () => sockets.length,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A WebSocket server that upgrades anyone; `onFrame` decides what it answers to each frame. */
export async function wsListener(onFrame: (ws: WebSocket, frame: string, n: number) => void): Promise<Listener> {
  const frames: string[] = [];
  const closedOnes: Promise<void>[] = [];
  let bytes = '';
  let accepted = 0;
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 64 * 1024 * 1024 });
  wss.on('connection', (ws, req) => {
    accepted++;
    bytes += JSON.stringify(req.headers);
    closedOnes.push(new Promise((r) => ws.once('close', () => r())));
    let n = 0;
    ws.on('message', (d: Buffer) => {
      const text = rawText(d);
      frames.push(text);
      bytes += text;
      onFrame(ws, text, n++);
    });
    ws.on('error', () => undefined);
  });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  return {
    port: (wss.address() as net.AddressInfo).port,
    received: () => bytes,
    frames,
    allClosed: async () => void (await Promise.all(closedOnes)),
    accepted: () => accepted,
    close: () =>
      new Promise<void>((r) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => r());
      }),
  };
}

/**
 * Writes `daemon.json` and a 0600 `token` into a data dir. By default the record is one this
 * client believes: this test process's pid and its real process start, the current protocol.
 */
export async function plantDaemon(
  dataDir: string,
  info: Partial<Record<keyof DaemonInfo, unknown>> & { port: number },
): Promise<{ token: string; info: Record<string, unknown> }> {
  const token = randomBytes(32).toString('hex');
  const record = {
    pid: process.pid,
    protocolVersion: PROTOCOL_VERSION,
    daemonVersion: 'planted',
    startedAt: Date.now(),
    processStart: (await processIdentity(process.pid))?.start,
    ...info,
  };
  await writeFile(path.join(dataDir, 'token'), `${token}\n`, { mode: 0o600 });
  await writeFile(path.join(dataDir, 'daemon.json'), JSON.stringify(record), { mode: 0o600 });
  return { token, info: record };
}
