/**
 * The pull request a review reads in GitHub Actions: its base commit from the event payload
 * (`pull_request.base.sha`, as GitHub's pull_request webhook payload carries it), else
 * `origin/$GITHUB_BASE_REF`; nothing outside Actions; a payload that is not what GitHub sends is
 * one usage line, never a guess.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { pullRequestChange } from '../../cli/src/reviewEnv';
import { UsageError } from '../../client/src/usage';

const BASE = 'a'.repeat(40);
const HEAD = 'b'.repeat(40);

describe('the pull request from the GitHub Actions environment', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  const event = async (payload: unknown): Promise<string> => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rt-event-'));
    dirs.push(dir);
    const file = path.join(dir, 'event.json');
    await writeFile(file, typeof payload === 'string' ? payload : JSON.stringify(payload));
    return file;
  };

  it("reads the pull request's base and head commits from the event payload", async () => {
    // The shape of a pull_request event (docs.github.com, webhook events: pull_request): base.sha, head.sha.
    const file = await event({
      action: 'synchronize',
      pull_request: { base: { ref: 'main', sha: BASE }, head: { sha: HEAD } },
    });
    const pr = pullRequestChange({ GITHUB_ACTIONS: 'true', GITHUB_EVENT_PATH: file, GITHUB_BASE_REF: 'main' });
    assert.equal(pr?.base, BASE);
    assert.match(pr?.notice ?? '', /base aaaaaaa, head bbbbbbb/);
  });

  it('falls back to origin/GITHUB_BASE_REF without a pull request in the payload, and to nothing outside Actions', async () => {
    const file = await event({ action: 'opened' });
    assert.equal(
      pullRequestChange({ GITHUB_ACTIONS: 'true', GITHUB_EVENT_PATH: file, GITHUB_BASE_REF: 'release/1.x' })?.base,
      'origin/release/1.x',
    );
    assert.equal(pullRequestChange({ GITHUB_ACTIONS: 'true', GITHUB_EVENT_PATH: file }), undefined);
    assert.equal(pullRequestChange({ GITHUB_EVENT_PATH: file, GITHUB_BASE_REF: 'main' }), undefined);
  });

  it('refuses a base that is not a commit hash, a branch name that is not one, or a payload that is not JSON', async () => {
    const forged = await event({ pull_request: { base: { sha: '--output=/etc/passwd' } } });
    assert.throws(() => pullRequestChange({ GITHUB_ACTIONS: 'true', GITHUB_EVENT_PATH: forged }), UsageError);
    const broken = await event('{not json');
    assert.throws(
      () => pullRequestChange({ GITHUB_ACTIONS: 'true', GITHUB_EVENT_PATH: broken }),
      /cannot read .* as JSON/,
    );
    assert.throws(
      () => pullRequestChange({ GITHUB_ACTIONS: 'true', GITHUB_BASE_REF: 'main; rm -rf' }),
      /not a branch name/,
    );
  });
});
