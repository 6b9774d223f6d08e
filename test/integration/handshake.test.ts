/**
 * The handshake against what may listen on a port `daemon.json` names (issue 32, "trust only what
 * was proven"): every hostile listener is refused in one line, the socket closed, and neither the
 * token nor anything but `initialize` reaches it. Then the daemon's side: wrong, replayed and
 * reflected proofs, out-of-order steps, a handshake never finished, a flood of pending ones.
 * Real sockets on 127.0.0.1 throughout.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { PROTOCOL_VERSION, RpcError, UNSAFE_CHARS } from '@roundtable/protocol';
import { connectDaemon } from '@roundtable/client';
import { handshakeTimeoutMs } from '@roundtable/client/handshake';
import { rawText } from '@roundtable/client/rawData';
import { clientProof, daemonProof, newNonce } from '@roundtable/client/proof';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { tempDataDir } from '../fakes/daemon';
import { tcpListener, wsListener, type Listener } from '../fakes/hostileListener';

const TOKEN = 'a'.repeat(64);
const quiet = (): void => undefined;

/** The refusal of connecting to `l` with a long deadline (so only the listener's misdeed can end it). */
async function refusal(l: Listener, handshakeTimeoutMs = 60_000): Promise<RpcError | Error> {
  try {
    const conn = await connectDaemon(l.port, TOKEN, { handshakeTimeoutMs, timeoutMs: 120_000 });
    await conn.close();
  } catch (e) {
    return e as Error;
  }
  assert.fail('the connection was accepted');
}

/** One line, no terminal escapes, no token: what the CLI prints after `roundtable: `. */
function assertOneLine(e: Error): void {
  assert.doesNotMatch(e.message, new RegExp(`[\\n\\r${UNSAFE_CHARS}]`), e.message);
  assert.ok(!e.message.includes(TOKEN), 'the token is never in an error');
}

/** What a listener answers to the client's initialize, as a daemon would frame it. */
function answering(result: (frame: { id: number; nonce: string }) => unknown): (ws: WebSocket, f: string) => void {
  return (ws, f) => {
    const m = JSON.parse(f) as { id: number; params: { nonce: string } };
    ws.send(JSON.stringify(result({ id: m.id, nonce: m.params.nonce })));
  };
}

