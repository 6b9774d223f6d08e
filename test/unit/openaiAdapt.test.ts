/**
 * The OpenAI provider against fake servers that behave like the real ones (personalities of
 * test/fakes/openaiServer.ts, each with its public evidence): it sends what each server honours,
 * adapts once to a refusal that names a parameter and remembers it, and keeps thinking apart
 * from the reply and its tokens counted once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { listModels } from '../../daemon/src/modelLists';
import {
  adaptToRefusal,
  isOpenAIReasoningModel,
  isReasoningModel,
  paramsFor,
  resetServerProfiles,
  type CallParams,
} from '../../daemon/src/providers/serverProfile';
import { countPromptTokens, countTokens } from '../../daemon/src/providers/tokens';
import { ProviderError, type ChatRequest } from '../../daemon/src/providers/types';
import type { ReplyChannel } from '../../daemon/src/providers/reply';
import { driven } from '../../daemon/src/tools/toolLoop';
import { TOOL_DEFINITIONS } from '../../daemon/src/tools/workspaceTools';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions } from '../fakes/openaiServer';

function req(model: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model,
    messages: [
      { role: 'system', content: 'You are ada. Be brief.' },
      { role: 'user', content: 'Should we adopt Postgres?' },
    ],
    maxTokens: 200,
    signal: new AbortController().signal,
    meta: { participant: 'ada', role: 'worker', purpose: 'turn', round: 1, topic: 'Postgres' },
    ...extra,
  };
}

const JSON_REPLY = {
  name: 'ballot',
  schema: { type: 'object', properties: { choice: { type: 'string' } }, required: ['choice'] },
};

const servers: FakeOpenAI[] = [];
async function server(options: FakeOpenAIOptions): Promise<FakeOpenAI> {
  const s = await startFakeOpenAI(undefined, options);
  servers.push(s);
  return s;
}

const chats = (s: FakeOpenAI) => s.requests.filter((r) => r.path.startsWith('/v1/chat/completions'));
const refused = (s: FakeOpenAI) => chats(s).filter((r) => r.status === 400);

/** Collects what a call streamed, per channel. */
function live() {
  const seen: Record<ReplyChannel, string> = { reply: '', thinking: '' };
  return { seen, onDelta: (t: string, c: ReplyChannel) => void (seen[c] += t) };
}

