/**
 * Issue 16 in a real VS Code (code-server with the packaged .vsix): a person right-clicks a file in
 * the explorer, picks "Discuss in Roundtable", goes through the usual start flow (the demo panel:
 * no models here), and the meeting's minutes list that file with its content hash — the daemon read
 * it once, inside the workspace, and logged what it read.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import {
  CODE_SERVER,
  ROOT,
  VSIX,
  frameWith,
  palette,
  startMeeting,
  startVsCode,
  until,
  waitForRoundtableCommands,
  type RunningVsCode,
} from './codeServer';

const SHOTS = path.join(ROOT, 'test', '.tmp', 'e2e-screenshots');

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

  it('starts a meeting on a file picked in the explorer, and the minutes list it with its sha256', async () => {
    const readme = await readFile(path.join(vs.workspace, 'README.md'), 'utf8');
    const sha = createHash('sha256').update(readme, 'utf8').digest('hex');

    await waitForRoundtableCommands(page);
    await palette(page, 'View: Show Explorer');
    const file = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' });
    await until('README.md in the explorer', async () => (await file.count()) > 0, 30_000);
    const item = page.locator('.monaco-menu .action-item', { hasText: 'Discuss in Roundtable' });
    // The usual start flow, opened from the file's context menu: no chat model here, so the demo runs.
    await startMeeting(page, {
      mode: 'Roundtable',
      open: async () => {
        await file.first().click({ button: 'right' });
        await until('"Discuss in Roundtable" in the context menu', async () => (await item.count()) > 0, 15_000);
        await mkdir(SHOTS, { recursive: true });
        await page.screenshot({ path: path.join(SHOTS, 'grounding-context-menu.png') });
        await item.first().click();
      },
    });

    await until('the meeting to close in the room', () => frameWith(page, '[data-testid="closed"]'), 180_000);
    await page.screenshot({ path: path.join(SHOTS, 'grounding-room.png') });
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
