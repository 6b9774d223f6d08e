/**
 * The provider registry (daemon/src/providers/registry.ts): one entry per kind the participant
 * schema accepts, an unknown kind refused in one line, and each process's providers built from it
 * (the daemon's lookup, `roundtable run` in its own process).
 */
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { PROVIDER_KINDS, RpcError, type Participant } from '@roundtable/protocol';
import { PROVIDERS, meetingProviders, providerEntry } from '../../daemon/src/providers/registry';
import { providerFactory } from '../../daemon/src/daemon/daemon';
import type { ChatRequest } from '../../daemon/src/providers/types';
import { cli, ensureBuilt } from '../fakes/cli';

const seat = (name: string, provider: string): Participant =>
  ({ name, role: 'worker', provider, model: 'm' }) as Participant;

const request = (): ChatRequest => ({
  model: 'm',
  messages: [{ role: 'user', content: 'Ship it?' }],
  maxTokens: 50,
  signal: new AbortController().signal,
  meta: { participant: 'ada', role: 'worker', purpose: 'turn', round: 1, topic: 't' },
});

describe('the provider registry', () => {
  it('has exactly the kinds the participant schema accepts', () => {
    assert.deepEqual(Object.keys(PROVIDERS).sort(), [...PROVIDER_KINDS].sort());
  });

  it('refuses an unknown kind in one line naming the known ones', () => {
    assert.throws(
      () => providerEntry('anthropic'),
      (e: Error) =>
        e instanceof RpcError &&
        e.code === 'bad_request' &&
        e.message === 'unknown provider "anthropic": Roundtable has openai, vscode-lm, scripted, attached',
    );
    // Not a kind because it is a property every object has.
    assert.throws(() => providerEntry('toString'), /unknown provider "toString"/);
    const lookup = meetingProviders({ baseURL: 'http://127.0.0.1:1/v1', shared: new Map() });
    assert.throws(() => lookup(seat('ada', 'anthropic')), /^RpcError: unknown provider "anthropic"/);
  });

  it('a seat no process can answer here fails its call in one line (no silent fallback to OpenAI)', async () => {
    const lookup = meetingProviders({ baseURL: 'http://127.0.0.1:1/v1', shared: new Map() });
    for (const kind of ['vscode-lm', 'attached']) {
      const provider = lookup(seat('ada', kind));
      assert.equal(provider.id, kind);
      await assert.rejects(provider.chat(request()), {
        message: `ada uses ${kind}, which needs the VS Code extension connected to the daemon`,
      });
    }
  });

  it('one scripted provider per meeting, one OpenAI client per endpoint and key across meetings', () => {
    const meetings = providerFactory({});
    const one = meetings(undefined, undefined);
    const two = meetings(undefined, undefined);
    assert.equal(one(seat('ada', 'scripted')), one(seat('bob', 'scripted')));
    assert.notEqual(one(seat('ada', 'scripted')), two(seat('ada', 'scripted')));
    assert.equal(one(seat('ada', 'openai')), two(seat('bob', 'openai')));
    assert.notEqual(one(seat('ada', 'openai')), meetings(undefined, 'sk-another-key-123456')(seat('ada', 'openai')));
  });
});

describe('roundtable run with a participants file naming an unknown provider', () => {
  before(() => ensureBuilt());

  it('exits 2 with one line, asking no server', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rt-registry-'));
    const file = path.join(dir, 'panel.json');
    await writeFile(
      file,
      JSON.stringify([
        { name: 'sam', role: 'assistant', provider: 'openai', model: 'gpt-4o-mini' },
        { name: 'ada', role: 'worker', provider: 'anthropic', model: 'claude' },
        { name: 'bob', role: 'worker', provider: 'openai', model: 'gpt-4o-mini' },
      ]),
    );
    // A server that would answer if asked: the refusal must come before it.
    const r = await cli(['run', '--topic', 'x', '--participants', file, '--no-daemon', '--out', dir], {
      env: { ROUNDTABLE_BASE_URL: 'http://127.0.0.1:9/v1' },
    });
    assert.equal(r.code, 2);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(
      lines[0] ?? '',
      /^roundtable: .*participants\[1\]\.provider must be openai, vscode-lm, scripted or attached$/,
    );
    assert.equal(r.stdout, '');
  });
});
