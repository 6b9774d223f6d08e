/**
 * The first run in a real VS Code (code-server with the packaged .vsix): no roundtable settings,
 * the user's models are two VS Code chat models of different families plus a cheap one (stub models
 * through the extension's test model source, because VS Code 1.100 cannot register a chat model
 * and Copilot is absent) and an OpenAI-compatible server on loopback. "Start Roundtable" proposes a
 * mixed panel of distinct families, the user keeps it, saves it, types their own question, and the
 * meeting runs on those models, on that question.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';
import {
  CODE_SERVER,
  ROOT,
  VSIX,
  frameWith,
  palette,
  pickContext,
  startVsCode,
  until,
  waitForRoundtableCommands,
  type RunningVsCode,
} from './codeServer';

const SHOTS = path.join(ROOT, 'test', '.tmp', 'e2e-screenshots');
const TOPIC = 'Should we move the billing service from MySQL to PostgreSQL?';
const SERVER_MODELS = ['llama3.1:8b', 'qwen2.5:7b'];
const STUBS = [
  { id: 'stub-alpha-large', family: 'alpha' },
  { id: 'stub-beta', family: 'beta' },
  { id: 'stub-alpha-mini', family: 'alpha' },
];

describe('first run: a panel from the models the user already has', () => {
  let vs: RunningVsCode;
  let page: Page;
  let server: FakeOpenAI;
  let calls: string;
  let userSettings: string;

  before(async () => {
    assert.ok(existsSync(CODE_SERVER), 'code-server is installed by test/e2e/setup.sh');
    assert.ok(existsSync(VSIX), 'the extension is packaged by `npm run package`');
    server = await startFakeOpenAI(undefined, { models: SERVER_MODELS });
    calls = path.join(await mkdtemp(path.join(tmpdir(), 'rt-stub-calls-')), 'calls.jsonl');
    await writeFile(calls, '');
    vs = await startVsCode({
      install: 'vsix',
      env: { ROUNDTABLE_TEST_LM_MODELS: JSON.stringify(STUBS), ROUNDTABLE_TEST_LM_CALLS: calls },
      settings: { 'roundtable.providerBaseUrl': server.baseURL, 'window.autoDetectColorScheme': true },
    });
    page = vs.page;
    await theme(false);
    userSettings = path.join(path.dirname(vs.workspace), 'user', 'User', 'settings.json');
    await mkdir(SHOTS, { recursive: true });
  });

  after(async () => {
    await vs?.stop();
    await server?.close();
    console.log(`e2e screenshots: ${SHOTS}`);
  });

  /** The visible quick-pick rows: label text and whether each is checked. */
  async function rows(): Promise<{ text: string; checked: boolean }[]> {
    return page.$$eval('.quick-input-widget .quick-input-list .monaco-list-row', (els) =>
      els.map((e) => ({
        text: (e.textContent ?? '').replace(/\s+/g, ' ').trim(),
        checked:
          e.getAttribute('aria-checked') === 'true' ||
          Boolean(e.querySelector<HTMLInputElement>('input[type=checkbox]')?.checked),
      })),
    );
  }

  /** Switches the OS colour scheme VS Code follows (window.autoDetectColorScheme), as a person would. */
  async function theme(light: boolean): Promise<void> {
    await page.emulateMedia({ colorScheme: light ? 'light' : 'dark' });
    await until(`the ${light ? 'light' : 'dark'} theme`, async () =>
      page.$eval('.monaco-workbench', (e, l) => e.classList.contains(l ? 'vs' : 'vs-dark'), light),
    );
  }

  it('proposes workers of distinct families from both sources, pre-picked, and grouped by source', async () => {
    await waitForRoundtableCommands(page);
    await palette(page, 'Roundtable: Start Roundtable');
    const shown = await until(
      'the panel picker',
      async () => {
        const r = await rows();
        return r.some((x) => x.text.includes('stub-beta')) && r.some((x) => x.text.includes('llama3.1:8b')) ? r : false;
      },
      60_000,
    );
    const widget = (await page.textContent('.quick-input-widget')) ?? '';
    assert.match(widget, /pick the workers/);
    assert.match(widget, /Test stub models/, 'the VS Code models are under their source');
    assert.match(widget, /Server at 127\.0\.0\.1:\d+/, 'the server models are under theirs');
    const ids = [...STUBS.map((m) => m.id), ...SERVER_MODELS];
    const picked = shown.filter((r) => r.checked).map((r) => ids.find((id) => r.text.startsWith(id)));
    assert.deepEqual(
      picked.sort(),
      ['llama3.1:8b', 'stub-alpha-large', 'stub-beta'],
      'one model per family, the first of each, up to three workers',
    );
    assert.ok(
      shown.some((r) => /stub-alpha-mini/.test(r.text) && /alpha/.test(r.text) && !r.checked),
      'a second model of a family is offered, not picked',
    );
    await page.screenshot({ path: path.join(SHOTS, 'first-run-picker-dark.png') });
    await theme(true);
    await page.screenshot({ path: path.join(SHOTS, 'first-run-picker-light.png') });
    await theme(false);
  });

  it('runs the meeting on the picked models, on the question typed, and saves the panel', async () => {
    await page.keyboard.press('Enter');
    await until(
      'the topic box',
      async () => /What should the room decide/.test((await page.textContent('.quick-input-widget')) ?? ''),
      30_000,
    );
    await page.keyboard.type(TOPIC);
    await page.keyboard.press('Enter');
    await until(
      'the mode pick',
      async () => (await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Consensus' }).count()) > 0,
    );
    await page.keyboard.press('Enter');
    await pickContext(page);
    const save = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Save as my panel' });
    await until('the start pick with "Save as my panel"', async () => (await save.count()) > 0);
    await page.screenshot({ path: path.join(SHOTS, 'first-run-start.png') });
    await save.click();

    const closed = await until(
      'the meeting to close in the room',
      async () => frameWith(page, '[data-testid="closed"]'),
      180_000,
    );
    const room = (await closed.textContent('.room')) ?? '';
    await page.screenshot({ path: path.join(SHOTS, 'first-run-room.png') });
    assert.match(room, /MySQL to PostgreSQL/, 'the room discussed the question asked');
    assert.doesNotMatch(room, /monorepo/i, 'not the canned demo');
    for (const who of ['ada', 'grace', 'linus']) assert.match(room, new RegExp(who));
    assert.match(room, /Stub model stub-alpha-large/);
    assert.match(room, /Stub model stub-beta/);
    assert.match(room, /ok from llama3\.1:8b/);

    const called = new Set(
      (await readFile(calls, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { model: string }).model),
    );
    assert.deepEqual(
      [...called].sort(),
      ['stub-alpha-large', 'stub-alpha-mini', 'stub-beta'],
      'every VS Code model seated was called',
    );
    assert.ok(
      server.requests.some((r) => r.path.includes('/chat/completions') && r.body.model === 'llama3.1:8b'),
      'the server model seated was called',
    );

    const saved = await until('the saved panel', async () => {
      const s = JSON.parse(await readFile(userSettings, 'utf8')) as Record<string, unknown>;
      return s['roundtable.participants'] as
        { name: string; role: string; provider: string; model: string }[] | undefined;
    });
    assert.deepEqual(
      saved.map((p) => `${p.role}:${p.provider}:${p.model}`),
      [
        'assistant:vscode-lm:stub-alpha-mini',
        'judge:openai:qwen2.5:7b',
        'worker:vscode-lm:stub-alpha-large',
        'worker:vscode-lm:stub-beta',
        'worker:openai:llama3.1:8b',
      ],
    );
  });
});
