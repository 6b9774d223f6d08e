/**
 * Hostile `GET /v1/models` answers (issue 32): a list of ~150 MB took the process to 1.2 GB. The
 * list is read to at most 4 MB while it streams (past it: nothing, one line), nested JSON and
 * shapes that are not a list are refused, and each figure a list gives is checked before it is
 * believed. The real shape is OpenAI's `{"object": "list", "data": [{"id", "object", "created",
 * "owned_by"}]}` (platform.openai.com/docs/api-reference/models/list), with vLLM's `max_model_len`
 * and OpenRouter's `context_length` / `supported_parameters` (openrouter.ai/docs/api-reference/list-available-models).
 */
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { describe, it } from 'node:test';
import { MODEL_LIST_MAX_BYTES, MODEL_LIST_MAX_ENTRIES, parseModelInfo } from '@roundtable/client/models';
import { listModels } from '../../daemon/src/modelLists';
import { modelInfo } from '../../daemon/src/providers/serverProfile';
import { startFakeOpenAI } from '../fakes/openaiServer';

/** Lists the models of a server whose `/v1/models` answers as `respond` does. */
async function listFrom(respond: (res: http.ServerResponse) => void | Promise<void>, timeoutMs = 5_000) {
  const fake = await startFakeOpenAI(undefined, { modelsResponse: respond });
  try {
    return { list: await listModels(fake.baseURL, { timeoutMs }), baseURL: fake.baseURL };
  } finally {
    await fake.close();
  }
}

const json = (body: string) => (res: http.ServerResponse) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(body);
};