describe('OpenAIProvider adapts to the server', () => {
  before(() => resetServerProfiles());
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    resetServerProfiles();
  });

  it('sends a gpt-5 model max_completion_tokens and no temperature: no refusal at all', async () => {
    const fake = await server({ personality: 'openai-reasoning' });
    const p = new OpenAIProvider({ baseURL: fake.baseURL });
    for (const model of ['gpt-5', 'gpt-5-mini', 'openai/gpt-5', 'o4-mini']) {
      fake.enqueue({ text: 'Yes. [STANCE: AGREE]', reasoning: 'hidden thoughts', reasoningTokens: 40 });
      const r = await p.chat(req(model, { temperature: 0.7 }));
      assert.equal(r.text, 'Yes. [STANCE: AGREE]', model);
      const sent = chats(fake).at(-1)?.body;
      assert.equal(sent?.max_completion_tokens, 200, model);
      assert.equal(sent?.max_tokens, undefined, model);
      assert.equal(sent?.temperature, undefined, model);
      // OpenAI reports the thinking inside completion_tokens: taken as it is, never added.
      assert.equal(r.usage.reasoningTokens, 40);
      assert.equal(r.usage.completionTokens, 40 + Math.ceil('Yes. [STANCE: AGREE]'.length / 4));
      assert.equal(r.thinking, undefined, 'OpenAI never sends the thinking itself');
    }
    assert.equal(refused(fake).length, 0);
  });

  it('retries an unknown model refused for max_tokens once, then never sends it again', async () => {
    const fake = await server({ personality: 'openai-reasoning' });
    const p = new OpenAIProvider({ baseURL: fake.baseURL });
    const r = await p.chat(req('my-azure-deployment'));
    assert.match(r.text, /^ok from my-azure-deployment/);
    assert.deepEqual(
      chats(fake).map((c) => [c.status, c.body.max_tokens, c.body.max_completion_tokens]),
      [
        [400, 200, undefined],
        [200, undefined, 200],
      ],
    );
    // Remembered for this server and model, by any provider of the daemon.
    const again = new OpenAIProvider({ baseURL: fake.baseURL });
    await again.chat(req('my-azure-deployment'));
    assert.equal(chats(fake).length, 3);
    assert.equal(refused(fake).length, 1, 'the second call made no refused request');
    assert.equal(paramsFor(fake.baseURL, 'my-azure-deployment').tokenParam, 'max_completion_tokens');
    assert.equal(paramsFor(fake.baseURL, 'other-model').tokenParam, 'max_tokens', 'per model');
  });

  it('adapts each refused parameter once in the same call (max_tokens, then temperature)', async () => {
    const fake = await server({ personality: 'openai-reasoning' });
    const p = new OpenAIProvider({ baseURL: fake.baseURL });
    await p.chat(req('reasoner-x', { temperature: 0.7 }));
    assert.deepEqual(
      chats(fake).map((c) => [c.status, 'max_tokens' in c.body, 'temperature' in c.body]),
      [
        [400, true, true],
        [400, false, true],
        [200, false, false],
      ],
    );
    await p.chat(req('reasoner-x', { temperature: 0.7 }));
    assert.equal(refused(fake).length, 2, 'nothing refused the second time');
  });

  it('does not retry a parameter twice, nor a 400 that names none', async () => {
    const fake = await server({});
    const p = new OpenAIProvider({ baseURL: fake.baseURL });
    const stubborn = {
      status: 400,
      errorBody: {
        error: {
          message:
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
          type: 'invalid_request_error',
          param: 'max_tokens',
          code: 'unsupported_parameter',
        },
      },
    };
    fake.enqueue(stubborn, stubborn);
    await assert.rejects(p.chat(req('flaky')), (e) => e instanceof ProviderError && e.kind === 'bad_request');
    assert.equal(chats(fake).length, 2, 'one retry, no loop');
    fake.enqueue({ status: 400 });
    await assert.rejects(p.chat(req('plain')), (e) => e instanceof ProviderError && e.kind === 'bad_request');
    assert.equal(chats(fake).length, 3, 'a 400 about nothing we send is not retried');
  });

  it('asks LM Studio for json_schema after exactly one json_object refusal, and remembers', async () => {
    const fake = await server({ personality: 'lmstudio' });
    const p = new OpenAIProvider({ baseURL: fake.baseURL });
    fake.enqueue('{"choice":"A"}', '{"choice":"B"}');
    const first = await p.chat(req('qwen2.5-7b-instruct', { json: JSON_REPLY }));
    assert.equal(first.text, '{"choice":"A"}');
    const [no, yes] = chats(fake);
    assert.equal(no?.status, 400);
    assert.deepEqual(no?.body.response_format, { type: 'json_object' });
    assert.equal(yes?.status, 200);
    assert.deepEqual(yes?.body.response_format, {
      type: 'json_schema',
      json_schema: { name: 'ballot', schema: JSON_REPLY.schema, strict: false },
    });
    await p.chat(req('qwen2.5-7b-instruct', { json: JSON_REPLY }));
    assert.equal(chats(fake).length, 3);
    assert.equal(chats(fake).at(-1)?.body.response_format?.type, 'json_schema');
    assert.equal(refused(fake).length, 1);
  });

  it('on OpenAI, a json_object call whose messages never say "json" switches to json_schema', async () => {
    const fake = await server({ personality: 'openai-reasoning' });
    const p = new OpenAIProvider({ baseURL: fake.baseURL });
    fake.enqueue('{"choice":"A"}');
    const r = await p.chat(req('gpt-5', { json: JSON_REPLY }));
    assert.equal(r.text, '{"choice":"A"}');
    assert.deepEqual(
      chats(fake).map((c) => [c.status, c.body.response_format?.type]),
      [
        [400, 'json_object'],
        [200, 'json_schema'],
      ],
    );
  });

  it('Ollama: max_tokens (it ignores max_completion_tokens), thinking from delta.reasoning', async () => {
    const fake = await server({ personality: 'ollama' });
    const p = new OpenAIProvider({ baseURL: fake.baseURL });
    const thought = 'The user asks about Postgres. Weigh it.';
    fake.enqueue({ text: 'Adopt it. [STANCE: AGREE]', reasoning: thought });
    const l = live();
    const r = await p.chat(req('qwen3:8b', { onDelta: l.onDelta }));
    assert.equal(r.text, 'Adopt it. [STANCE: AGREE]');
    assert.equal(r.thinking, thought);
    assert.equal(l.seen.thinking, thought);
    assert.equal(l.seen.reply, 'Adopt it. [STANCE: AGREE]');
    assert.equal(chats(fake).at(-1)?.body.max_tokens, 200);
    // No reasoning_tokens from Ollama: counted, and never more than the completion it reported.
    assert.equal(r.usage.reasoningTokens, countTokens(thought));
    assert.ok(r.usage.reasoningTokens <= r.usage.completionTokens);
    assert.equal(r.usage.source, 'provider');
    // The cap it honours is the one sent: a long reply is cut, and said so.
    fake.enqueue({ text: 'x'.repeat(400) });
    const capped = await p.chat(req('llama3.1:8b', { maxTokens: 10 }));
    assert.equal(capped.finishReason, 'length');
    assert.equal(capped.text.length, 40);
  });

  for (const [personality, field] of [
    ['vllm', 'reasoning'],
    ['vllm-legacy', 'reasoning_content'],
    ['deepseek', 'reasoning_content'],
    ['lmstudio', 'reasoning_content'],
  ] as const) {
    it(`${personality}: thinking in delta.${field} lands in thinking, never in text`, async () => {
      const fake = await server({ personality });
      const p = new OpenAIProvider({ baseURL: fake.baseURL });
      fake.enqueue({ text: 'No. [STANCE: DISAGREE]', reasoning: 'Costs outweigh gains.', chunkSize: 3 });
      const l = live();
      const r = await p.chat(req('deepseek-reasoner', { onDelta: l.onDelta }));
      assert.equal(r.text, 'No. [STANCE: DISAGREE]');
      assert.equal(r.thinking, 'Costs outweigh gains.');
      assert.doesNotMatch(r.text, /Costs/);
      assert.equal(l.seen.thinking, 'Costs outweigh gains.');
      assert.equal(r.finishReason, 'stop');
    });
  }

  it('DeepSeek reports reasoning_tokens: taken as given, inside completion_tokens', async () => {
    const fake = await server({ personality: 'deepseek' });
    const p = new OpenAIProvider({ baseURL: fake.baseURL });
    fake.enqueue({ text: 'Fine.', reasoning: 'a long chain', reasoningTokens: 321, completionTokens: 330 });
    const r = await p.chat(req('deepseek-reasoner'));
    assert.equal(r.usage.reasoningTokens, 321);
    assert.equal(r.usage.completionTokens, 330);
  });

  it('a model without a reasoning parser: inline <think> is thinking, not reply', async () => {
    const fake = await server({ personality: 'think-inline' });
    const p = new OpenAIProvider({ baseURL: fake.baseURL });
    fake.enqueue({ text: 'Yes.', reasoning: 'inline thoughts', chunkSize: 2 });
    const l = live();
    const r = await p.chat(req('qwen3-32b', { onDelta: l.onDelta }));
    assert.equal(r.text, 'Yes.');
    assert.equal(r.thinking, 'inline thoughts');
    assert.equal(l.seen.thinking.trim(), 'inline thoughts');
    assert.equal(l.seen.reply.trim(), 'Yes.');
  });

  it('reports finish_reason length with an empty reply when thinking used up the cap', async () => {
    const fake = await server({ personality: 'openai-reasoning' });
    const p = new OpenAIProvider({ baseURL: fake.baseURL });
    fake.enqueue({ text: 'never said', reasoningTokens: 50 });
    const r = await p.chat(req('gpt-5-nano', { maxTokens: 30 }));
    assert.equal(r.text, '');
    assert.equal(r.finishReason, 'length');
    assert.equal(r.usage.reasoningTokens, 50);
  });

  it('without usage from the server, the estimate counts thinking and reply once each', async () => {
    const fake = await server({ personality: 'ollama' });
    const p = new OpenAIProvider({ baseURL: fake.baseURL });
    const thought = 'Think about it carefully first.';
    fake.enqueue({ text: 'Short reply.', reasoning: thought, usage: false });
    const r = await p.chat(req('deepseek-r1:7b'));
    assert.equal(r.usage.source, 'estimate');
    assert.equal(r.usage.completionTokens, countTokens(thought) + countTokens('Short reply.'));
    assert.equal(r.usage.reasoningTokens, countTokens(thought));
    assert.equal(r.usage.promptTokens, countPromptTokens(req('x').messages));
  });

  it('keeps thinking and reasoning tokens through a tool call and its continuation', async () => {
    const fake = await server({ personality: 'deepseek' });
    const p = new OpenAIProvider({ baseURL: fake.baseURL });
    const ran: string[] = [];
    const tools = driven({
      definitions: () => TOOL_DEFINITIONS,
      run: (c) => {
        ran.push(c.name);
        return Promise.resolve('file contents');
      },
    });
    fake.enqueue(
      { reasoning: 'look first', reasoningTokens: 5, toolCalls: [{ name: 'read_file', arguments: '{"path":"a"}' }] },
      { text: 'Done.', reasoning: 'now answer', reasoningTokens: 7 },
    );
    const r = await p.chat(req('deepseek-reasoner', { tools }));
    assert.deepEqual(ran, ['read_file']);
    assert.equal(r.text, 'Done.');
    assert.equal(r.thinking, 'look first\n\nnow answer');
    assert.equal(r.usage.reasoningTokens, 12);
    assert.equal(r.finishReason, 'stop');
    const back = chats(fake).at(-1)?.body.messages ?? [];
    assert.ok(
      back.every((m) => !String(m.content ?? '').includes('look first')),
      'thinking is never sent back',
    );
  });

  it("reads a gateway's /v1/models once: no temperature, no JSON mode or json_schema as it says", async () => {
    const fake = await server({
      models: ['acme/plain', 'acme/schema'],
      modelInfo: {
        'acme/plain': { supported_parameters: ['max_tokens', 'tools'] },
        'acme/schema': { supported_parameters: ['max_tokens', 'temperature', 'response_format', 'structured_outputs'] },
      },
    });
    const p = new OpenAIProvider({ baseURL: fake.baseURL, discover: 'always', listModels });
    await p.chat(req('acme/plain', { temperature: 0.3, json: JSON_REPLY }));
    await p.chat(req('acme/schema', { temperature: 0.3, json: JSON_REPLY }));
    await new OpenAIProvider({ baseURL: fake.baseURL, discover: 'always', listModels }).chat(req('acme/plain'));
    assert.deepEqual(
      fake.requests.map((r) => r.path),
      ['/v1/models', '/v1/chat/completions', '/v1/chat/completions', '/v1/chat/completions'],
      'one GET per server for the daemon life',
    );
    const [plain, schema] = chats(fake).map((c) => c.body);
    assert.equal(plain?.temperature, undefined);
    assert.equal(plain?.response_format, undefined);
    assert.equal(schema?.temperature, 0.3);
    assert.equal(schema?.response_format?.type, 'json_schema');
  });

  it('asks no model list of a loopback server by default', async () => {
    const fake = await server({});
    await new OpenAIProvider({ baseURL: fake.baseURL }).chat(req('local'));
    assert.deepEqual(
      fake.requests.map((r) => r.path),
      ['/v1/chat/completions'],
    );
  });
});

