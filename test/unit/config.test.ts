/**
 * The API key, the server and the data dir are resolved by one rule in every process
 * (client/src/config.ts): an empty or blank variable is unset, ROUNDTABLE_* before OPENAI_*, a
 * flag before the environment. Checked at the seams a user meets: the CLI's and eval's flags, the
 * panel choice, and the daemon's provider talking to a real (loopback) server.
 */
import assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { apiKeyOf, apiKeysIn, baseUrlOf, checkedBaseUrl, defaultDataDir, DEFAULT_BASE_URL } from '@roundtable/client';
import { providerFactory } from '../../daemon/src/daemon/daemon';
import type { ChatRequest } from '../../daemon/src/providers/types';
import { parseEvalArgs } from '../../eval/src/command';
import { parseRunArgs } from '../../cli/src/runCommand';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';

const KEY = 'sk-test-0123456789abcdef';

describe('configuration rules', () => {
  it('an empty or blank ROUNDTABLE_API_KEY is unset: OPENAI_API_KEY is used', () => {
    for (const blank of ['', '   ', '\n'])
      assert.equal(apiKeyOf({ ROUNDTABLE_API_KEY: blank, OPENAI_API_KEY: KEY }), KEY, JSON.stringify(blank));
    assert.equal(apiKeyOf({ ROUNDTABLE_API_KEY: '', OPENAI_API_KEY: ' ' }), undefined);
    assert.equal(apiKeyOf({}), undefined);
  });

  it('ROUNDTABLE_API_KEY wins over OPENAI_API_KEY; a meeting’s own key wins over both; values are trimmed', () => {
    assert.equal(apiKeyOf({ ROUNDTABLE_API_KEY: ` ${KEY}\n`, OPENAI_API_KEY: 'sk-other' }), KEY);
    assert.equal(apiKeyOf({ ROUNDTABLE_API_KEY: 'sk-env' }, 'sk-own'), 'sk-own');
    assert.equal(apiKeyOf({ ROUNDTABLE_API_KEY: 'sk-env' }, '  '), 'sk-env');
    assert.deepEqual(apiKeysIn({ ROUNDTABLE_API_KEY: 'sk-a', OPENAI_API_KEY: 'sk-b' }), ['sk-a', 'sk-b']);
    assert.deepEqual(apiKeysIn({ ROUNDTABLE_API_KEY: '' }), []);
  });

  it('the server: a flag, else ROUNDTABLE_BASE_URL, else OpenAI; a blank variable is unset, a blank flag is an error', () => {
    assert.equal(baseUrlOf({ ROUNDTABLE_BASE_URL: ' ' }), DEFAULT_BASE_URL);
    assert.equal(baseUrlOf({ ROUNDTABLE_BASE_URL: 'http://h:1/v1' }), 'http://h:1/v1');
    assert.equal(baseUrlOf({ ROUNDTABLE_BASE_URL: 'http://h:1/v1' }, 'http://flag:2/v1'), 'http://flag:2/v1');
    assert.equal(checkedBaseUrl({ ROUNDTABLE_BASE_URL: '' }, undefined), undefined);
    assert.throws(() => checkedBaseUrl({}, ''), /^UsageError: --base-url must be an http\(s\) URL, got ""$/);
    assert.throws(() => checkedBaseUrl({ ROUNDTABLE_BASE_URL: 'ftp://x' }, undefined), /got "ftp:\/\/x"/);
  });

  it('the data dir: ROUNDTABLE_HOME, else ~/.roundtable (a blank one is unset)', () => {
    assert.equal(defaultDataDir({ ROUNDTABLE_HOME: '/tmp/rt-home' }), '/tmp/rt-home');
    assert.equal(defaultDataDir({ ROUNDTABLE_HOME: '  ' }), path.join(os.homedir(), '.roundtable'));
  });

  it('roundtable run and roundtable eval read a blank ROUNDTABLE_API_KEY and ROUNDTABLE_BASE_URL alike', async () => {
    const env = { ROUNDTABLE_API_KEY: '', OPENAI_API_KEY: KEY, ROUNDTABLE_BASE_URL: '', ROUNDTABLE_HOME: '/tmp/rt' };
    const run = await parseRunArgs(['--topic', 't', '--provider', 'scripted'], env);
    assert.ok(run !== 'help');
    assert.equal(run.apiKey, KEY);
    assert.equal(run.baseURL, DEFAULT_BASE_URL);
    assert.equal(run.dataDir, '/tmp/rt');
    const ev = parseEvalArgs(['--models', 'a,b'], env);
    assert.ok(ev !== 'help');
    assert.equal(ev.apiKey, KEY);
    assert.equal(ev.baseURL, DEFAULT_BASE_URL);
  });
});

describe('the daemon reads the key and server by the same rule', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI(() => 'Yes. [STANCE: AGREE]', { apiKey: KEY });
  });
  after(() => fake.close());

  const request = (): ChatRequest => ({
    model: 'fake-model',
    messages: [{ role: 'user', content: 'Ship it?' }],
    maxTokens: 50,
    signal: new AbortController().signal,
    meta: { participant: 'ada', role: 'worker', purpose: 'turn', round: 1, topic: 't' },
  });
  const seat = { name: 'ada', role: 'worker', provider: 'openai', model: 'fake-model' } as const;

  it('with ROUNDTABLE_API_KEY empty, the daemon sends OPENAI_API_KEY to the server (as the CLI does)', async () => {
    const env = { ROUNDTABLE_API_KEY: '', OPENAI_API_KEY: KEY, ROUNDTABLE_BASE_URL: fake.baseURL };
    const provider = providerFactory(env)(undefined, undefined)(seat);
    const r = await provider.chat(request());
    assert.match(r.text, /Yes/);
    assert.equal(fake.requests.at(-1)?.headers.authorization, `Bearer ${KEY}`);
  });

  it('with ROUNDTABLE_BASE_URL empty, the daemon talks to OpenAI, not to ""', () => {
    const provider = providerFactory({ ROUNDTABLE_BASE_URL: '' })(undefined, undefined)(seat);
    assert.equal(provider.id, `openai@${DEFAULT_BASE_URL}`);
  });
});
