/**
 * The bounds of issue 32 as a person at a terminal meets them, through the real `roundtable`
 * command: a server that asks to be retried in 11 days does not keep the CLI alive.
 */
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, ensureBuilt } from '../fakes/cli';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';

describe('bounds at the terminal', () => {
  let fake: FakeOpenAI;
  before(async () => {
    ensureBuilt();
    fake = await startFakeOpenAI(() => ({ status: 429, retryAfter: 999_999 }));
  });
  after(() => fake.close());

  it('a 429 with Retry-After: 999999 fails the calls in one line and the CLI exits once the result is printed', async () => {
    const out = await mkdtemp(path.join(tmpdir(), 'rt-bounds-'));
    const r = await cli(
      [
        'run',
        '--topic',
        'x',
        '--provider',
        'openai',
        '--model',
        'fake-model',
        '--base-url',
        fake.baseURL,
        '--out',
        out,
      ],
      { timeoutMs: 30_000, env: { ROUNDTABLE_HOME: out } },
    );
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /rate limited: the model server at .* asks to wait 11 days before a retry/);
    assert.match(r.stdout, /Minutes: /);
    // One request per call, none retried.
    assert.ok(fake.requests.filter((q) => q.path.endsWith('/chat/completions')).length <= 5);
  });
});
