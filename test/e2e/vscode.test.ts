/**
 * End to end in a real VS Code: code-server (VS Code 1.100's workbench and a real extension
 * host) with the packaged .vsix, driven by playwright-core in Debian's Chromium. A person's path:
 * "Start Roundtable" from the command palette, watch the room fill, review the digest, Accept,
 * and find the minutes and the decision record in the workspace, staged in git.
 * Prerequisites are installed by test/e2e/setup.sh (called by `npm test`).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';

const ROOT = path.resolve(__dirname, '..', '..');
const CODE_SERVER = path.join(ROOT, '.cache', 'e2e', 'node_modules', '.bin', 'code-server');
const VSIX = path.join(ROOT, 'roundtable.vsix');
const SHOTS = path.join(ROOT, 'test', '.tmp', 'e2e-screenshots');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function until<T>(
  what: string,
  fn: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/** The webview frame that holds `selector` (webview content lives in nested iframes). */
async function frameWith(page: Page, selector: string): Promise<Frame | undefined> {
  for (const f of page.frames()) {
    try {
      if (await f.$(selector)) return f;
    } catch {
      // detached frame
    }
  }
  return undefined;
}

describe('Roundtable in a real VS Code (code-server)', () => {
  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let workspace: string;
  let serverLog = '';
  const dirs: string[] = [];

  before(async () => {
    assert.ok(existsSync(CODE_SERVER), 'code-server is installed by test/e2e/setup.sh');
    assert.ok(existsSync(VSIX), 'the extension is packaged by `npm run package`');
    const base = await mkdtemp(path.join(tmpdir(), 'rt-e2e-'));
    dirs.push(base);
    const userData = path.join(base, 'user');
    const extensions = path.join(base, 'extensions');
    const home = path.join(base, 'roundtable-home');
    workspace = path.join(base, 'workspace');
    await mkdir(path.join(userData, 'User'), { recursive: true });
    await mkdir(workspace, { recursive: true });
    await writeFile(
      path.join(userData, 'User', 'settings.json'),
      JSON.stringify({
        'security.workspace.trust.enabled': false,
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'extensions.autoUpdate': false,
        'roundtable.dataDir': home,
      }),
    );
    await writeFile(path.join(workspace, 'README.md'), '# a project\n');
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    execFileSync(
      'git',
      ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init'],
      { cwd: workspace },
    );
    execFileSync(
      CODE_SERVER,
      ['--user-data-dir', userData, '--extensions-dir', extensions, '--install-extension', VSIX],
      { stdio: 'pipe' },
    );
    const port = await freePort();
    server = spawn(
      CODE_SERVER,
      [
        '--bind-addr',
        `127.0.0.1:${port}`,
        '--auth',
        'none',
        '--disable-telemetry',
        '--disable-update-check',
        '--user-data-dir',
        userData,
        '--extensions-dir',
        extensions,
        workspace,
      ],
      {
        env: { ...process.env, ROUNDTABLE_HOME: home },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    server.stdout?.on('data', (d: Buffer) => (serverLog += d.toString()));
    server.stderr?.on('data', (d: Buffer) => (serverLog += d.toString()));
    await until('code-server to listen', () => /HTTP server listening/.test(serverLog), 60_000);
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
    await mkdir(SHOTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    server?.kill('SIGTERM');
    for (const d of dirs) await rm(d, { recursive: true, force: true }).catch(() => undefined);
    console.log(`e2e screenshots: ${SHOTS}`);
  });

  async function palette(command: string): Promise<void> {
    await page.keyboard.press('Control+Shift+P');
    await page.waitForSelector('.quick-input-widget:not([style*="display: none"]) input', { timeout: 15_000 });
    await page.keyboard.type(command);
    await until(
      `"${command}" in the palette`,
      async () =>
        (await page.locator('.quick-input-list .monaco-list-row', { hasText: command.replace(/^>?\s*/, '') }).count()) >
        0,
      30_000,
    );
    await page.keyboard.press('Enter');
  }

  it('starts a meeting from the command palette and shows it live in the room view', async () => {
    // The extension host needs a moment after the workbench appears.
    await until('the Roundtable commands', async () => {
      await page.keyboard.press('Control+Shift+P');
      await page.waitForSelector('.quick-input-widget input', { timeout: 5_000 });
      await page.keyboard.type('Roundtable: Start');
      const found =
        (await page
          .locator('.quick-input-list .monaco-list-row', { hasText: 'Roundtable: Start Roundtable' })
          .count()) > 0;
      await page.keyboard.press('Escape');
      return found;
    });
    await palette('Roundtable: Start Roundtable');
    await page.waitForSelector('.quick-input-widget input', { timeout: 15_000 });
    await page.keyboard.type('Should we adopt a monorepo for our three services?');
    await page.keyboard.press('Enter');
    await until(
      'the mode pick',
      async () => (await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Roundtable' }).count()) > 0,
    );
    await page.keyboard.press('Enter');
    await until(
      'the start pick',
      async () => (await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Start' }).count()) > 0,
    );
    await page.keyboard.press('Enter');

    const room = await until(
      'the room view with messages',
      () => frameWith(page, '[data-testid="messages"] .message'),
      90_000,
    );
    await page.screenshot({ path: path.join(SHOTS, 'room-running.png') });
    const closed = await until(
      'the meeting to close in the room',
      async () => {
        const f = (await frameWith(page, '[data-testid="closed"]')) ?? room;
        return (await f.$('[data-testid="closed"]')) ? f : undefined;
      },
      120_000,
    );
    const text = (await closed.textContent('.room')) ?? '';
    assert.match(text, /Should we adopt a monorepo/);
    assert.match(text, /ada/);
    assert.match(text, /Ended: consensus_full/);
    const stances = (await closed.textContent('[data-testid="stances"]')) ?? '';
    assert.match(stances, /DISAGREE/, 'the stance matrix shows grace’s first-round DISAGREE');
    assert.match(stances, /AGREE/);
    assert.match((await closed.textContent('[data-testid="budget"]')) ?? '', /\d+ \/ 15,000 tokens/);
    assert.match((await closed.textContent('[data-testid="round"]')) ?? '', /Round 3 of 10/);
    await page.screenshot({ path: path.join(SHOTS, 'room-closed.png') });
  });

  it('opens the digest review, and Accept writes minutes and a decision record, staged in git', async () => {
    const review = await until('the digest review panel', () => frameWith(page, '[data-testid="accept"]'), 60_000);
    const digest = await review.inputValue('#digest-text');
    assert.match(digest, /^TOPIC: Should we adopt a monorepo for our three services\?/);
    for (const field of ['CONSENSUS:', 'DISSENT:', 'CONTRIBUTORS:', 'CONFIDENCE:', 'TOKEN COST:'])
      assert.ok(digest.includes(field), field);
    await page.screenshot({ path: path.join(SHOTS, 'digest-review.png') });
    await review.fill('#digest-text', `${digest}\nREVIEWER NOTE: start with the billing service.`);
    await review.click('#accept');

    const minutesDir = path.join(workspace, 'docs', 'roundtable');
    const decisionsDir = path.join(workspace, 'docs', 'decisions');
    const record = await until(
      'the decision record',
      async () => (await readdir(decisionsDir).catch(() => [])).find((f) => /^0001-.*\.md$/.test(f)),
      60_000,
    );
    const minutesFile = (await readdir(minutesDir)).find((f) => f.endsWith('.md'));
    assert.ok(minutesFile, 'minutes are in docs/roundtable');
    const minutes = await readFile(path.join(minutesDir, minutesFile), 'utf8');
    for (const h of [
      '# Roundtable minutes:',
      '## Participants',
      '## Round 1',
      '## Stance matrix',
      '## Digest',
      '## Decision',
      '## Token accounting',
    ])
      assert.ok(minutes.includes(h), h);
    const adr = await readFile(path.join(decisionsDir, record), 'utf8');
    for (const h of [
      '- Status: accepted',
      '## Context and Problem Statement',
      '## Decision Outcome',
      '## Consequences',
      `../roundtable/${minutesFile}`,
      'REVIEWER NOTE: start with the billing service.',
    ]) {
      assert.ok(adr.includes(h), `decision record lacks ${h}`);
    }
    const staged = await until(
      'git staging',
      () => {
        const out = execFileSync('git', ['diff', '--cached', '--name-only'], { cwd: workspace }).toString();
        return out.includes(record) && out.includes(minutesFile) ? out : undefined;
      },
      30_000,
    );
    assert.match(staged, /docs\/decisions\/0001-/);
    await page.screenshot({ path: path.join(SHOTS, 'accepted.png') });
  });
});
