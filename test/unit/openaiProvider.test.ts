import assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { probeOpenAIServer } from '../../daemon/src/providers/probe';
import { countPromptTokens, countTokens } from '../../daemon/src/providers/tokens';
import { ProviderError, type ChatRequest } from '../../daemon/src/providers/types';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';

function req(extra: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'fake-model',
    messages: [
      { role: 'system', content: 'You are ada. Be brief.' },
      { role: 'user', content: 'Should we adopt Postgres?' },
    ],
    maxTokens: 64,
    signal: new AbortController().signal,
    meta: { participant: 'ada', role: 'worker', purpose: 'turn', round: 1, topic: 'Postgres' },
    ...extra,
  };
}

/** Asserts a ProviderError of `kind` and hands it back for more checks. */
async function rejectsWith(p: Promise<unknown>, kind: ProviderError['kind']): Promise<ProviderError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ProviderError, `expected a ProviderError, got ${String(e)}`);
    assert.equal(e.kind, kind, e.message);
    assert.doesNotMatch(e.message, /\n/, 'one line');
    return e;
  }
  assert.fail(`expected a ProviderError of kind ${kind}`);
}

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const address = srv.address();
  assert.ok(address !== null && typeof address !== 'string');
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return address.port;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('OpenAIProvider against a real OpenAI-compatible server', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI();
  });
  after(() => fake.close());

  it('streams the text and hands out the deltas in order', async () => {
    const text = 'The quick brown fox jumps over the lazy dog. [STANCE: AGREE]';
    fake.enqueue({ text, chunkSize: 5 });
    const p = new OpenAIProvider({ baseURL: fake.baseURL });
    assert.equal(p.id, `openai@${fake.baseURL}`);
    const parts: string[] = [];
    const r = await p.chat(req({ onDelta: (t) => parts.push(t) }));
    assert.equal(r.text, text);
    assert.deepEqual(parts, text.match(/[\s\S]{1,5}/g));
    const sent = fake.requests.at(-1);
    assert.equal(sent?.path, '/v1/chat/completions');
    assert.equal(sent?.body.model, 'fake-model');
    assert.equal(sent?.body.stream, true);
    assert.deepEqual(sent?.body.stream_options, { include_usage: true });
    assert.equal(sent?.body.max_tokens, 64);
    assert.deepEqual(sent?.body.messages, req().messages);
    assert.equal(sent?.body.response_format, undefined);
    assert.equal(sent?.headers.authorization, 'Bearer not-needed');
  });

  it('takes usage from the usage chunk', async () => {
    fake.enqueue({ text: 'short answer', promptTokens: 42, completionTokens: 7 });
    const r = await new OpenAIProvider({ baseURL: fake.baseURL }).chat(req());
    assert.deepEqual(r.usage, { promptTokens: 42, completionTokens: 7, source: 'provider' });
  });

  it('records the cached prompt tokens the server reports', async () => {
    fake.enqueue({ text: 'short answer', promptTokens: 1200, completionTokens: 7, cachedTokens: 1024 });
    const r = await new OpenAIProvider({ baseURL: fake.baseURL }).chat(req());
    assert.deepEqual(r.usage, { promptTokens: 1200, completionTokens: 7, source: 'provider', cachedTokens: 1024 });
  });

  it('counts usage with the tokenizer when the server sends no usage chunk', async () => {
    fake.enqueue({ text: 'hello world, no usage here', usage: false });
    const r = await new OpenAIProvider({ baseURL: fake.baseURL }).chat(req());
    assert.deepEqual(r.usage, {
      promptTokens: countPromptTokens(req().messages),
      completionTokens: countTokens('hello world, no usage here'),
      source: 'estimate',
    });
  });

  it('waits out a 429 with Retry-After: 1 and then succeeds', async () => {
    const first = fake.requests.length;
    fake.enqueue({ status: 429, retryAfter: 1 }, { text: 'after the wait' });
    const r = await new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 2 }).chat(req());
    assert.equal(r.text, 'after the wait');
    const made = fake.requests.slice(first);
    assert.equal(made.length, 2);
    const gap = (made[1]?.at ?? 0) - (made[0]?.at ?? 0);
    assert.ok(gap >= 900, `waited ${gap} ms`);
  });

  it('retries two 500s and succeeds with maxRetries 2', async () => {
    const first = fake.requests.length;
    fake.enqueue({ status: 500, retryAfterMs: 10 }, { status: 502, retryAfterMs: 10 }, { text: 'third time lucky' });
    const r = await new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 2 }).chat(req());
    assert.equal(r.text, 'third time lucky');
    assert.equal(fake.requests.length - first, 3);
  });

  it('reports a persistent 500 as a server error once the retries are spent', async () => {
    const first = fake.requests.length;
    const fail = {
      status: 500,
      retryAfterMs: 10,
      errorBody: { error: { message: 'CUDA out of memory', type: 'server_error' } },
    };
    fake.enqueue(fail, fail, fail);
    const e = await rejectsWith(new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 2 }).chat(req()), 'server');
    assert.equal(fake.requests.length - first, 3);
    assert.ok(e.message.includes(fake.baseURL), e.message);
    assert.match(e.message, /failed \(500\) after retries: CUDA out of memory/);
  });

  it('reports a rejected key as auth without ever echoing the key', async () => {
    const key = 'sk-secret-1234567890abcdef';
    fake.enqueue({
      status: 401,
      errorBody: { error: { message: `Incorrect API key provided: ${key}`, type: 'invalid_request_error' } },
    });
    const e = await rejectsWith(new OpenAIProvider({ baseURL: fake.baseURL, apiKey: key }).chat(req()), 'auth');
    assert.ok(!e.message.includes(key), e.message);
    assert.ok(!e.message.includes('secret'), e.message);
    assert.ok(e.message.includes(fake.baseURL), e.message);
    assert.match(e.message, /set a valid key/);
    assert.equal(fake.requests.at(-1)?.headers.authorization, `Bearer ${key}`, 'the key did reach the server');
  });

  it('reports any other 4xx as bad_request with the server message, clipped to 300 characters', async () => {
    fake.enqueue({ status: 400, errorBody: { error: { message: `model "nope" not found ${'x'.repeat(500)}` } } });
    const e = await rejectsWith(new OpenAIProvider({ baseURL: fake.baseURL }).chat(req()), 'bad_request');
    assert.match(e.message, /refused the request \(400\): model "nope" not found x+…$/);
    assert.ok(e.message.length < 300 + 120, `${e.message.length} characters`);
  });

  it('stops promptly when aborted mid-stream', async () => {
    fake.enqueue({ text: 'x'.repeat(400), chunkSize: 4, chunkDelayMs: 20 });
    const ac = new AbortController();
    const parts: string[] = [];
    const pending = new OpenAIProvider({ baseURL: fake.baseURL }).chat(
      req({ signal: ac.signal, onDelta: (t) => parts.push(t) }),
    );
    while (parts.length < 3) await sleep(5);
    const t0 = Date.now();
    ac.abort();
    await rejectsWith(pending, 'aborted');
    assert.ok(Date.now() - t0 < 300, `took ${Date.now() - t0} ms`);
    const seen = parts.length;
    await sleep(60);
    assert.equal(parts.length, seen, 'no deltas after the abort');
    assert.ok(seen < 100);
  });

  it('stops promptly when aborted while the SDK waits to retry', async () => {
    const first = fake.requests.length;
    fake.enqueue({ status: 503, retryAfterMs: 400 }, { text: 'too late' });
    const ac = new AbortController();
    const pending = new OpenAIProvider({ baseURL: fake.baseURL }).chat(req({ signal: ac.signal }));
    await sleep(50);
    const t0 = Date.now();
    ac.abort();
    await rejectsWith(pending, 'aborted');
    assert.ok(Date.now() - t0 < 100, `took ${Date.now() - t0} ms`);
    await sleep(450);
    assert.equal(fake.requests.length - first, 1, 'the aborted call never made its retry');
    // Drain the reply the aborted call never fetched.
    assert.equal((await new OpenAIProvider({ baseURL: fake.baseURL }).chat(req())).text, 'too late');
  });

  it('reports a connection dropped mid-stream as a failure, not a short reply', async () => {
    fake.enqueue({ text: 'y'.repeat(200), chunkSize: 4, resetAfterChunks: 3 });
    const parts: string[] = [];
    const e = await rejectsWith(
      new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 0 }).chat(req({ onDelta: (t) => parts.push(t) })),
      'server',
    );
    assert.equal(parts.length, 3);
    assert.ok(e.message.includes(fake.baseURL), e.message);
  });

  it('gives up on a stream that goes silent for longer than the timeout', async () => {
    fake.enqueue({ text: 'first second third', chunkSize: 6, stallMs: 1_000 });
    const t0 = Date.now();
    const e = await rejectsWith(
      new OpenAIProvider({ baseURL: fake.baseURL, timeoutMs: 150, maxRetries: 0 }).chat(req()),
      'server',
    );
    assert.ok(Date.now() - t0 < 700, `took ${Date.now() - t0} ms`);
    assert.match(e.message, /stopped sending mid-reply/);
  });

  it('reports a server that never answers as unreachable after the timeout', async () => {
    fake.enqueue({ text: 'too slow', delayMs: 600 });
    const e = await rejectsWith(
      new OpenAIProvider({ baseURL: fake.baseURL, timeoutMs: 100, maxRetries: 0 }).chat(req()),
      'unreachable',
    );
    assert.ok(e.message.includes(fake.baseURL), e.message);
    assert.match(e.message, /did not answer within 0\.1 s/);
  });

  it('reports connection refused as unreachable, naming the URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const e = await rejectsWith(new OpenAIProvider({ baseURL: url, maxRetries: 0 }).chat(req()), 'unreachable');
    assert.ok(e.message.startsWith(`cannot reach the model server at ${url}: `), e.message);
    assert.match(e.message, /ECONNREFUSED.*Is it running\?$/);
  });

  it('asks for a JSON object when json is set', async () => {
    fake.enqueue({ text: '{"ok":true}' });
    const r = await new OpenAIProvider({ baseURL: fake.baseURL }).chat(
      req({ json: { name: 'ok', schema: { type: 'object' } } }),
    );
    assert.deepEqual(JSON.parse(r.text), { ok: true });
    assert.deepEqual(fake.requests.at(-1)?.body.response_format, { type: 'json_object' });
  });

  it('probes: a live server passes, a closed port is unreachable, a bad key is auth, any other answer passes', async () => {
    await probeOpenAIServer(fake.baseURL);
    assert.equal(fake.requests.at(-1)?.path, '/v1/models');

    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const e = await rejectsWith(probeOpenAIServer(url, undefined, 1_000), 'unreachable');
    assert.ok(e.message.includes(url), e.message);

    const locked = await startFakeOpenAI(undefined, { apiKey: 'right-key' });
    try {
      await probeOpenAIServer(locked.baseURL, 'right-key');
      const denied = await rejectsWith(probeOpenAIServer(locked.baseURL, 'wrong-key'), 'auth');
      assert.ok(!denied.message.includes('wrong-key'));
    } finally {
      await locked.close();
    }
    // No /models route (404) still means something is listening.
    await probeOpenAIServer(`http://127.0.0.1:${fake.port}/not-an-api`);
  });
});

