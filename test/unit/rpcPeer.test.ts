/**
 * The client's end as a peer: it cancels its own requests with `$/cancelRequest`, answers the
 * daemon's requests with the registered handler (checked params, progress before the answer),
 * and stops a handler the daemon cancels. The test plays the daemon's side of the transport.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LmRequest } from '@roundtable/protocol';
import { RpcClient, RpcError } from '@roundtable/protocol';

interface Frame {
  kind: string;
  id?: number;
  method?: string;
  ok?: boolean;
  params?: { id?: number; value?: unknown };
  result?: unknown;
  error?: { code: string; message: string };
}

function peer() {
  const sent: Frame[] = [];
  const rpc = new RpcClient({ send: (t) => sent.push(JSON.parse(t) as Frame), close: () => undefined });
  const ask = (id: number, params: unknown, method = 'lm/chat'): void =>
    rpc.receive(JSON.stringify({ kind: 'request', id, method, params }));
  /** Resolves with the answer to request `id` once the client sent it. */
  const answerTo = async (id: number): Promise<Frame> => {
    for (;;) {
      const found = sent.find((f) => f.kind === 'response' && f.id === id);
      if (found) return found;
      await new Promise((r) => setImmediate(r));
    }
  };
  return { rpc, sent, ask, answerTo };
}

const chat: LmRequest = {
  model: 'copilot',
  messages: [{ role: 'user', content: 'Hi' }],
  maxTokens: 50,
  json: false,
  participant: 'ada',
};

describe('the client as a peer of the daemon', () => {
  it('cancels its own request with $/cancelRequest naming its id', async () => {
    const { rpc, sent } = peer();
    const ctl = new AbortController();
    const pending = rpc.request(
      'meeting/estimate',
      { topic: 't', mode: 'roundtable', participants: [] },
      {
        signal: ctl.signal,
      },
    );
    ctl.abort();
    await assert.rejects(pending, (e: unknown) => e instanceof RpcError && e.code === 'cancelled');
    assert.deepEqual(sent.at(-1), { kind: 'event', method: '$/cancelRequest', params: { id: sent[0]?.id } });
  });

  it("answers the daemon's request with its handler: progress first, in order, then the result", async () => {
    const { rpc, sent, ask, answerTo } = peer();
    rpc.handle('lm/chat', (r, call) => {
      call.progress({ text: 'Hel' });
      call.progress({ text: 'lo.' });
      return Promise.resolve({ ok: true, text: `Hello, ${r.participant}.` });
    });
    ask(7, chat);
    const answer = await answerTo(7);
    assert.deepEqual(answer.result, { ok: true, text: 'Hello, ada.' });
    assert.deepEqual(
      sent.filter((f) => f.method === '$/progress').map((f) => f.params),
      [
        { id: 7, value: { text: 'Hel' } },
        { id: 7, value: { text: 'lo.' } },
      ],
    );
  });

  it("the daemon's $/cancelRequest cancels the handler's token, and the answer says cancelled", async () => {
    const { rpc, ask, answerTo } = peer();
    let saw = false;
    rpc.handle(
      'lm/chat',
      (_r, call) =>
        new Promise((_resolve, reject) =>
          call.token.onCancellationRequested(() => {
            saw = true;
            reject(new Error('stopped'));
          }),
        ),
    );
    ask(3, chat);
    rpc.receive(JSON.stringify({ kind: 'event', method: '$/cancelRequest', params: { id: 3 } }));
    const answer = await answerTo(3);
    assert.ok(saw, 'the handler saw the cancellation');
    assert.equal(answer.error?.code, 'cancelled');
  });

  it('refuses a request it has no handler for, and params that do not fit, in one line each', async () => {
    const { rpc, ask, answerTo } = peer();
    ask(1, chat);
    assert.equal((await answerTo(1)).error?.code, 'unknown_method');
    rpc.handle('lm/chat', () => Promise.resolve({ ok: true, text: 'never' }));
    ask(2, { ...chat, messages: 'Hi' });
    const bad = await answerTo(2);
    assert.equal(bad.error?.code, 'bad_request');
    assert.match(bad.error?.message ?? '', /^lm\/chat.messages /);
  });

  it('a handler still running when the connection closes is cancelled', async () => {
    const { rpc, ask } = peer();
    let saw = false;
    rpc.handle('lm/chat', (_r, call) => new Promise(() => call.token.onCancellationRequested(() => (saw = true))));
    ask(5, chat);
    await new Promise((r) => setImmediate(r));
    rpc.closedBy('the daemon closed the connection');
    assert.ok(saw);
  });
});
