import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { costRank, familyOf, proposePanel, type ModelChoice } from '@roundtable/protocol/panel';
import { checkPanel } from '@roundtable/protocol';
import { loadScript } from '../../daemon/src/providers/scripted';

const ROOT = path.resolve(__dirname, '..', '..');

function models(...ids: string[]): ModelChoice[] {
  return ids.map((id) => ({ provider: 'openai', id, family: familyOf(id), source: 'test' }));
}

const byRole = (panel: ReturnType<typeof proposePanel>, role: string) =>
  (panel ?? []).filter((p) => p.role === role).map((p) => p.model);

describe('the proposed panel', () => {
  it('names families the way servers name models', () => {
    assert.equal(familyOf('llama3.1:8b'), 'llama3.1');
    assert.equal(familyOf('Qwen/Qwen2.5-7B-Instruct'), 'qwen2.5');
    assert.equal(familyOf('mistral:latest'), 'mistral');
    assert.equal(familyOf('llama3.1:70b'), familyOf('llama3.1:8b'));
  });

  it('puts one model per family on the workers before reusing any', () => {
    const panel = proposePanel(models('llama3.1:8b', 'llama3.1:70b', 'qwen2.5:7b', 'mistral:7b'));
    const workers = byRole(panel, 'worker');
    assert.equal(workers.length, 3);
    assert.deepEqual(new Set(workers.map(familyOf)), new Set(['llama3.1', 'qwen2.5', 'mistral']));
    assert.ok(checkPanel(panel).ok, 'a panel the meeting accepts');
  });

  it('seats the judge on a model no worker uses, the strongest one', () => {
    const panel = proposePanel(models('gpt-4o-mini', 'claude-3-5-haiku', 'llama3.1:8b', 'gpt-4o', 'llama3.1:70b'));
    const workers = byRole(panel, 'worker');
    const [judge] = byRole(panel, 'judge');
    assert.ok(judge && !workers.includes(judge), `judge ${judge} is not one of ${workers.join(', ')}`);
    assert.equal(judge, 'gpt-4o');
  });

  it('gives the assistant the cheapest model', () => {
    const panel = proposePanel(models('gpt-4o', 'qwen2.5:32b', 'llama3.2:3b'));
    assert.deepEqual(byRole(panel, 'assistant'), ['llama3.2:3b']);
    assert.ok(costRank('llama3.2:3b') < costRank('qwen2.5:32b'));
  });

  it('reuses models when there are fewer than the workers asked for, and has none without models', () => {
    assert.deepEqual(byRole(proposePanel(models('only:7b'), { workers: 2 }), 'worker'), ['only:7b', 'only:7b']);
    assert.equal(byRole(proposePanel(models('a', 'b', 'c', 'd', 'e'), { workers: 5 }), 'worker').length, 5);
    assert.equal(proposePanel([]), undefined);
  });
});

describe('the demo', () => {
  it('asks, in `npm run demo`, the question its canned replies were written for', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { demo: string } };
    const asked = /--topic "([^"]+)"/.exec(pkg.scripts.demo)?.[1];
    assert.equal(asked, loadScript(path.join(ROOT, 'examples', 'demo-script.json')).topic);
  });
});