describe('the fake OpenAI server', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI();
  });
  after(() => fake.close());

  it('answers from a REPLY: line, or with a default agreeing reply naming the model', async () => {
    const p = new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 0 });
    const scripted = req({
      messages: [{ role: 'user', content: 'Round 2.\nREPLY: Postgres it is. [STANCE: DISAGREE]\nthanks' }],
    });
    assert.equal((await p.chat(scripted)).text, 'Postgres it is. [STANCE: DISAGREE]');
    assert.equal((await p.chat(req({ model: 'llama3.1' }))).text, 'ok from llama3.1 [STANCE: AGREE]');
  });

  it('serves the exact streaming chunk format and plain JSON completions', async () => {
    fake.enqueue({ text: 'abcdef', chunkSize: 3, promptTokens: 5, completionTokens: 2 });
    const res = await fetch(`${fake.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const events = (await res.text()).split('\n\n').filter(Boolean);
    assert.equal(events.at(-1), 'data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => {
      assert.ok(e.startsWith('data: '));
      const parsed: unknown = JSON.parse(e.slice(6));
      return parsed as {
        object: string;
        choices: { delta: { role?: string; content?: string }; finish_reason: string | null }[];
        usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
      };
    });
    assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk'));
    assert.deepEqual(
      chunks.map((c) => c.choices[0]?.delta.content),
      ['', 'abc', 'def', undefined, undefined],
    );
    assert.equal(chunks[0]?.choices[0]?.delta.role, 'assistant');
    assert.equal(chunks[3]?.choices[0]?.finish_reason, 'stop');
    assert.deepEqual(chunks[4]?.choices, []);
    assert.deepEqual(chunks[4]?.usage, { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });

    // The index counts chat completions: two in the previous test, one streamed above.
    fake.setResponder((body, index) => ({ text: `#${index} for ${body.model ?? ''}` }));
    const plain = await fetch(`${fake.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'm2', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const json: unknown = await plain.json();
    assert.ok(typeof json === 'object' && json !== null);
    assert.equal((json as { object?: string }).object, 'chat.completion');
    assert.deepEqual((json as { choices?: unknown[] }).choices?.[0], {
      index: 0,
      message: { role: 'assistant', content: '#3 for m2', refusal: null },
      logprobs: null,
      finish_reason: 'stop',
    });
    const models = await fetch(`${fake.baseURL}/models`);
    assert.deepEqual(await models.json(), {
      object: 'list',
      data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }],
    });
  });
});