describe('the client refuses whatever on the port cannot prove it is the daemon', () => {
  it('a TCP server that accepts and never answers: refused at the deadline, socket closed', async () => {
    const l = await tcpListener();
    const e = await refusal(l, 300);
    assert.ok(e instanceof RpcError && e.code === 'timeout', e.message);
    assert.match(e.message, /did not complete the handshake \(initialize\) within 0\.3 s/);
    assertOneLine(e);
    await l.allClosed();
    assert.ok(!l.received().includes(TOKEN), 'the token is not in the upgrade request');
    await l.close();
  });

  it('HTTP 200 instead of an upgrade: refused naming the status, the page text cleaned to one line', async () => {
    const page = '<html>\u001b[2J hello\r\nworld</html>';
    const l = await tcpListener(`HTTP/1.1 200 OK\r\nContent-Length: ${page.length}\r\n\r\n${page}`);
    const e = await refusal(l);
    assert.match(
      e.message,
      /^the process on 127\.0\.0\.1:\d+ refused the connection \(HTTP 200\): <html>\[2J hello world<\/html>$/,
    );
    assertOneLine(e);
    await l.allClosed();
    await l.close();
  });

  it('HTTP 200 whose body never ends: refused at the deadline, socket closed', async () => {
    const l = await tcpListener('HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n<html>');
    const e = await refusal(l, 300);
    assert.ok(e instanceof RpcError && e.code === 'timeout', e.message);
    await l.allClosed();
    await l.close();
  });

  it('an upgrade followed by garbage: refused at once, not at the deadline', async () => {
    const l = await wsListener((ws) => ws.send('\u001b]0;pwned\u0007 not json\n at all'));
    const e = await refusal(l);
    assert.match(
      e.message,
      /is not this data dir's Roundtable daemon: it sent a frame the protocol refuses \(message is not valid JSON\)$/,
    );
    assertOneLine(e);
    await l.allClosed();
    await l.close();
  });

  it('a wrong proof: refused, and only initialize ever reached the listener (no token, no authenticate)', async () => {
    const l = await wsListener(
      answering(({ id }) => ({
        kind: 'response',
        id,
        ok: true,
        result: { protocolVersion: PROTOCOL_VERSION, daemonVersion: 'x', nonce: newNonce(), proof: newNonce() },
      })),
    );
    const e = await refusal(l);
    assert.match(e.message, /its answer to initialize does not prove it holds the token$/);
    await l.allClosed();
    assert.deepEqual(
      l.frames.map((f) => (JSON.parse(f) as { method: string }).method),
      ['initialize'],
    );
    assert.ok(!l.received().includes(TOKEN) && !/bearer/i.test(l.received()), 'no token in any header or frame');
    await l.close();
  });

  it('a proof recorded for another nonce on this very port (a replay): refused', async () => {
    let port = 0;
    const recorded = newNonce();
    const l = await wsListener(
      answering(({ id }) => ({
        kind: 'response',
        id,
        ok: true,
        result: {
          protocolVersion: PROTOCOL_VERSION,
          daemonVersion: 'x',
          nonce: newNonce(),
          proof: daemonProof(TOKEN, port, recorded),
        },
      })),
    );
    port = l.port;
    const e = await refusal(l);
    assert.match(e.message, /does not prove it holds the token$/);
    await l.close();
  });

  it('an answer to a request it was not sent, and an event before the answer: each refused at once', async () => {
    const wrongId = await wsListener(answering(({ id }) => ({ kind: 'response', id: id + 98, ok: true, result: {} })));
    assert.match((await refusal(wrongId)).message, /it answered request 99, which it was not sent$/);
    await wrongId.close();
    const event = await wsListener((ws) =>
      ws.send(JSON.stringify({ kind: 'event', method: 'daemon/error', params: { code: 'internal', message: 'x' } })),
    );
    assert.match((await refusal(event)).message, /it sent an event before the handshake was done$/);
    await event.close();
  });

  it('a 5 MiB answer: refused for its size, not parsed', async () => {
    const l = await wsListener(
      answering(({ id }) => ({ kind: 'response', id, ok: true, result: 'x'.repeat(5 << 20) })),
    );
    const e = await refusal(l);
    assert.match(
      e.message,
      /it sent a frame the protocol refuses \(message of \d+ bytes exceeds the limit of 4194304\)$/,
    );
    await l.allClosed();
    await l.close();
  });

  it('an error answer carrying newlines and escape codes: one clean line, its code kept', async () => {
    const l = await wsListener(
      answering(({ id }) => ({
        kind: 'response',
        id,
        ok: false,
        error: { code: 'version_mismatch', message: 'update\n\u001b[31mNOW\u001b[0m\r\nplease' },
      })),
    );
    const e = await refusal(l);
    assert.ok(e instanceof RpcError && e.code === 'version_mismatch');
    assert.match(e.message, /refused the handshake: update \[31mNOW\[0m please$/);
    assertOneLine(e);
    await l.close();
  });

  it('an answer of the wrong shape, and a close right after the upgrade: each one line', async () => {
    const shape = await wsListener(answering(({ id }) => ({ kind: 'response', id, ok: true, result: { proof: 1 } })));
    assert.match(
      (await refusal(shape)).message,
      /refused the handshake: the daemon's answer to initialize is malformed/,
    );
    await shape.close();
    const closer = await wsListener((ws) => ws.close());
    assert.match((await refusal(closer)).message, /it closed the connection during the handshake$/);
    await closer.close();
  });

  it('binary garbage, and an answer whose id is a string: each refused at once', async () => {
    const binary = await wsListener((ws) => ws.send(Buffer.from([0xff, 0xfe, 0x00, 0x1b]), { binary: true }));
    assert.match(
      (await refusal(binary)).message,
      /it sent a frame the protocol refuses \(message is not valid JSON\)$/,
    );
    await binary.close();
    const stringId = await wsListener(
      answering(({ id }) => ({ kind: 'response', id: String(id), ok: true, result: {} })),
    );
    assert.match((await refusal(stringId)).message, /it sent a frame the protocol refuses \(id/);
    await stringId.close();
  });

  it('a handshake deadline from the environment that is not a sane number falls back to 10 s', () => {
    for (const v of ['abc', '0', '-5', '1e9', '999999999', ' 5', ''])
      assert.equal(handshakeTimeoutMs({ ROUNDTABLE_HANDSHAKE_TIMEOUT_MS: v }), 10_000, v);
    assert.equal(handshakeTimeoutMs({ ROUNDTABLE_HANDSHAKE_TIMEOUT_MS: '250' }), 250);
  });

  it('a port nobody listens on: could not connect, in one line', async () => {
    const l = await tcpListener();
    await l.close();
    const e = await refusal(l);
    assert.match(e.message, /^could not connect to 127\.0\.0\.1:\d+: connect ECONNREFUSED/);
    assertOneLine(e);
  });
});

describe('the daemon proves itself, and only a client that proves itself in turn is served', () => {
  let d: DaemonHandle;
  const logged: string[] = [];
  before(async () => {
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: (l) => logged.push(l), handshakeMs: 60_000 });
  });
  after(() => d.stop());

  /** A raw socket and its replies in order. */
  async function raw(port = d.port): Promise<{
    ws: WebSocket;
    next: () => Promise<Record<string, unknown>>;
    closed: Promise<number>;
  }> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`);
    const queue: Record<string, unknown>[] = [];
    const waiters: (() => void)[] = [];
    ws.on('message', (m: WebSocket.RawData) => {
      queue.push(JSON.parse(rawText(m)) as Record<string, unknown>);
      waiters.shift()?.();
    });
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    await new Promise((r) => ws.once('open', r));
    const next = async (): Promise<Record<string, unknown>> => {
      while (queue.length === 0) await new Promise<void>((r) => waiters.push(r));
      return queue.shift() ?? {};
    };
    return { ws, next, closed };
  }
  const send = (ws: WebSocket, id: number, method: string, params: unknown): void =>
    ws.send(JSON.stringify({ kind: 'request', id, method, params }));
  const codeOf = (r: Record<string, unknown>): string | undefined => (r.error as { code?: string } | undefined)?.code;

  it('a relay on another port passes the daemon on, and the client refuses it: the proof names the port', async () => {
    const relay = await wsListener((ws, f, n) => {
      if (n > 0) return;
      const up = new WebSocket(`ws://127.0.0.1:${d.port}`);
      up.on('message', (m: WebSocket.RawData) => ws.send(rawText(m)));
      up.once('open', () => up.send(f));
      ws.once('close', () => up.close());
    });
    const e = await connectDaemon(relay.port, d.token, { handshakeTimeoutMs: 60_000 }).then(
      () => assert.fail('accepted through the relay'),
      (x: Error) => x,
    );
    assert.match(e.message, /does not prove it holds the token$/);
    await relay.close();
  });

  it('a token file that no longer matches the running daemon: the client refuses the daemon, sends no proof', async () => {
    const before = logged.length;
    const e = await connectDaemon(d.port, 'b'.repeat(64), { handshakeTimeoutMs: 60_000 }).then(
      () => assert.fail('accepted with another token'),
      (x: Error) => x,
    );
    assert.match(e.message, /does not prove it holds the token$/);
    assert.deepEqual(logged.slice(before), [], 'the daemon saw no proof (a wrong one is logged as refused)');
  });

  it('initialize with a nonce that is not 64 hex digits is refused', async () => {
    const c = await raw();
    send(c.ws, 1, 'initialize', { protocolVersion: PROTOCOL_VERSION, client: 't', nonce: 'ABC' });
    const r = await c.next();
    assert.equal(codeOf(r), 'bad_request');
    assert.match((r.error as { message: string }).message, /nonce must be 64 hex digits/);
    c.ws.terminate();
  });

  it('a wrong client proof is refused and the socket closed (1008); the next client still gets in', async () => {
    const c = await raw();
    send(c.ws, 1, 'initialize', { protocolVersion: PROTOCOL_VERSION, client: 't', nonce: newNonce() });
    await c.next();
    send(c.ws, 2, 'authenticate', { proof: newNonce() });
    assert.equal(codeOf(await c.next()), 'forbidden');
    assert.equal(await c.closed, 1008);
    const good = await connectDaemon(d.port, d.token);
    assert.deepEqual(await good.rpc.request('meeting/list', {}), { meetings: [] });
    await good.close();
  });

  it("the daemon's answer to a nonce cannot be reflected as a client's proof", async () => {
    const a = await raw();
    send(a.ws, 1, 'initialize', { protocolVersion: PROTOCOL_VERSION, client: 'a', nonce: newNonce() });
    const nd = ((await a.next()).result as { nonce: string }).nonce;
    const b = await raw();
    send(b.ws, 1, 'initialize', { protocolVersion: PROTOCOL_VERSION, client: 'b', nonce: nd });
    const reflected = ((await b.next()).result as { proof: string }).proof;
    send(a.ws, 2, 'authenticate', { proof: reflected });
    assert.equal(codeOf(await a.next()), 'forbidden');
    assert.equal(await a.closed, 1008);
    b.ws.terminate();
  });

  it("a client's proof replayed on a new connection is refused", async () => {
    const real = await raw();
    send(real.ws, 1, 'initialize', { protocolVersion: PROTOCOL_VERSION, client: 'real', nonce: newNonce() });
    const nd = ((await real.next()).result as { nonce: string }).nonce;
    const seen = clientProof(d.token, d.port, nd);
    send(real.ws, 2, 'authenticate', { proof: seen });
    assert.equal((await real.next()).ok, true, 'the real client got in');
    const replayer = await raw();
    send(replayer.ws, 1, 'initialize', { protocolVersion: PROTOCOL_VERSION, client: 'r', nonce: newNonce() });
    await replayer.next();
    send(replayer.ws, 2, 'authenticate', { proof: seen });
    assert.equal(codeOf(await replayer.next()), 'forbidden');
    assert.equal(await replayer.closed, 1008);
    real.ws.close();
  });

  it('out of order: authenticate first, initialize twice, initialize without a nonce, a request before authenticate', async () => {
    const c = await raw();
    send(c.ws, 1, 'authenticate', { proof: newNonce() });
    assert.equal(codeOf(await c.next()), 'not_initialized');
    send(c.ws, 2, 'initialize', { protocolVersion: PROTOCOL_VERSION, client: 't' });
    assert.equal(codeOf(await c.next()), 'bad_request');
    send(c.ws, 3, 'initialize', { protocolVersion: PROTOCOL_VERSION, client: 't', nonce: newNonce() });
    assert.equal((await c.next()).ok, true);
    send(c.ws, 4, 'meeting/list', {});
    assert.equal(codeOf(await c.next()), 'not_initialized');
    send(c.ws, 5, 'initialize', { protocolVersion: PROTOCOL_VERSION, client: 't', nonce: newNonce() });
    assert.equal(codeOf(await c.next()), 'conflict');
    c.ws.terminate();
  });

  it('a connection that never finishes its handshake is closed at the deadline and never counts as a client', async () => {
    const short = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: quiet, handshakeMs: 200 });
    try {
      const ws = new WebSocket(`ws://127.0.0.1:${short.port}`);
      const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
      await new Promise((r) => ws.once('open', r));
      assert.equal(short.server.connections(), 0, 'not a client: the idle watch is not held by it');
      assert.equal(await closed, 1008);
    } finally {
      await short.stop();
    }
  });

  it('more than 64 connections in their handshake: the next is refused with 503 in one line', async () => {
    // A daemon of its own, so no socket of another test is still pending in it.
    const own = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: quiet, handshakeMs: 60_000 });
    try {
      const pending = await Promise.all(Array.from({ length: 64 }, () => raw(own.port)));
      const e = await connectDaemon(own.port, own.token, { handshakeTimeoutMs: 60_000 }).then(
        () => assert.fail('accepted'),
        (x: Error) => x,
      );
      assert.match(e.message, /refused the connection \(HTTP 503\): 64 connections are already in their handshake$/);
      for (const p of pending) p.ws.terminate();
      await Promise.all(pending.map((p) => p.closed));
      const good = await connectDaemon(own.port, own.token);
      await good.close();
    } finally {
      await own.stop();
    }
  });
});
