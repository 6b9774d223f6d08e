/**
 * End to end in a real VS Code: code-server (VS Code 1.100's workbench and a real extension
 * host) with the packaged .vsix, driven by playwright-core in Debian's Chromium. A person's path:
 * "Start Roundtable" from the command palette, watch the room fill, review the digest, Accept,
 * and find the minutes and the decision record in the workspace, staged in git.
 * Prerequisites are installed by test/e2e/setup.sh (called by `npm test`).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
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
  waitForPick,
  waitForRoundtableCommands,
  type RunningVsCode,
} from './codeServer';

const SHOTS = path.join(ROOT, 'test', '.tmp', 'e2e-screenshots');

describe('Roundtable in a real VS Code (code-server)', () => {
  let vs: RunningVsCode;
  let shownBefore: (string | null)[] = [];
  let page: Page;
  let workspace: string;

  before(async () => {
    assert.ok(existsSync(CODE_SERVER), 'code-server is installed by test/e2e/setup.sh');
    assert.ok(existsSync(VSIX), 'the extension is packaged by `npm run package`');
    vs = await startVsCode({ install: 'vsix' });
    page = vs.page;
    workspace = vs.workspace;
    await mkdir(SHOTS, { recursive: true });
  });

  after(async () => {
    await vs?.stop();
    console.log(`e2e screenshots: ${SHOTS}`);
  });

  it('starts a meeting from the command palette and shows it live in the room view', async () => {
    // The extension host needs a moment after the workbench appears.
    await waitForRoundtableCommands(page);
    // No chat model here: the demo is offered, says what it is, and runs on its own canned topic.
    await startMeeting(page, {
      mode: 'Roundtable',
      open: async () => {
        await palette(page, 'Roundtable: Start Roundtable');
        await waitForPick(page, 'Run the demo');
        assert.match((await page.textContent('.quick-input-widget')) ?? '', /not an answer to your question/);
      },
    });

    const room = await until(
      'the room view with messages',
      () => frameWith(page, '[data-testid="messages"] .message'),
      90_000,
    );
    await page.screenshot({ path: path.join(SHOTS, 'room-running.png') });
    // Closed with its digest written: until then the digest call is still writing in the list, an
    // entry a reloaded window (which sees the finished log) rightly no longer shows.
    const closed = await until(
      'the meeting to close in the room with its digest written',
      async () => {
        const f = (await frameWith(page, '[data-testid="closed"]')) ?? room;
        return (await f.$('[data-testid="closed"] [data-testid="digest"]')) ? f : undefined;
      },
      120_000,
    );
    const text = (await closed.textContent('.room')) ?? '';
    assert.match(text, /Should we adopt a monorepo/);
    assert.match(text, /ada/);
    assert.match(text, /Ended: Full consensus/);
    const stances = (await closed.textContent('[data-testid="stances"]')) ?? '';
    assert.match(stances, /DISAGREE/, 'the stance matrix shows grace’s first-round DISAGREE');
    assert.match(stances, /AGREE/);
    assert.match((await closed.textContent('[data-testid="budget"]')) ?? '', /\d+ \/ 15,000 tokens/);
    assert.match((await closed.textContent('[data-testid="round"]')) ?? '', /Round 3 of 10/);
    shownBefore = await closed.$$eval('[data-testid="messages"] .message', (els) =>
      els.map((e) => e.getAttribute('data-message-id')),
    );
    // The digest review has opened beside the room: shot once it shows, not while VS Code loads its page.
    await until('the digest review panel', () => frameWith(page, '[data-testid="accept"]'), 60_000);
    await page.screenshot({ path: path.join(SHOTS, 'room-closed.png') });
  });

  it('opens the digest review, and Accept writes minutes and a decision record, staged in git', async () => {
    const review = await until('the digest review panel', () => frameWith(page, '[data-testid="accept"]'), 60_000);
    await review.click('#edit-toggle');
    const digest = await review.inputValue('#digest-text');
    // The digest is reviewed as Markdown sections (rendered; Edit shows the Markdown).
    for (const section of [
      '## Outcome',
      '## Dissent',
      '## Contributions',
      '## Standing',
      '## Was the debate worth it?',
    ])
      assert.ok(digest.includes(section), section);
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
      'status: "accepted"',
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

  it('shows exactly the same room after a window reload: nothing lost, nothing doubled', async () => {
    await page.reload();
    await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
    await until(
      'the room to come back',
      async () => {
        await palette(page, 'Roundtable: Show Room');
        return frameWith(page, '[data-testid="messages"] .message');
      },
      90_000,
    );
    const room = await until(
      'the full log in the room',
      async () => {
        const f = await frameWith(page, '[data-testid="closed"]');
        return f && (await f.$('[data-testid="decision"]')) ? f : undefined;
      },
      60_000,
    );
    const shown = await room.$$eval('[data-testid="messages"] .message', (els) =>
      els.map((e) => e.getAttribute('data-message-id')),
    );
    assert.deepEqual(shown, shownBefore);
    assert.equal(new Set(shown).size, shown.length, 'no message shown twice');
    assert.match((await room.textContent('[data-testid="decision"]')) ?? '', /accepted/);
  });
});