/** Writes `chunk` up to `times` times, waiting for the socket to drain; counts what was written. */
function flood(chunk: string, times: number, written: { n: number; done: boolean }) {
  return async (res: http.ServerResponse) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{"object":"list","data":[');
    for (; written.n < times && !res.destroyed; written.n++) {
      if (!res.write(chunk)) await new Promise((r) => (res.once('drain', r), res.once('close', r)));
    }
    written.done = written.n >= times;
    if (!res.destroyed) res.end(']}');
  };
}

describe('hostile model lists', () => {
  it('a 150 MB list streamed without a length: reading stops past 4 MB, one line says so, the rest is never sent', async () => {
    const entry = `{"id":"m","object":"model","owned_by":"${'x'.repeat(1000)}"},`;
    const written = { n: 0, done: false };
    const { list } = await listFrom(flood(entry.repeat(1024), 150, written));
    assert.deepEqual(list, {
      ok: false,
      kind: 'bad_response',
      error: list.ok ? '' : list.error,
    });
    assert.match(list.ok ? '' : list.error, /\/models sent more than 4 MB; its list was not read$/);
    // 1 MB a write: the server got to write a few before the client hung up, never all 150.
    assert.ok(!written.done && written.n < 40, `${written.n} MB written`);
  });

  it('a declared Content-Length of 150 MB is refused before a byte of the body is read', async () => {
    let wrote = false;
    const { list } = await listFrom((res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(150 * 1024 * 1024) });
      res.flushHeaders();
      // Never sends the body: a client that waited for it would time out instead.
      wrote = true;
    });
    assert.ok(wrote);
    assert.ok(!list.ok && /sent more than 4 MB/.test(list.error), JSON.stringify(list));
  });

  it('a list just under the cap is read whole', async () => {
    const entry = '{"id":"m","object":"model"},';
    const n = Math.floor((MODEL_LIST_MAX_BYTES - 100) / entry.length);
    const { list } = await listFrom(json(`{"object":"list","data":[${entry.repeat(n)}{"id":"last"}]}`));
    assert.ok(
      list.ok && list.models.length === Math.min(n + 1, MODEL_LIST_MAX_ENTRIES),
      JSON.stringify(list).slice(0, 200),
    );
  });

  it('a bare JSON array instead of an object is not a model list', async () => {
    const { list } = await listFrom(json('[{"id":"gpt-4o"}]'));
    assert.deepEqual(list.ok ? list : list.kind, 'bad_response');
  });

  it('a JSON string, a number and null are not model lists', async () => {
    for (const body of ['"gpt-4o"', '42', 'null']) {
      const { list } = await listFrom(json(body));
      assert.equal(list.ok ? 'ok' : list.kind, 'bad_response', body);
    }
  });

  it('1,000,000 nested brackets (under the cap) are refused without parsing', async () => {
    const depth = 1_000_000;
    const cpu = process.cpuUsage();
    const { list } = await listFrom(json(`{"data":${'['.repeat(depth)}${']'.repeat(depth)}}`));
    const used = process.cpuUsage(cpu);
    assert.equal(list.ok ? 'ok' : list.kind, 'bad_response');
    // JSON.parse of this nesting takes seconds; a scan takes milliseconds. Counted as CPU, generous.
    assert.ok(used.user + used.system < 1_500_000, `${(used.user + used.system) / 1000} ms of CPU`);
  });

  it('brackets inside strings are not nesting: a model id of 100 "[" is read', async () => {
    const { list } = await listFrom(json(JSON.stringify({ data: [{ id: `m${'['.repeat(100)}` }] })));
    assert.deepEqual(list, { ok: true, models: [`m${'['.repeat(100)}`] });
  });

  it('a body dribbled a byte at a time is given up at the timeout with one line', async () => {
    const { list, baseURL } = await listFrom((res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 20);
      res.once('close', () => clearInterval(timer));
    }, 300);
    assert.deepEqual(list, {
      ok: false,
      kind: 'unreachable',
      error: `${baseURL}/models did not send its model list within 300 ms`,
    });
  });

  it('a list cut off mid-body is a failure, not a short list', async () => {
    const { list } = await listFrom((res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"object":"list","data":[{"id":"a"},{"id":"b"');
      res.destroy();
    });
    assert.equal(list.ok, false);
  });

  it(`20,000 models: the first ${MODEL_LIST_MAX_ENTRIES.toLocaleString('en-US')} are read`, async () => {
    const data = Array.from({ length: 20_000 }, (_, i) => ({ id: `m${i}` }));
    const { list } = await listFrom(json(JSON.stringify({ object: 'list', data })));
    assert.ok(list.ok);
    assert.equal(list.models.length, MODEL_LIST_MAX_ENTRIES);
    assert.equal(list.models.at(-1), `m${MODEL_LIST_MAX_ENTRIES - 1}`);
  });

  describe('each entry checked before it is believed', () => {
    const cases: [string, Record<string, unknown>, number | undefined][] = [
      ['context_length 1e300', { context_length: 1e300 }, undefined],
      ['max_model_len -1', { max_model_len: -1 }, undefined],
      ['max_model_len 4096.5', { max_model_len: 4096.5 }, undefined],
      ['context_length "32768" (a string)', { context_length: '32768' }, undefined],
      ['max_model_len 2^53 + 2', { max_model_len: 2 ** 53 + 2 }, undefined],
      ['a bad max_model_len beside a good context_length', { max_model_len: -5, context_length: 131072 }, 131072],
      ['vLLM max_model_len 32768', { max_model_len: 32768 }, 32768],
    ];
    for (const [name, extra, want] of cases) {
      it(`${name} → ${String(want)}`, () => {
        assert.equal(parseModelInfo({ id: 'm', ...extra })?.contextLength, want);
      });
    }

    it('ids that are not short strings are dropped: a number, an object, 10 KB', () => {
      for (const id of [42, { x: 1 }, 'x'.repeat(10_000), ''])
        assert.equal(parseModelInfo({ id }), undefined, JSON.stringify(id).slice(0, 20));
    });

    it('100,000 supported_parameters: at most 64 short strings kept', () => {
      const sp = [...Array.from({ length: 100_000 }, (_, i) => (i % 3 ? `p${i}` : i)), 'x'.repeat(1_000)];
      const kept = parseModelInfo({ id: 'm', supported_parameters: sp })?.supportedParameters ?? [];
      assert.ok(kept.length <= 64 && kept.length > 0, String(kept.length));
      assert.ok(kept.every((s) => typeof s === 'string' && s.length <= 64));
    });

    it('a context window of 1e300 from the list never reaches the server profile', async () => {
      const fake = await startFakeOpenAI(undefined, { models: ['big'], modelInfo: { big: { context_length: 1e300 } } });
      try {
        assert.ok((await listModels(fake.baseURL)).ok);
        assert.deepEqual(modelInfo(fake.baseURL, 'big'), { id: 'big' });
      } finally {
        await fake.close();
      }
    });
  });
});