describe('reading a refusal', () => {
  const base: CallParams = { tokenParam: 'max_tokens', temperature: true, json: 'json_object' };
  const read = (error: unknown, current = base, status = 400) =>
    adaptToRefusal('http://x/v1', 'm', { ...current }, status, error)?.change ?? null;

  it('adapts the parameter a 400 names, in the shapes real servers send', () => {
    assert.deepEqual(
      read({
        message:
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        param: 'max_tokens',
        code: 'unsupported_parameter',
      }),
      { tokenParam: 'max_completion_tokens' },
    );
    assert.deepEqual(
      read({
        message:
          "Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1) value is supported.",
        param: 'temperature',
        code: 'unsupported_value',
      }),
      { temperature: false },
    );
    // LM Studio's bare string error.
    assert.deepEqual(read("'response_format.type' must be 'json_schema' or 'text'"), { json: 'json_schema' });
    // A server that knows only the older name (pydantic's extra_forbidden, as some proxies answer).
    assert.deepEqual(
      read(
        {
          message:
            "[{'type': 'extra_forbidden', 'loc': ('body', 'max_completion_tokens'), 'msg': 'Extra inputs are not permitted', 'input': 8192}]",
        },
        { ...base, tokenParam: 'max_completion_tokens' },
      ),
      { tokenParam: 'max_tokens' },
    );
    // A schema refused too: no JSON mode at all (the parsers read JSON out of prose).
    assert.deepEqual(
      read({ message: 'response_format json_schema is not supported' }, { ...base, json: 'json_schema' }),
      {
        json: 'none',
      },
    );
  });

  it('leaves alone what is not a refusal of a parameter', () => {
    // vLLM: the cap is too large for the context, not an unknown parameter.
    assert.equal(
      read({
        message:
          "'max_tokens' or 'max_completion_tokens' is too large: 4096. This model's maximum context length is 4096 tokens and your request has 16 input tokens (4096 > 4096 - 16).",
      }),
      null,
    );
    assert.equal(read({ message: 'model not found' }, base, 404), null);
    assert.equal(read({ message: 'Invalid messages' }), null);
    assert.equal(read({ message: 'server overloaded' }, base, 503), null);
  });
});

