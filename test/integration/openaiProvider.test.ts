import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAIProvider, probeOpenAIServer } from '../../daemon/src/providers/openai';
import { ProviderError, type ChatRequest } from '../../daemon/src/providers/types';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';

function req(extra: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'fake-model',
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hello there' },
    ],
    maxTokens: 50,
    signal: new AbortController().signal,
    meta: { participant: 'ada', role: 'worker', purpose: 'turn', round: 1, topic: 't' },
    ...extra,
  };
}

const kindOf = (kind: ProviderError['kind']) => (e: unknown) => e instanceof ProviderError && e.kind === kind;

describe('OpenAI-compatible provider against a real loopback server', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI();
  });
  after(() => fake.close());

  it('streams the reply as deltas and takes usage from the usage chunk', async () => {
    fake.enqueue({ text: 'The quick brown fox jumps. [STANCE: AGREE]', chunkSize: 5 });
    const p = new OpenAIProvider({ baseURL: fake.baseURL });
    const parts: string[] = [];
    const r = await p.chat(req({ onDelta: (t) => parts.push(t) }));
    assert.equal(r.text, 'The quick brown fox jumps. [STANCE: AGREE]');
    assert.ok(parts.length >= 8);
    assert.equal(parts.join(''), r.text);
    assert.equal(r.usage.source, 'provider');
    assert.equal(r.usage.completionTokens, Math.ceil(r.text.length / 4));
    const sent = fake.requests.at(-1)?.body;
    assert.equal(sent?.stream, true);
    assert.deepEqual(sent?.stream_options, { include_usage: true });
    assert.equal(sent?.max_tokens, 50);
    assert.equal(sent?.messages?.[1]?.content, 'hello there');
  });

  it('counts usage with the tokenizer when the server sends no usage chunk', async () => {
    fake.enqueue({ text: 'hello world', usage: false });
    const r = await new OpenAIProvider({ baseURL: fake.baseURL }).chat(req());
    assert.equal(r.usage.source, 'estimate');
    assert.equal(r.usage.completionTokens, 2);
    assert.ok(r.usage.promptTokens > 5);
  });

  it('retries a 429 after its Retry-After and then succeeds', async () => {
    const before = fake.requests.length;
    fake.enqueue({ status: 429, retryAfter: 1 }, { text: 'after the wait' });
    const r = await new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 2 }).chat(req());
    assert.equal(r.text, 'after the wait');
    assert.equal(fake.requests.length - before, 2);
  });

  it('retries 500s up to maxRetries, then reports a server error', async () => {
    fake.enqueue({ status: 500 }, { status: 500 }, { text: 'third time lucky' });
    assert.equal(
      (await new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 2 }).chat(req())).text,
      'third time lucky',
    );
    fake.enqueue({ status: 500 }, { status: 503 });
    await assert.rejects(new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 1 }).chat(req()), (e: unknown) => {
      assert.ok(kindOf('server')(e));
      assert.match((e as Error).message, /failed \(503\) after retries/);
      return true;
    });
  });

  it('reports a rejected key without ever echoing it', async () => {
    fake.enqueue({
      status: 401,
      errorBody: {
        error: { message: 'Incorrect API key provided: sk-secret-123456789', type: 'invalid_request_error' },
      },
    });
    await assert.rejects(
      new OpenAIProvider({ baseURL: fake.baseURL, apiKey: 'sk-secret-123456789' }).chat(req()),
      (e: unknown) => {
        assert.ok(kindOf('auth')(e));
        assert.doesNotMatch((e as Error).message, /sk-secret/);
        return true;
      },
    );
    assert.equal(
      fake.requests.at(-1)?.headers.authorization,
      'Bearer sk-secret-123456789',
      'the key is sent to the server',
    );
  });

  it('aborts mid-stream promptly', async () => {
    fake.enqueue({ text: 'x'.repeat(400), chunkSize: 4, chunkDelayMs: 20 });
    const ac = new AbortController();
    const parts: string[] = [];
    const pending = new OpenAIProvider({ baseURL: fake.baseURL }).chat(
      req({ signal: ac.signal, onDelta: (t) => parts.push(t) }),
    );
    while (parts.length < 3) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    await assert.rejects(pending, kindOf('aborted'));
    assert.ok(parts.length < 100, 'the stream stopped');
  });

  it('reports a connection reset mid-stream as a failure, not a short reply', async () => {
    fake.enqueue({ text: 'y'.repeat(200), chunkSize: 4, resetAfterChunks: 3 });
    await assert.rejects(
      new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 0 }).chat(req()),
      (e: unknown) => e instanceof ProviderError,
    );
  });

  it('asks for JSON output when requested', async () => {
    fake.enqueue({ text: '{"ok":true}' });
    await new OpenAIProvider({ baseURL: fake.baseURL }).chat(req({ json: true }));
    assert.deepEqual(fake.requests.at(-1)?.body.response_format, { type: 'json_object' });
  });

  it('says which server is unreachable', async () => {
    await assert.rejects(
      new OpenAIProvider({ baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0 }).chat(req()),
      (e: unknown) => {
        assert.ok(kindOf('unreachable')(e));
        assert.match((e as Error).message, /cannot reach the model server at http:\/\/127\.0\.0\.1:9\/v1/);
        return true;
      },
    );
  });

  it('probes a server: reachable passes, closed port and bad key fail clearly', async () => {
    await probeOpenAIServer(fake.baseURL);
    await assert.rejects(probeOpenAIServer('http://127.0.0.1:9/v1'), kindOf('unreachable'));
    const locked = await startFakeOpenAI();
    const server = locked;
    // A server answering 404 on /models is still reachable.
    await probeOpenAIServer(`http://127.0.0.1:${server.port}/nothing-here`);
    await server.close();
  });
});
