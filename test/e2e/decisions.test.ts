/**
 * Decisions a team can find, in a real VS Code (code-server with the packaged .vsix, driven in
 * Chromium): the Decisions view lists the workspace's seeded records grouped by status (in force
 * first, the rest collapsed) with id · date and the scope in each row; "Decisions Governing This
 * File" from the explorer lists the records whose scope covers the file. A meeting on a folder
 * proposes that folder as the record's scope in the review; the person edits it (a glob outside
 * the workspace is refused in one line), accepts, and the new record shows in the view with the
 * scope as written. Screenshots in light, dark and high-contrast, and in a narrow sidebar.
 * The panel answers through a real OpenAI-compatible server on 127.0.0.1 (test/fakes/openaiServer.ts).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Frame, Locator, Page } from 'playwright-core';
import { startFakeOpenAI, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';
import {
  CODE_SERVER,
  ROOT,
  VSIX,
  frameWith,
  palette,
  resizeSidebar,
  setTheme,
  startMeeting,
  startVsCode,
  until,
  waitForPick,
  waitForRoundtableCommands,
  pickRows,
  type RunningVsCode,
} from './codeServer';

const SHOTS = path.join(ROOT, 'test', '.tmp', 'e2e-screenshots');
const TOPIC = 'Should every service keep its connection pool in src/db?';
const DIGEST = [
  'CONSENSUS_STATEMENT: Every service keeps one connection pool, in src/db, behind the repository layer.',
  'CONTRIBUTORS: ada argued for one pool per service; grace asked for the pool size in config.',
  'DISSENT: none.',
].join('\n');

const RECORDS: Record<string, string> = {
  'docs/decisions/0001-use-mysql.md':
    '---\nstatus: accepted\ndate: 2024-01-10\n---\n# Use MySQL for orders\n\nOrders live in MySQL.\n',
  'docs/decisions/0002-use-postgres.md':
    '---\nstatus: accepted\ndate: 2025-03-02\nsupersedes: 0001-use-mysql.md\nscope:\n  - "src/db/**"\n  - migrations\n---\n# Postgres for every service\n\nAll services use Postgres.\n',
  'docs/decisions/0003-graphql.md':
    '# 3. Use GraphQL for the public API\n\n## Status\n\nRejected\n\n## Context\n\nREST is enough.\n',
  // A title that would draw an icon in a quick pick (`$(…)`) if it were not escaped: shown as written.
  'docs/decisions/0005-pool-secrets.md':
    '---\nstatus: accepted\ndate: 2025-06-01\nscope: ["src/db/*.ts"]\n---\n# $(warning) Pool credentials come from the vault\n',
  'src/db/pool.ts': 'export const pool = { size: 10 };\n',
  'src/api/users.ts': 'export const users = [];\n',
};

const all = (b: ChatBody) => (b.messages ?? []).map((m) => m.content).join('\n');

/**
 * The hover of `target` holding `text`. A hover can be dismissed before it shows (a tree refresh,
 * a notification, the mouse settling elsewhere on a loaded machine), so each look that finds none
 * moves away and hovers again, as a person would; the wait checks exactly what is asserted on.
 */
async function hoverOf(page: Page, target: Locator, text: string, what: string): Promise<string> {
  const hover = page.locator('.monaco-hover, .workbench-hover').filter({ hasText: text });
  let hoveredAt = 0;
  return until(
    what,
    async () => {
      if ((await hover.count()) > 0) return (await hover.first().textContent()) ?? '';
      // The workbench shows a hover after a delay of its own: hover again only after giving it time.
      if (Date.now() - hoveredAt > 4_000) {
        await page.mouse.move(0, 0);
        await target.hover();
        hoveredAt = Date.now();
      }
      return undefined;
    },
    60_000,
  );
}