describe('model names', () => {
  it('knows OpenAI reasoning models by name, behind a gateway prefix too', () => {
    for (const m of ['o1', 'o1-mini', 'o3-mini', 'o4-mini', 'gpt-5', 'gpt-5-mini', 'gpt-5.1', 'openai/gpt-5', 'O3'])
      assert.ok(isOpenAIReasoningModel(m), m);
    for (const m of ['gpt-4o', 'gpt-4.1-mini', 'llama3.1:8b', 'omni-moderation', 'gpt-oss:20b', 'qwen3:8b'])
      assert.ok(!isOpenAIReasoningModel(m), m);
  });

  it('knows which models think, for the engine to give them room', () => {
    for (const m of [
      'gpt-5-mini',
      'o3',
      'deepseek-r1:7b',
      'deepseek-reasoner',
      'deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B',
      'qwq:32b',
      'qwen3:8b',
      'Qwen/Qwen3-30B-A3B-Thinking-2507',
      'gpt-oss:20b',
      'openai/gpt-oss-120b',
      'magistral:24b',
      'phi4-reasoning:14b',
      'microsoft/Phi-4-reasoning',
      'kimi-k2-thinking',
      'gemini-2.5-pro',
    ])
      assert.ok(isReasoningModel(m), m);
    for (const m of [
      'gpt-4o',
      'llama3.1:8b',
      'qwen2.5:7b',
      'Qwen/Qwen3-30B-A3B-Instruct-2507',
      'qwen3-coder:30b',
      'deepseek-chat',
      'mistral-small',
    ])
      assert.ok(!isReasoningModel(m), m);
  });
});
