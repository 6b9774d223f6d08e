/**
 * The extension-host mocha suites (test/extension/suite.ts), run inside code-server's real
 * extension host: the extension runs them itself when ROUNDTABLE_EXTENSION_TESTS names a results
 * file, and this test reads the results. The same suites run on a desktop VS Code through
 * @vscode/test-electron wherever one can be downloaded (npm run test:vscode-desktop).
 *
 * Then the meeting `@roundtable` convened is shown as a person finds it — its Meetings view row and
 * its room — in light, dark and high-contrast themes and a narrow sidebar, screenshots in
 * test/.tmp/e2e-screenshots/. (code-server 4.100.3 has no chat view without Copilot, so the chat
 * itself cannot be shown here.)
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT, palette, resizeSidebar, setTheme, startVsCode, until, type RunningVsCode } from './codeServer';

const SHOTS = path.join(ROOT, 'test', '.tmp', 'e2e-screenshots');
/** The question the chat suite asks `@roundtable` (test/extension/chatSuite.ts). */
const CHAT_TOPIC = 'Should we split the billing service?';

describe('extension-host suites inside code-server', () => {
  let vs: RunningVsCode | undefined;
  after(() => vs?.stop());

  it('pass: activation, commands, room view, daemon start and restart, vscode.lm errors, @roundtable', async () => {
    assert.ok(existsSync(path.join(ROOT, 'dist', 'test', 'suite.js')), 'the suites are built by npm run build');
    const out = path.join(await mkdtemp(path.join(tmpdir(), 'rt-exthost-')), 'results.json');
    vs = await startVsCode({
      install: 'unpacked',
      env: {
        ROUNDTABLE_EXTENSION_TESTS: out,
        // Two families, so the convene path proposes a panel without a picker (no Copilot in code-server).
        ROUNDTABLE_TEST_LM_MODELS: JSON.stringify([
          { id: 'stub-a', family: 'alpha' },
          { id: 'stub-b', family: 'beta' },
        ]),
      },
    });
    const failures = Number(
      await until('the suites to finish', async () => readFile(`${out}.done`, 'utf8').catch(() => undefined), 240_000),
    );
    const report = JSON.parse(await readFile(out, 'utf8')) as {
      tests: { fullTitle: string }[];
      failures: { fullTitle: string; err: { message: string } }[];
    };
    for (const t of report.tests)
      console.log(
        `  extension host: ${report.failures.some((f) => f.fullTitle === t.fullTitle) ? '✖' : '✔'} ${t.fullTitle}`,
      );
    assert.equal(failures, 0, report.failures.map((f) => `${f.fullTitle}: ${f.err.message}`).join('\n'));
    assert.equal(report.tests.length, 8);
  });

  it('shows the meeting @roundtable convened in the Meetings view and the room, in every theme', async (t) => {
    if (!vs) return t.skip('the suites did not start');
    const page = vs.page;
    await mkdir(SHOTS, { recursive: true });
    await palette(page, 'Roundtable: Focus on Meetings View');
    const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^\s*Meetings/ }) });
    const row = pane.locator('.monaco-list-row', { hasText: CHAT_TOPIC });
    await until('the chat meeting in the Meetings view', async () => (await row.count()) > 0, 30_000);
    await row.first().click();
    const room = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^\s*Room/ }) });
    await until('the room', async () => (await room.count()) > 0, 30_000);
    const sidebar = page.locator('.part.sidebar');
    for (const theme of ['light', 'dark', 'hc'] as const) {
      await setTheme(page, theme);
      await sidebar.screenshot({ path: path.join(SHOTS, `chat-meeting-${theme}-sidebar.png`) });
      await page.screenshot({ path: path.join(SHOTS, `chat-meeting-${theme}.png`) });
    }
    const width = await resizeSidebar(page, 240);
    assert.ok(width < 300, `the sidebar is narrow (${width}px)`);
    await sidebar.screenshot({ path: path.join(SHOTS, 'chat-meeting-narrow-sidebar.png') });
    assert.match((await row.first().textContent()) ?? '', /roundtable/, 'the row says what kind of meeting it is');
    console.log(`e2e screenshots: ${SHOTS}`);
  });
});
