/**
 * Issue 16 in a real VS Code (code-server with the packaged .vsix): a person right-clicks a file in
 * the explorer, picks "Discuss in Roundtable", goes through the usual start flow (the demo panel:
 * no models here), and the meeting's minutes list that file with its content hash — the daemon read
 * it once, inside the workspace, and logged what it read.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import {
  CODE_SERVER,
  VSIX,
  frameWith,
  palette,
  startVsCode,
  until,
  waitForRoundtableCommands,
  type RunningVsCode,
} from './codeServer';

describe('Discuss in Roundtable from the explorer', () => {
  let vs: RunningVsCode;
  let page: Page;

  before(async () => {
    assert.ok(existsSync(CODE_SERVER), 'code-server is installed by test/e2e/setup.sh');
    assert.ok(existsSync(VSIX), 'the extension is packaged by `npm run package`');
    // Minutes written as soon as the digest is out, so the test reads them without reviewing.
    vs = await startVsCode({ install: 'vsix', settings: { 'roundtable.minutes': 'always' } });
    page = vs.page;
  });

  after(async () => {
    await vs?.stop();
  });

  /** A visible row of an open quick pick. */
  const row = (text: string) =>
    page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: text });

  it('starts a meeting on a file picked in the explorer, and the minutes list it with its sha256', async () => {
    const readme = await readFile(path.join(vs.workspace, 'README.md'), 'utf8');
    const sha = createHash('sha256').update(readme, 'utf8').digest('hex');

    await waitForRoundtableCommands(page);
    await palette(page, 'View: Show Explorer');
    const file = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' });
    await until('README.md in the explorer', async () => (await file.count()) > 0, 30_000);
    await file.first().click({ button: 'right' });
    const item = page.locator('.monaco-menu .action-item', { hasText: 'Discuss in Roundtable' });
    await until('"Discuss in Roundtable" in the context menu', async () => (await item.count()) > 0, 15_000);
    await item.first().click();

    // The usual start flow: no chat model here, so the demo panel is offered and runs.
    await until('the demo offer', async () => (await row('Run the demo').count()) > 0, 60_000);
    await page.keyboard.press('Enter');
    await until('the mode pick', async () => (await row('Consensus').count()) > 0);
    await page.keyboard.press('Enter');
    await until('the start pick', async () => (await row('Change rounds and budget').count()) > 0);
    await page.keyboard.press('Enter');

    await until('the meeting to close in the room', () => frameWith(page, '[data-testid="closed"]'), 180_000);
    const minutesDir = path.join(vs.workspace, 'docs', 'roundtable');
    const minutes = await until(
      'the minutes in docs/roundtable',
      async () => {
        const name = (await readdir(minutesDir).catch(() => [])).find((f) => f.endsWith('.md'));
        return name ? readFile(path.join(minutesDir, name), 'utf8') : undefined;
      },
      60_000,
    );
    assert.match(minutes, /## Context/);
    const line = minutes.split('\n').find((l) => l.includes('README.md')) ?? '';
    assert.match(line, /^\| file \| README\.md \|/, 'the explorer pick is listed as an attached file');
    assert.ok(line.includes(sha), `the minutes show README.md's sha256 (${sha}): ${line}`);
  });
});
