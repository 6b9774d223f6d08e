/**
 * "Roundtable: Review Changes" in a real VS Code (code-server with the packaged .vsix, driven in
 * Chromium), as a person uses it: a repository whose accepted decision record says Postgres for
 * every service, and an uncommitted change that adds a MySQL pool. The review is started from the
 * Source Control view's title bar; the room shows the findings as they are voted on; when it
 * closes the Problems panel lists the PROVEN finding as an error and the CONTESTED one a step
 * lower (a refuted one not at all), each with its vote; the quick fix opens the decision record;
 * "Clear Review Findings" empties the list. While the reviewers vote, the status bar and the room
 * count the review's own rounds, the vote then its challenge rounds ("Challenge, round 3 of 3",
 * never "round 3 of 2" from the roundtable's maxRounds): the fake server holds the ballots of
 * rounds 1 and 3 until the test has read them. The Review Digest that opens above the Problems
 * panel shows the findings with their verdicts (not a blank page, not "Loading the meeting…"),
 * says what the review came to, and offers nothing to accept: a review is not a decision. The
 * Meetings view lists it under Closed with its outcome, never under "Awaiting you".
 * Screenshots (light, dark, high contrast, a 250 px sidebar):
 * test/.tmp/e2e-screenshots/review-changes-*.png.
 * The reviewers answer through a real OpenAI-compatible server on 127.0.0.1 (test/fakes/openaiServer.ts),
 * as test/fakes/reviewers.ts scripts them.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';
import { AFTER, BEFORE, PROVEN_CLAIM, RECORD, ballotRound, reviewers } from '../fakes/reviewRoom';
import { meetingsView } from './meetingsView';
import {
  CODE_SERVER,
  ROOT,
  VSIX,
  frameShowing,
  frameWith,
  palette,
  pressOn,
  resizeSidebar,
  retrying,
  setTheme,
  startVsCode,
  until,
  waitForPick,
  waitForRoundtableCommands,
  type RunningVsCode,
} from './codeServer';

const SHOTS = path.join(ROOT, 'test', '.tmp', 'e2e-screenshots');

/** The Problems panel's rows as a person reads them. */
async function problems(page: Page): Promise<string[]> {
  return page.locator('.markers-panel .monaco-list-row').allInnerTexts();
}

/** Waits until Roundtable's status bar item says `text` (from its start), and returns what it says. */
async function statusBarSays(page: Page, text: string): Promise<string> {
  let shown = '';
  return until(`the status bar to say "${text}"`, async () => {
    shown = (await page.locator('.statusbar-item', { hasText: 'Roundtable:' }).allInnerTexts()).join(' | ').trim();
    return shown.startsWith(`Roundtable: ${text}`) && shown;
  }).catch((e: Error) => {
    throw new Error(`${e.message} (it says: ${JSON.stringify(shown)})`);
  });
}