describe('Decisions a team can find, in a real VS Code (code-server)', () => {
  let vs: RunningVsCode;
  let page: Page;
  let fake: FakeOpenAI;

  before(async () => {
    assert.ok(existsSync(CODE_SERVER), 'code-server is installed by test/e2e/setup.sh');
    assert.ok(existsSync(VSIX), 'the extension is packaged by `npm run package`');
    fake = await startFakeOpenAI(
      (body) => {
        if (body.model === 'chair-model' && all(body).includes('CONSENSUS_STATEMENT')) return { text: DIGEST };
        if (body.model === 'chair-model') return { text: 'Welcome. Decide where the pool lives; say where you stand.' };
        return { text: 'One pool per service, in src/db. [STANCE: AGREE]' };
      },
      { models: ['chair-model', 'model-a', 'model-b'] },
    );
    vs = await startVsCode({
      install: 'vsix',
      settings: {
        'workbench.colorTheme': 'Default Light Modern',
        'roundtable.providerBaseUrl': fake.baseURL,
        'roundtable.maxRounds': 1,
        'roundtable.participants': [
          { name: 'chair', role: 'assistant', provider: 'openai', model: 'chair-model' },
          { name: 'ada', role: 'worker', provider: 'openai', model: 'model-a' },
          { name: 'grace', role: 'worker', provider: 'openai', model: 'model-b' },
        ],
      },
      beforeStart: async ({ workspace }) => {
        for (const [rel, text] of Object.entries(RECORDS)) {
          await mkdir(path.dirname(path.join(workspace, rel)), { recursive: true });
          await writeFile(path.join(workspace, rel), text);
        }
      },
    });
    page = vs.page;
    await mkdir(SHOTS, { recursive: true });
  });

  let step = 0;
  afterEach(async () => {
    await page?.screenshot({ path: path.join(SHOTS, `decisions-end-of-test-${++step}.png`) }).catch(() => undefined);
  });

  after(async () => {
    if (vs) await writeFile(path.join(SHOTS, 'decisions-code-server.log'), vs.log()).catch(() => undefined);
    await vs?.stop();
    await fake?.close().catch(() => undefined);
    console.log(`e2e screenshots: ${SHOTS}`);
  });

  const pane = (): Locator =>
    page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^\s*Decisions/ }) });
  const row = (text: string): Locator => pane().locator('.monaco-list-row', { hasText: text });
  /** A row as a screen reader reads it (label, status, id · date, scope). */
  const ariaOf = async (text: string): Promise<string> => (await row(text).first().getAttribute('aria-label')) ?? '';

  /**
   * Clicks a context-menu entry until the menu closes: a click landing while the menu still
   * settles only highlights the entry (seen under load), and a person would click again.
   */
  async function menuEntry(text: string): Promise<void> {
    const entry = page.locator('.monaco-menu .action-item', { hasText: text });
    await until(`"${text}" in the context menu`, async () => (await entry.count()) > 0, 15_000);
    await until(
      `the menu to run "${text}"`,
      async () => {
        if ((await entry.count()) === 0) return true;
        await entry
          .first()
          .click({ timeout: 2_000 })
          .catch(() => undefined);
        return false;
      },
      15_000,
    );
  }

  async function shoot(name: string): Promise<void> {
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
    await page.locator('.part.sidebar').screenshot({ path: path.join(SHOTS, `${name}-sidebar.png`) });
  }

  it('lists the seeded records by status, in force first, with id · date and the scope', async () => {
    await waitForRoundtableCommands(page);
    await palette(page, 'Roundtable: Focus on Decisions View');
    await until('the records in the Decisions view', async () => (await row('Postgres for every service').count()) > 0);
    const groups = await pane().locator('.monaco-list-row[aria-level="1"]').allTextContents();
    assert.deepEqual(
      groups.map((g) => g.replace(/\d+$/, '').trim()),
      ['Accepted', 'Superseded', 'Rejected'],
    );
    // Superseded and rejected start collapsed: their records are not rows until opened.
    assert.equal(await row('Use MySQL for orders').count(), 0, 'a superseded record is folded away');
    const postgres = row('Postgres for every service').first();
    assert.equal(await postgres.locator('.label-description').textContent(), '0002 · 2025-03-02');
    assert.match(
      await ariaOf('Postgres for every service'),
      /accepted, 0002 · 2025-03-02, scope src\/db\/\*\*, migrations/,
    );
    assert.match(
      (await row('Pool credentials').first().textContent()) ?? '',
      /^\$\(warning\) Pool credentials come from the vault/,
      'a record title is shown as written, never as an icon',
    );
    // The hover: the scope, and what it superseded.
    const tip = await hoverOf(page, postgres, 'Scope:', 'the record’s hover');
    assert.match(tip, /Scope: src\/db\/\*\*, migrations/);
    assert.match(tip, /Supersedes docs\/decisions\/0001-use-mysql\.md/);
    await shoot('decisions-view-light');
    await page.mouse.move(0, 0);
    await pane().locator('.monaco-list-row', { hasText: 'Superseded' }).first().click();
    await until('the superseded record', async () => (await row('Use MySQL for orders').count()) > 0);
    assert.equal(
      await row('Use MySQL for orders').first().locator('.label-description').textContent(),
      '0001 · 2024-01-10',
    );
  });

  it('searches by words, as `roundtable decisions WORDS`', async () => {
    await pane().hover();
    await pane().locator('.actions .action-label[aria-label*="Search Decisions"]').first().click();
    await until(
      'the search box',
      async () => (await page.locator('.quick-input-widget', { hasText: 'Search Decisions' }).count()) > 0,
    );
    await page.keyboard.type('graphql');
    await page.keyboard.press('Enter');
    await until('only the GraphQL record', async () => (await row('Postgres for every service').count()) === 0);
    assert.ok((await row('Use GraphQL for the public API').count()) > 0, 'the match shows, its group opened');
    // The view's message under its title says what narrowed it (it follows the rows).
    const message = pane().locator('.message', { hasText: 'matching' });
    await until('the search in the view’s message', async () => (await message.count()) > 0, 15_000);
    assert.equal((await message.first().textContent())?.trim(), '1 of 4 matching "graphql"');
    await shoot('decisions-search-light');
    await pane().locator('.actions .action-label[aria-label*="Search Decisions"]').first().click();
    await until(
      'the search box',
      async () => (await page.locator('.quick-input-widget', { hasText: 'Search Decisions' }).count()) > 0,
    );
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    await until('every record again', async () => (await row('Postgres for every service').count()) > 0);
  });

  it('"Decisions Governing This File" from the explorer lists the records whose scope covers it', async () => {
    await palette(page, 'View: Show Explorer');
    const folder = page.locator('.explorer-folders-view .monaco-list-row', { hasText: /^src$/ });
    await until('src in the explorer', async () => (await folder.count()) > 0, 30_000);
    await folder.first().click();
    const db = page.locator('.explorer-folders-view .monaco-list-row', { hasText: /^db$/ });
    await until('src/db in the explorer', async () => (await db.count()) > 0);
    await db.first().click();
    const file = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'pool.ts' });
    await until('pool.ts in the explorer', async () => (await file.count()) > 0);
    await file.first().click({ button: 'right' });
    await menuEntry('Decisions Governing This File');
    await waitForPick(page, 'Postgres for every service');
    const rows = await pickRows(page, /./).allTextContents();
    assert.equal(rows.length, 2, rows.join(' | '));
    assert.match(rows[0] ?? '', /0002 · 2025-03-02 · governs it/);
    assert.match(rows[0] ?? '', /scope src\/db\/\*\*/);
    assert.match(rows[1] ?? '', /^\$\(warning\) Pool credentials come from the vault/, 'the title as written, no icon');
    assert.match(rows[1] ?? '', /scope src\/db\/\*\.ts/);
    await shoot('decisions-governing-light');
    await page.keyboard.press('Escape');
  });

  it('Accept writes the scope proposed from the meeting’s folder, as edited; the view shows it', async () => {
    const folder = page.locator('.explorer-folders-view .monaco-list-row', { hasText: /^db$/ });
    await startMeeting(page, {
      topic: TOPIC,
      mode: 'Roundtable',
      open: async () => {
        await folder.first().click({ button: 'right' });
        await menuEntry('Discuss in Roundtable');
      },
    });
    const review: Frame = await until(
      'the review to offer Accept',
      () => frameWith(page, '[data-testid="accept"]'),
      180_000,
    );
    assert.equal(await review.inputValue('[data-testid="scope"]'), 'src/db', 'the folder the meeting read');
    await review.fill('[data-testid="scope"]', 'src/db/**\n../../etc/passwd');
    await review.click('[data-testid="accept"]');
    await until('the one-line refusal', async () =>
      (await review.textContent('[data-testid="scope-error"]'))?.includes('outside the workspace'),
    );
    assert.equal(
      await review.textContent('[data-testid="scope-error"]'),
      'Scope "../../etc/passwd" points outside the workspace (scope globs are workspace-relative).',
    );
    assert.ok(await review.$('[data-testid="accept"]'), 'nothing decided yet');
    await review.fill('[data-testid="scope"]', 'src/db/**\nconfig/pool.yaml');
    assert.equal(await review.textContent('[data-testid="scope-error"]'), '', 'the edit clears the old problem');
    await page.screenshot({ path: path.join(SHOTS, 'decisions-scope-review-light.png') });
    await review.click('[data-testid="accept"]');

    const dir = path.join(vs.workspace, 'docs', 'decisions');
    const record = await until('the new record', async () =>
      (await readdir(dir).catch(() => [])).find((f) => /^0006-.*\.md$/.test(f)),
    );
    const text = await readFile(path.join(dir, record), 'utf8');
    assert.match(text, /\nscope:\n {2}- "src\/db\/\*\*"\n {2}- "config\/pool\.yaml"\n/);

    await palette(page, 'Roundtable: Focus on Decisions View');
    await until('the new record in the view', async () => (await row('Should every service keep').count()) > 0);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(
      await row('Should every service keep').first().locator('.label-description').textContent(),
      `0006 · ${today}`,
    );
    assert.match(await ariaOf('Should every service keep'), /scope src\/db\/\*\*, config\/pool\.yaml/);
    const newTip = await hoverOf(
      page,
      row('Should every service keep').first(),
      'config/pool.yaml',
      'the new record’s hover',
    );
    assert.match(newTip, /Scope: src\/db\/\*\*, config\/pool\.yaml/);
    await shoot('decisions-after-accept-light');
    await page.mouse.move(0, 0);
  });

  it('reads well in dark and high-contrast themes, and in a narrow sidebar', async () => {
    await palette(page, 'Roundtable: Focus on Decisions View');
    for (const kind of ['dark', 'hc'] as const) {
      await setTheme(page, kind);
      await row('Postgres for every service').first().hover();
      await until(
        'the hover',
        async () => (await page.locator('.monaco-hover, .workbench-hover').filter({ hasText: 'Scope:' }).count()) > 0,
        15_000,
      ).catch(() => undefined);
      await shoot(`decisions-view-${kind}`);
    }
    await page.mouse.move(0, 0);
    await setTheme(page, 'light');
    const width = await resizeSidebar(page, 220);
    assert.ok(width <= 260, `the sidebar is narrow (${width}px)`);
    await shoot('decisions-narrow');
  });
});
