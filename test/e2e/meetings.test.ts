/**
 * Meetings, plural, in a real VS Code (code-server with the packaged .vsix), as a person sees
 * them: the welcome view with its Start button, two meetings running at once that both get a
 * review and minutes, Run Another Round leading back to Accept, and a failed meeting that offers
 * Retry and Discard but never Accept. Screenshots of the Meetings view and the welcome view, in
 * light and dark themes, go to test/.tmp/e2e-screenshots/.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Frame, Locator, Page } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';
import {
  CODE_SERVER,
  ROOT,
  VSIX,
  frameWith,
  palette,
  setTheme,
  startMeeting,
  startVsCode,
  until,
  waitForRoundtableCommands,
  type RunningVsCode,
} from './codeServer';
import { meetingsView, type MeetingsView } from './meetingsView';

const SHOTS = path.join(ROOT, 'test', '.tmp', 'e2e-screenshots');
const TOPIC_A = 'Should we split the billing service out of the monolith?';
const TOPIC_B = 'Should we adopt trunk-based development?';
const TOPIC_FAIL = 'Should we move to a managed Postgres?';

describe('Meetings in a real VS Code (code-server)', () => {
  let vs: RunningVsCode;
  let page: Page;
  let workspace: string;
  let models: FakeOpenAI;
  let failing = false;

  before(async () => {
    // Workers answer slowly from a real OpenAI-compatible server on loopback, so two meetings
    // overlap; closing that server later makes a meeting fail as with an unreachable server.
    models = await startFakeOpenAI(() =>
      failing
        ? { status: 500 }
        : { text: 'Yes: the evidence in the repository supports it.\n[STANCE: AGREE]', delayMs: 20_000 },
    );
    assert.ok(existsSync(CODE_SERVER), 'code-server is installed by test/e2e/setup.sh');
    assert.ok(existsSync(VSIX), 'the extension is packaged by `npm run package`');
    vs = await startVsCode({
      install: 'vsix',
      settings: {
        'workbench.colorTheme': 'Default Dark Modern',
        'roundtable.providerBaseUrl': models.baseURL,
        'roundtable.participants': [
          { name: 'sam', role: 'assistant', provider: 'scripted', model: 'scripted' },
          { name: 'ada', role: 'worker', provider: 'openai', model: 'fake-model' },
          { name: 'grace', role: 'worker', provider: 'openai', model: 'fake-model' },
        ],
      },
    });
    page = vs.page;
    workspace = vs.workspace;
    await mkdir(SHOTS, { recursive: true });
  });

  let step = 0;
  afterEach(async () => {
    // What the screen showed when each test ended: the first thing to look at when one fails.
    await page?.screenshot({ path: path.join(SHOTS, `meetings-end-of-test-${++step}.png`) }).catch(() => undefined);
  });

  after(async () => {
    if (vs) await writeFile(path.join(SHOTS, 'meetings-code-server.log'), vs.log()).catch(() => undefined);
    await vs?.stop();
    await models?.close().catch(() => undefined);
    console.log(`e2e screenshots: ${SHOTS}`);
  });

  const start = (topic: string) => startMeeting(page, { topic, mode: 'Roundtable' });

  const view = (): MeetingsView => meetingsView(page);
  const meetingsPane = (): Locator => view().pane();
  const row = (topic: string): Locator => view().row(topic);

  async function rowText(topic: string): Promise<string> {
    return (await row(topic).first().textContent()) ?? '';
  }

  async function shoot(name: string): Promise<void> {
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
    const sidebar = page.locator('.part.sidebar');
    if ((await sidebar.count()) > 0) await sidebar.screenshot({ path: path.join(SHOTS, `${name}-sidebar.png`) });
  }

  const expandGroups = (): Promise<void> => view().expandGroups();

  function untracked(): string[] {
    return execFileSync('git', ['status', '--porcelain'], { cwd: workspace })
      .toString()
      .split('\n')
      .filter((l) => l.startsWith('??'));
  }

  /** The review panel's frame once it offers Accept. */
  function reviewWithAccept(): Promise<Frame> {
    return until('the review to offer Accept', () => frameWith(page, '[data-testid="accept"]'), 180_000);
  }

  async function acceptReview(review: Frame): Promise<void> {
    await review.click('[data-testid="accept"]');
    await until('the review to record the decision', async () => !(await review.$('[data-testid="accept"]')), 60_000);
  }

  it('shows a welcome with a Start button while there is no meeting (light and dark)', async () => {
    await waitForRoundtableCommands(page);
    // Commands whose meeting is missing are not offered (when clauses).
    await page.keyboard.press('Control+Shift+P');
    await page.waitForSelector('.quick-input-widget input', { timeout: 5_000 });
    await page.keyboard.type('Roundtable: ');
    const offered = await until('the palette to list Roundtable commands', async () => {
      const rows = await page.locator('.quick-input-list .monaco-list-row').allTextContents();
      return rows.some((r) => r.includes('Start Roundtable')) ? rows : undefined;
    });
    for (const hidden of ['Cut Meeting', 'Review Digest', 'Post to Room', 'Retry Meeting'])
      assert.ok(!offered.some((r) => r.includes(hidden)), `no ${hidden} without a meeting`);
    await page.keyboard.press('Escape');

    await palette(page, 'Roundtable: Focus on Meetings View');
    const welcome = meetingsPane().locator('.welcome-view-content');
    await welcome.waitFor({ timeout: 30_000 });
    assert.match((await welcome.textContent()) ?? '', /No meetings yet/);
    assert.equal(await welcome.locator('.monaco-button', { hasText: 'Start Roundtable' }).count(), 1);
    await setTheme(page, 'light');
    await shoot('meetings-welcome-light');
    await setTheme(page, 'dark');
    await shoot('meetings-welcome-dark');
  });

  it('runs two meetings at once, and both get a review and minutes; Another Round leads back to Accept', async () => {
    const untrackedBefore = untracked();
    await start(TOPIC_A);
    await until('the first meeting in the Meetings view', async () => (await row(TOPIC_A).count()) > 0, 60_000);
    await start(TOPIC_B);
    await until('the second meeting in the Meetings view', async () => (await row(TOPIC_B).count()) > 0, 60_000);
    await palette(page, 'Roundtable: Focus on Meetings View');
    await until(
      'both meetings running at once',
      async () => /Round \d+ of/.test(await rowText(TOPIC_A)) && /Round \d+ of/.test(await rowText(TOPIC_B)),
      60_000,
    );
    await shoot('meetings-two-running-dark');

    // The room shows the second; its review opens by itself when it closes.
    let review = await reviewWithAccept();
    assert.equal(await review.textContent('.review > h2'), `Review: ${TOPIC_B}`);
    // The first, not on screen, waits in the Meetings view for its review.
    await until('the first meeting to await its review', async () => /review/.test(await rowText(TOPIC_A)), 180_000);
    await shoot('meetings-awaiting-dark');
    await setTheme(page, 'light');
    await shoot('meetings-awaiting-light');
    await setTheme(page, 'dark');

    // Another round: the review shows the meeting running again, then offers Accept on a new digest.
    const firstDigest = await review.inputValue('#digest-text');
    await review.fill('#instruction', 'Weigh the cost of the release train.');
    await review.click('#another');
    await until(
      'the review to leave Accept while the round runs',
      async () => !(await frameWith(page, '[data-testid="accept"]')),
      60_000,
    );
    review = await reviewWithAccept();
    assert.notEqual(await review.inputValue('#digest-text'), firstDigest, 'a new digest is offered');
    await acceptReview(review);

    // The first meeting's review, from the Meetings view. The row is clicked once the view has
    // moved the second to Closed: a row clicked while the list reorders may be another one.
    await until('the second meeting accepted in the Meetings view', async () => {
      await expandGroups();
      return /accepted/.test(await rowText(TOPIC_B));
    });
    // Its context menu offers to open it and to review it.
    await row(TOPIC_A).first().click({ button: 'right' });
    const menu = page.locator('.monaco-menu .action-item');
    await until(
      '"Open Meeting in Room" in the context menu',
      async () => (await menu.filter({ hasText: 'Open Meeting in Room' }).count()) > 0,
      15_000,
    );
    assert.ok((await menu.filter({ hasText: 'Review Digest' }).count()) > 0, 'Review Digest in the context menu');
    await page.keyboard.press('Escape');
    // A left click on the row shows the meeting in the room; Review Digest then reviews it.
    await row(TOPIC_A).first().click();
    await until(
      'the room to show the first meeting',
      async () => ((await (await frameWith(page, '.room'))?.textContent('.room')) ?? '').includes(TOPIC_A),
      30_000,
    );
    await palette(page, 'Roundtable: Review Digest');
    review = await reviewWithAccept();
    assert.equal(await review.textContent('.review > h2'), `Review: ${TOPIC_A}`);
    await acceptReview(review);

    const minutesDir = path.join(workspace, 'docs', 'roundtable');
    const decisionsDir = path.join(workspace, 'docs', 'decisions');
    const minutes = await until(
      'minutes of both meetings',
      async () => {
        const files = (await readdir(minutesDir).catch(() => [])).filter((f) => f.endsWith('.md'));
        return files.length === 2 ? files : undefined;
      },
      60_000,
    );
    assert.ok(minutes.some((f) => f.includes('split-the-billing')));
    assert.ok(minutes.some((f) => f.includes('trunk-based')));
    const records = await until(
      'two decision records',
      async () => {
        const files = (await readdir(decisionsDir).catch(() => [])).filter((f) => /^\d{4}-.*\.md$/.test(f));
        return files.length === 2 ? files : undefined;
      },
      60_000,
    );
    for (const f of minutes) assert.match(await readFile(path.join(minutesDir, f), 'utf8'), /## Decision/);
    // The wait checks exactly what the assertions after it check: each file staged on its own line
    // (not merely some `A  docs/` line beside an untracked one) and no untracked file left.
    const expected = [
      ...minutes.map((f) => `A  docs/roundtable/${f}`),
      ...records.map((f) => `A  docs/decisions/${f}`),
    ];
    const staged = (): string[] =>
      execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: workspace })
        .toString()
        .split('\n')
        .filter((l) => expected.includes(l));
    await until(
      'both accepts staged and nothing left untracked',
      () => staged().length === expected.length && JSON.stringify(untracked()) === JSON.stringify(untrackedBefore),
      30_000,
    );
    assert.deepEqual(staged().sort(), [...expected].sort(), "both meetings' minutes and records are staged");
    assert.deepEqual(untracked(), untrackedBefore, 'the meetings left no untracked file');
    await expandGroups();
    await until(
      'both accepted in the Meetings view',
      async () => /accepted/.test(await rowText(TOPIC_A)) && /accepted/.test(await rowText(TOPIC_B)),
    );
    await shoot('meetings-closed-dark');

    // The room also opens in an editor tab, for a wide view: the same room, beside the sidebar's.
    await palette(page, 'Roundtable: Open Room in Editor');
    await until(
      'the room in an editor tab as well as in the sidebar',
      async () => {
        let rooms = 0;
        for (const f of page.frames()) if (await f.$('[data-testid="messages"] .message').catch(() => null)) rooms++;
        return rooms >= 2;
      },
      60_000,
    );
    assert.equal(await page.locator('.tab', { hasText: /^Room: / }).count(), 1, 'one editor tab for the room');
  });

  it('shows a failed meeting as failed and offers Retry and Discard, never Accept', async () => {
    // The models' server turns bad after the preflight saw it well: every call is refused with a 500.
    failing = true;
    const before = execFileSync('git', ['status', '--porcelain'], { cwd: workspace }).toString();
    await start(TOPIC_FAIL);
    const toast = page.locator('.notification-toast', { hasText: /failed/ });
    await toast.first().waitFor({ timeout: 180_000 });
    assert.match((await toast.first().textContent()) ?? '', /Should we move to a managed Postgres\?.*failed/);
    const buttons = await toast.first().locator('.monaco-button').allTextContents();
    assert.ok(
      buttons.includes('Retry') && buttons.includes('Discard'),
      `Retry and Discard offered: ${buttons.join(', ')}`,
    );
    assert.ok(!buttons.includes('Accept'));
    await until('the failed meeting in the Meetings view', async () => /Failed/.test(await rowText(TOPIC_FAIL)));
    assert.equal(await frameWith(page, '[data-testid="accept"]'), undefined, 'no review offers Accept');
    const room = await until('the room showing the failed meeting', async () => {
      const f = await frameWith(page, '[data-testid="closed"]');
      return f && /managed Postgres/.test((await f.textContent('.room')) ?? '') ? f : undefined;
    });
    assert.equal((await room.$$('.message.streaming')).length, 0, 'no entry is left "writing…" after a failure');
    await shoot('meetings-failed-dark');
    await setTheme(page, 'light');
    await shoot('meetings-failed-light');
    await setTheme(page, 'dark');

    // Retry starts the same meeting again in its place: still one entry for the topic.
    await toast.first().locator('.monaco-button', { hasText: 'Retry' }).click();
    await until(
      'the retry to fail again',
      async () => (await page.locator('.notification-toast', { hasText: /failed/ }).count()) > 0,
      180_000,
    );
    await until(
      'the retried meeting alone in the view, failed again',
      async () => (await row(TOPIC_FAIL).count()) === 1 && /Failed/.test(await rowText(TOPIC_FAIL)),
      180_000,
    );
    await page.locator('.notification-toast .monaco-button', { hasText: 'Discard' }).first().click();
    await until('the failed meeting discarded', async () => (await row(TOPIC_FAIL).count()) === 0);
    assert.equal(
      execFileSync('git', ['status', '--porcelain'], { cwd: workspace }).toString(),
      before,
      'a failed meeting writes nothing into the workspace',
    );
  });
});