/** A promise the test settles: the reviewers' ballots of a round wait on it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

describe('Review Changes in a real VS Code (code-server)', () => {
  let vs: RunningVsCode;
  let page: Page;
  let fake: FakeOpenAI;
  // The ballots of the first vote and of the last challenge round wait until the test has read the count.
  const held = new Map([
    [1, gate()],
    [3, gate()],
  ]);

  before(async () => {
    assert.ok(existsSync(CODE_SERVER), 'code-server is installed by test/e2e/setup.sh');
    assert.ok(existsSync(VSIX), 'the extension is packaged by `npm run package`');
    fake = await startFakeOpenAI(
      async (body) => {
        await held.get(ballotRound(body) ?? 0)?.opened;
        return reviewers(body);
      },
      { models: ['chair-model', 'model-a', 'model-b', 'model-c'] },
    );
    vs = await startVsCode({
      install: 'vsix',
      settings: {
        'workbench.colorTheme': 'Default Light Modern',
        'roundtable.providerBaseUrl': fake.baseURL,
        'roundtable.maxRounds': 2,
        'roundtable.participants': [
          { name: 'chair', role: 'assistant', provider: 'openai', model: 'chair-model' },
          { name: 'ada', role: 'worker', provider: 'openai', model: 'model-a' },
          { name: 'grace', role: 'worker', provider: 'openai', model: 'model-b' },
          { name: 'linus', role: 'worker', provider: 'openai', model: 'model-c' },
        ],
      },
      // The repository: the record and the Postgres pool committed, the MySQL pool not yet.
      beforeStart: async ({ workspace }) => {
        await mkdir(path.join(workspace, 'docs', 'decisions'), { recursive: true });
        await mkdir(path.join(workspace, 'src'), { recursive: true });
        await writeFile(path.join(workspace, 'docs', 'decisions', '0001-use-postgres.md'), RECORD);
        await writeFile(path.join(workspace, 'src', 'db.ts'), BEFORE);
        const git = (...args: string[]) =>
          execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: workspace });
        git('add', '.');
        git('commit', '-q', '-m', 'Postgres pool and the decision record');
        await writeFile(path.join(workspace, 'src', 'db.ts'), AFTER);
      },
    });
    page = vs.page;
    await mkdir(SHOTS, { recursive: true });
  });

  after(async () => {
    for (const g of held.values()) g.open();
    await vs?.stop();
    await fake?.close();
    console.log(`e2e screenshots: ${SHOTS}`);
  });

  /** The Review Digest once it shows the findings with their verdicts (PROVEN, CONTESTED, REFUTED). */
  async function reviewDigest() {
    const digest = await frameShowing(
      vs,
      'the Review Digest with the findings',
      '[data-testid="verdicts"]',
      (t) =>
        t.includes(PROVEN_CLAIM) &&
        /O1: PROVEN/.test(t) &&
        /O2: CONTESTED/.test(t) &&
        /O3: REFUTED before the vote/.test(t),
      60_000,
    );
    await digest.$eval('[data-testid="verdicts"]', (e) => e.scrollIntoView({ block: 'center' }));
    return digest;
  }

  it('runs from the Source Control title bar and shows the findings in the room as they are voted on', async () => {
    await waitForRoundtableCommands(page);
    // The activity bar's Source Control icon, as a person opens the view.
    await page.locator('.activitybar .action-label[aria-label^="Source Control"]').first().click();
    const label = '.action-label[aria-label="Review Changes"]';
    const button = page.locator(`.part.sidebar ${label}`);
    // A view's title actions show while the pointer is over its header, as for a person.
    await page
      .locator('.part.sidebar .pane-header, .part.sidebar .composite.title')
      .filter({ has: page.locator(label) })
      .first()
      .hover({ timeout: 30_000 });
    await button.waitFor({ timeout: 30_000 });
    await page.locator('.part.sidebar .monaco-list-row', { hasText: 'db.ts' }).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(SHOTS, 'review-changes-scm-light.png') });
    await button.click();
    await waitForPick(page, 'Uncommitted changes');
    await page.screenshot({ path: path.join(SHOTS, 'review-changes-pick-light.png') });
    await pressOn(page, 'Uncommitted changes');

    // The ballots are let go whatever the assertions say: a wrong count fails this step, not the review.
    try {
      // The first vote: a review's rounds are its vote and two challenge rounds, whatever maxRounds (2) says.
      assert.match(await statusBarSays(page, 'Vote, round 1 of 3'), /^Roundtable: Vote, round 1 of 3 · /);
    } finally {
      held.get(1)?.open();
    }
    try {
      // The last challenge round (the contested finding keeps the review going), in the status bar and the room.
      assert.match(await statusBarSays(page, 'Challenge, round 3 of 3'), /^Roundtable: Challenge, round 3 of 3 · /);
      const voting = await frameShowing(vs, 'the room in round 3', '[data-testid="round"]', (t) => /round 3/.test(t));
      assert.equal((await voting.textContent('[data-testid="round"]'))?.trim(), 'Challenge, round 3 of 3');
      await voting.$eval('[data-testid="round"]', (e) => e.scrollIntoView({ block: 'center' }));
      await page.screenshot({ path: path.join(SHOTS, 'review-changes-voting-light.png') });
    } finally {
      held.get(3)?.open();
    }

    const room = await until(
      'the room with the review closed',
      async () => {
        const f = await frameWith(page, '[data-testid="ballots"] [data-testid="verdict"]');
        return f && /O1: PROVEN/.test((await f.textContent('[data-testid="verdict"]')) ?? '') ? f : undefined;
      },
      240_000,
    ).catch(async (e: Error) => {
      await page.screenshot({ path: path.join(SHOTS, 'review-changes-failed.png') });
      const toasts = await page.locator('.notifications-toasts').allInnerTexts();
      throw new Error(`${e.message} (notifications: ${toasts.join(' | ')}; requests: ${fake.requests.length})`);
    });
    const options = await room.$$eval('[data-testid="ballots"] .options li', (els) => els.map((e) => e.textContent));
    assert.ok(
      options.some((o) => o?.includes('[blocking] src/db.ts:6-7 — breaks 0001: Adds a MySQL pool')),
      `the finding on 0001, merged from ada and grace, by its file and lines: ${options.join(' | ')}`,
    );
    assert.ok(
      options.some((o) => o?.includes('<img src=x onerror=alert(1)>')),
      'model markup is shown as text',
    );
    assert.equal(await room.$('[data-testid="ballots"] img'), null, 'no element from model text');
    assert.ok(
      options.some((o) =>
        /breaks 0099: .*refuted before the vote: cites 0099, which is not in the rulebook/.test(o ?? ''),
      ),
      'the finding citing a missing record says why it was refuted',
    );
    await room.$eval('[data-testid="ballots"]', (e) => e.scrollIntoView());
    // The Review Digest beside it has opened: shot once it shows the findings, not while VS Code loads its page.
    await reviewDigest();
    await page.screenshot({ path: path.join(SHOTS, 'review-changes-room-light.png') });
  });

  it('lists the PROVEN finding as an error and the CONTESTED one a step lower in the Problems panel', async () => {
    await palette(page, 'View: Focus Problems (Errors, Warnings, Infos)', 'Focus Problems');
    const rows = await until(
      'both findings in the Problems panel',
      async () => {
        const r = await problems(page);
        return r.some((x) => x.includes('PROVEN 2–0')) && r.some((x) => x.includes('CONTESTED')) ? r : undefined;
      },
      60_000,
    );
    const proven = rows.find((r) => r.includes(PROVEN_CLAIM)) ?? '';
    // Proposed by ada and grace, two of three: proven whatever linus says, so linus is not asked.
    assert.match(proven, /\(PROVEN 2–0\)/);
    assert.match(proven, /Roundtable/);
    assert.match(proven, /0001/);
    const contested = rows.find((r) => r.includes('Contested: ')) ?? '';
    assert.match(contested, /Imports mysql2 <img src=x onerror=alert\(1\)> next to pg⟨U\+202E⟩ so the bundle/);
    assert.match(contested, /\(CONTESTED 1–2\)/);
    assert.ok(
      !rows.some((r) => r.includes('connection-limits')),
      'the finding citing a missing decision is not listed',
    );
    const icons: string[] = await page.$$eval('.markers-panel .monaco-list-row .marker-icon', (els) =>
      els.map((e) => String((e as { className?: unknown }).className)),
    );
    assert.ok(
      icons.some((c) => /\berror\b/.test(c)),
      `an error icon: ${icons.join(' | ')}`,
    );
    assert.ok(
      icons.some((c) => /\b(warning|info)\b/.test(c)),
      `the contested one lower: ${icons.join(' | ')}`,
    );
    // The Review Digest opened above the panel as the review closed: its findings, never a blank page.
    const digest = await reviewDigest();
    assert.equal((await digest.textContent('h2'))?.trim(), 'Review: Review of the uncommitted changes');
    assert.doesNotMatch((await digest.textContent('#digest')) ?? '', /Loading the meeting/);
    await page.screenshot({ path: path.join(SHOTS, 'review-changes-problems-light.png') });
  });

  it('reads the finished review as finished: what it came to, nothing to accept, and Closed in the Meetings view', async () => {
    const digest = await reviewDigest();
    assert.match(
      ((await digest.textContent('[data-testid="outcome"]')) ?? '').trim(),
      /^Review finished: 3 findings: 1 PROVEN \(O1\), 1 CONTESTED \(O2\), 1 REFUTED .* its upheld findings are in the Problems panel\.$/,
    );
    for (const id of ['#accept', '#reject', '#another', '#edit-toggle', '#instruction', '#retry'])
      assert.equal(await digest.$(id), null, `the Review Digest offers no ${id}`);
    await digest.$eval('[data-testid="outcome"]', (e) => e.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: path.join(SHOTS, 'review-changes-finished-light.png') });

    await palette(page, 'Roundtable: Focus on Meetings View');
    const view = meetingsView(page);
    await view.expandGroups();
    const row = view.row('Review of the uncommitted changes').first();
    const text = await until('the review in the Meetings view with its outcome', async () => {
      const t = (await row.textContent().catch(() => '')) ?? '';
      return /Review · 1 proven, 1 contested/.test(t) && t;
    });
    assert.doesNotMatch(text, /· review\b/, 'not waiting for a review of its digest');
    const groups = await view.pane().locator('.monaco-list-row[aria-level="1"]').allTextContents();
    assert.ok(!groups.some((g) => /Awaiting you/.test(g)), `no meeting awaits the person: ${groups.join(' | ')}`);
    assert.ok(
      groups.some((g) => /Closed/.test(g)),
      `the review is under Closed: ${groups.join(' | ')}`,
    );
    await page.locator('.part.sidebar').screenshot({ path: path.join(SHOTS, 'review-changes-meetings-light.png') });
  });

  it('the quick fix opens the decision record', async () => {
    await page.locator('.markers-panel .monaco-list-row', { hasText: PROVEN_CLAIM }).first().click();
    await until(
      'src/db.ts in the editor',
      async () => (await page.locator('.tab.active', { hasText: 'db.ts' }).count()) > 0,
    );
    // The cursor on the finding's line, in the editor, as a person puts it there before Ctrl+.
    await page.locator('.monaco-editor .view-line', { hasText: 'billingPool' }).first().click();
    const row = '.action-widget .monaco-list-row[aria-label="Open decision record 0001"]';
    // While the language server starts, the menu can come up empty ("No code actions available"):
    // a person presses Ctrl+. again.
    await retrying(
      3,
      async () => {
        await page.keyboard.press('Control+.');
        await until('the quick fix in the menu', async () => (await page.locator(row).count()) > 0, 10_000);
      },
      async () => {
        await page.screenshot({ path: path.join(SHOTS, 'review-changes-quickfix-retried.png') });
        await page.keyboard.press('Escape');
      },
    );
    // Enter applies the focused fix ("Enter to Apply"): the arrows move to ours, as a person does.
    for (let i = 0; i < 10 && (await page.locator(`${row}.focused`).count()) === 0; i++)
      await page.keyboard.press('ArrowDown');
    await page.screenshot({ path: path.join(SHOTS, 'review-changes-quickfix-light.png') });
    await page.keyboard.press('Enter');
    await until(
      'the record in the editor',
      async () => (await page.locator('.tab.active', { hasText: '0001-use-postgres.md' }).count()) > 0,
    );
  });

  it('reads well in dark and high-contrast themes and in a narrow sidebar', async () => {
    for (const kind of ['dark', 'hc'] as const) {
      await setTheme(page, kind);
      await page.screenshot({ path: path.join(SHOTS, `review-changes-problems-${kind}.png`) });
    }
    // The Review Digest's tab, brought back in front of the record the quick fix opened.
    await page.locator('.tabs-container .tab', { hasText: 'Review Digest' }).first().click();
    await reviewDigest();
    for (const kind of ['light', 'dark', 'hc'] as const) {
      await setTheme(page, kind);
      await page.screenshot({ path: path.join(SHOTS, `review-changes-digest-${kind}.png`) });
    }
    await palette(page, 'Roundtable: Show Room');
    const room = await until('the room', () => frameWith(page, '[data-testid="ballots"]'));
    await room.$eval('[data-testid="ballots"]', (e) => e.scrollIntoView());
    for (const kind of ['dark', 'hc'] as const) {
      await setTheme(page, kind);
      await page.screenshot({ path: path.join(SHOTS, `review-changes-room-${kind}.png`) });
    }
    await setTheme(page, 'light');
    const width = await resizeSidebar(page, 250);
    await room.$eval('[data-testid="ballots"]', (e) => e.scrollIntoView());
    assert.ok(width <= 260, `the sidebar is narrow (${width}px)`);
    await page.screenshot({ path: path.join(SHOTS, 'review-changes-room-narrow.png') });
    // The finished review in the Meetings view of a narrow sidebar: what it came to comes first.
    await palette(page, 'Roundtable: Focus on Meetings View');
    await meetingsView(page).expandGroups();
    await page.locator('.part.sidebar').screenshot({ path: path.join(SHOTS, 'review-changes-meetings-narrow.png') });
    for (const kind of ['dark', 'hc'] as const) {
      await setTheme(page, kind);
      await page.screenshot({ path: path.join(SHOTS, `review-changes-meetings-narrow-${kind}.png`) });
    }
    await setTheme(page, 'light');
  });

  it('Clear Review Findings empties the Problems panel', async () => {
    await palette(page, 'Roundtable: Clear Review Findings');
    await palette(page, 'View: Focus Problems (Errors, Warnings, Infos)', 'Focus Problems');
    await until('no Roundtable finding in the Problems panel', async () =>
      (await problems(page)).every((r) => !r.includes('Roundtable')),
    );
    assert.deepEqual(
      (await problems(page)).filter((r) => r.includes('Roundtable')),
      [],
    );
  });
});
