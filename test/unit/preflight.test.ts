/**
 * The start flow's preflight (before the topic is typed) against a real OpenAI-compatible server on
 * loopback, and the panel built from the workers a user picked. Each problem is one line that says
 * what to do; a good panel has none.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ModelChoice, Participant } from '@roundtable/protocol';
import { proposePanel } from '@roundtable/protocol';
import { listModels } from '../../daemon/src/modelLists';
import { preflight, type PreflightDeps } from '../../extension/src/preflight';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';

const seat = (
  name: string,
  role: Participant['role'],
  provider: Participant['provider'],
  model: string,
): Participant => ({
  name,
  role,
  provider,
  model,
});

describe('preflight before a meeting starts', () => {
  let server: FakeOpenAI;
  before(async () => {
    server = await startFakeOpenAI(undefined, { models: ['llama3.1:8b', 'qwen2.5:7b'], apiKey: 'sk-right' });
  });
  after(() => server.close());

  const deps = (o: Partial<PreflightDeps> & { key?: string; baseUrl?: string }): PreflightDeps => ({
    baseUrl: o.baseUrl ?? server.baseURL,
    hasApiKey: Boolean(o.key),
    findVscodeModel: o.findVscodeModel ?? (() => Promise.resolve(undefined)),
    listServerModels: () =>
      listModels(o.baseUrl ?? server.baseURL, { timeoutMs: 1_000, ...(o.key ? { apiKey: o.key } : {}) }),
  });

  it('passes a mixed panel whose models all exist and may be used', async () => {
    const panel = [
      seat('sam', 'assistant', 'openai', 'qwen2.5:7b'),
      seat('ada', 'worker', 'vscode-lm', 'gpt-4o'),
      seat('grace', 'worker', 'openai', 'llama3.1:8b'),
    ];
    const problems = await preflight(panel, {
      ...deps({ key: 'sk-right' }),
      findVscodeModel: (m) => Promise.resolve(m === 'gpt-4o' ? { id: 'gpt-4o', allowed: true } : undefined),
    });
    assert.deepEqual(problems, []);
  });

  it('names an unknown model on the server, what it has, and where to fix it', async () => {
    const problems = await preflight(
      [
        seat('ada', 'worker', 'openai', 'llama3.1:8b'),
        seat('grace', 'worker', 'openai', 'mistral'),
        seat('linus', 'worker', 'openai', 'mistral'),
      ],
      deps({ key: 'sk-right' }),
    );
    assert.equal(problems.length, 1, 'two seats on one missing model are one line');
    assert.match(
      problems[0]?.message ?? '',
      /^grace, linus: the server has no model "mistral" \(it has llama3\.1:8b, qwen2\.5:7b\)/,
    );
    assert.equal(problems[0]?.action, 'Open Settings');
  });

  it('never lets a server-made model name become a link in the notification', async () => {
    const hostile = await startFakeOpenAI(undefined, { models: ['[Fix it](command:workbench.action.quit)'] });
    try {
      const [p] = await preflight([seat('ada', 'worker', 'openai', 'llama3')], deps({ baseUrl: hostile.baseURL }));
      assert.match(p?.message ?? '', /it has Fix it\(command:workbench\.action\.quit\)\)/);
      assert.doesNotMatch(p?.message ?? '', /\[|\]/);
    } finally {
      await hostile.close();
    }
  });

  it('says the key was refused and offers to set it, without showing the key', async () => {
    const [p] = await preflight([seat('ada', 'worker', 'openai', 'llama3.1:8b')], deps({ key: 'sk-wrong' }));
    assert.match(p?.message ?? '', /refused the API key \(HTTP 401\).*Set API Key/);
    assert.doesNotMatch(p?.message ?? '', /sk-wrong/);
    assert.equal(p?.action, 'Set API Key');
  });

  it('says a server that is down is unreachable, in one line', async () => {
    const down = await startFakeOpenAI();
    const baseUrl = down.baseURL;
    await down.close();
    const problems = await preflight([seat('ada', 'worker', 'openai', 'x')], deps({ baseUrl, key: 'k' }));
    assert.equal(problems.length, 1);
    assert.match(problems[0]?.message ?? '', /is unreachable.*start the server, or fix roundtable\.providerBaseUrl\.$/);
    assert.doesNotMatch(problems[0]?.message ?? '', /\n/);
  });

  it('asks for a key before calling api.openai.com without one', async () => {
    const problems = await preflight([seat('ada', 'worker', 'openai', 'gpt-4o')], deps({ baseUrl: '' }));
    assert.equal(problems[0]?.action, 'Set API Key');
    assert.match(problems[0]?.message ?? '', /^ada: api\.openai\.com needs an API key/);
  });

  it('reports a missing Copilot model and a refused consent, and accepts consent not asked yet', async () => {
    const problems = await preflight(
      [
        seat('ada', 'worker', 'vscode-lm', 'gpt-4o'),
        seat('grace', 'worker', 'vscode-lm', 'claude-sonnet'),
        seat('linus', 'worker', 'vscode-lm', 'o3-mini'),
      ],
      deps({
        findVscodeModel: (m) =>
          Promise.resolve(
            m === 'claude-sonnet'
              ? { id: m, allowed: false }
              : m === 'o3-mini'
                ? { id: m, allowed: undefined }
                : undefined,
          ),
      }),
    );
    assert.deepEqual(
      problems.map((p) => p.message.split(':')[0]),
      ['ada', 'grace'],
    );
    assert.match(problems[0]?.message ?? '', /"gpt-4o" is not available: sign in to GitHub Copilot/);
    assert.match(problems[1]?.message ?? '', /not allowed to use "claude-sonnet": allow it under Accounts/);
    assert.equal(server.requests.filter((r) => r.path.includes('chat')).length, 0, 'no model was called');
  });
});

describe('the panel from the workers a user picked', () => {
  const m = (id: string, family: string, provider: ModelChoice['provider'] = 'vscode-lm'): ModelChoice => ({
    provider,
    id,
    family,
    source: provider === 'openai' ? 'Server at 127.0.0.1:11434' : 'GitHub Copilot',
  });
  const all = [
    m('gpt-4o', 'gpt-4o'),
    m('gpt-4o-mini', 'gpt-4o'),
    m('claude-sonnet', 'claude'),
    m('llama3.1:8b', 'llama3.1', 'openai'),
  ];

  it('seats exactly the picked models as workers, in order, with the judge on a model no worker uses', () => {
    const panel =
      proposePanel(all, { workerModels: [all[0] as ModelChoice, all[1] as ModelChoice, all[3] as ModelChoice] }) ?? [];
    assert.deepEqual(
      panel.filter((p) => p.role === 'worker').map((p) => `${p.provider}:${p.model}`),
      ['vscode-lm:gpt-4o', 'vscode-lm:gpt-4o-mini', 'openai:llama3.1:8b'],
    );
    assert.equal(panel.find((p) => p.role === 'judge')?.model, 'claude-sonnet');
    assert.equal(panel.find((p) => p.role === 'assistant')?.model, 'gpt-4o-mini');
  });

  it('seats one picked model twice, because a debate needs two workers', () => {
    const panel = proposePanel(all, { workerModels: [all[2] as ModelChoice] }) ?? [];
    assert.deepEqual(
      panel.filter((p) => p.role === 'worker').map((p) => p.model),
      ['claude-sonnet', 'claude-sonnet'],
    );
  });
});
