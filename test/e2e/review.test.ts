/**
 * The digest review in a real VS Code (code-server with the packaged .vsix, driven in Chromium),
 * as a person sees it: the review opens as the meeting closes and says the digest is being
 * written (the fake model server holds the digest until the test has seen that), then shows the
 * outcome in words and the digest as sections; Edit shows the Markdown; Accept writes a MADR
 * record with front matter, and the review turns read-only with who decided and links that open
 * the minutes and the record. Screenshots in light, dark and high-contrast themes.
 * The panel answers through a real OpenAI-compatible server on 127.0.0.1 (test/fakes/openaiServer.ts).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { startFakeOpenAI, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';
import {
  CODE_SERVER,
  ROOT,
  VSIX,
  frameShowing,
  setTheme,
  startMeeting,
  startVsCode,
  until,
  waitForRoundtableCommands,
  type RunningVsCode,
} from './codeServer';

const SHOTS = path.join(ROOT, 'test', '.tmp', 'e2e-screenshots');
const TOPIC = 'Should we adopt a monorepo for our three services?';
const DIGEST = [
  'CONSENSUS_STATEMENT: Adopt a monorepo for api, billing and web, migrating one service at a time.',
  'CONTRIBUTORS: ada argued for atomic cross-service changes; grace asked for path-scoped CI <b>first</b>.',
  'DISSENT: grace wants per-service deploy secrets before billing moves.',
].join('\n');

const all = (b: ChatBody) => (b.messages ?? []).map((m) => m.content).join('\n');

describe('the digest review in a real VS Code (code-server)', () => {
  let vs: RunningVsCode;
  let page: Page;
  let fake: FakeOpenAI;
  let releaseDigest: () => void = () => undefined;
  const digestAsked = new Promise<void>((asked) => {
    const held = new Promise<void>((r) => (releaseDigest = r));
    void startFakeOpenAI(
      async (body) => {
        if (body.model === 'chair-model' && all(body).includes('CONSENSUS_STATEMENT')) {
          asked();
          await held; // the digest is "being written" until the test has seen the progress line
          return { text: DIGEST };
        }
        if (body.model === 'chair-model') return { text: 'Welcome. Decide on the monorepo; say where you stand.' };
        return { text: `I support a monorepo, migrated one service at a time. [STANCE: AGREE]` };
      },
      { models: ['chair-model', 'model-a', 'model-b'] },
    ).then((f) => (fake = f));
  });

  before(async () => {
    assert.ok(existsSync(CODE_SERVER), 'code-server is installed by test/e2e/setup.sh');
    assert.ok(existsSync(VSIX), 'the extension is packaged by `npm run package`');
    await until('the fake model server', () => fake);
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
        ],
      },
    });
    page = vs.page;
    execFileSync('git', ['config', 'user.name', 'Test Person'], { cwd: vs.workspace });
    await mkdir(SHOTS, { recursive: true });
  });

  after(async () => {
    releaseDigest();
    await vs?.stop();
    await fake?.close();
    console.log(`e2e screenshots: ${SHOTS}`);
  });

  /** The review's frame once `selector` shows in it (`text`: with exactly that text). */
  const reviewFrame = (selector: string, timeoutMs = 60_000, text?: string): Promise<Frame> =>
    frameShowing(
      vs,
      `the review showing ${selector}${text ? ` “${text}”` : ''}`,
      `.review ${selector}`,
      (t) => text === undefined || t.trim() === text,
      timeoutMs,
    );

  it('opens the review as the meeting closes, with a progress line and without taking focus', async () => {
    await waitForRoundtableCommands(page);
    await startMeeting(page, { topic: TOPIC, mode: 'Roundtable' });

    await digestAsked;
    // The review may open on the log before the close came (progress "still running"); it must come to this.
    const review = await reviewFrame('[data-testid="progress"]', 90_000, 'Writing the digest…');
    assert.equal((await review.textContent('[data-testid="progress"]'))?.trim(), 'Writing the digest…');
    assert.equal(await review.$('#accept'), null, 'nothing to accept before the digest');
    const focusInEditor = await page.evaluate(
      () => document.querySelector('.part.editor')?.contains(document.activeElement) ?? false,
    );
    assert.equal(focusInEditor, false, 'the review did not take the focus from the room');
    await page.screenshot({ path: path.join(SHOTS, 'review-writing.png') });
    releaseDigest();
  });

  it('shows the outcome in words and the digest as sections, editable as Markdown', async () => {
    const review = await reviewFrame('[data-testid="accept"]');
    const outcome = (await review.textContent('[data-testid="outcome"]')) ?? '';
    assert.match(outcome, /^(Full consensus|Majority consensus|Round limit reached) after \d rounds?$/);
    assert.doesNotMatch((await review.textContent('.review')) ?? '', /consensus_full|Ended:/);
    const sections = await review.$$eval('[data-testid="digest-rendered"] h2', (hs) => hs.map((h) => h.textContent));
    assert.deepEqual(sections, ['Outcome', 'Dissent', 'Contributions', 'Standing', 'Was the debate worth it?']);
    assert.match(
      (await review.textContent('[data-testid="digest-rendered"]')) ?? '',
      /Debate changed the outcome: (yes|no) \(round 1 majority: .*\) · rounds after the first cost [\d,]+ billed tokens/,
    );
    assert.match((await review.textContent('[data-testid="digest-rendered"]')) ?? '', /<b>first<\/b>/);
    assert.equal(await review.$('[data-testid="digest-rendered"] b'), null, 'model HTML is shown as text');
    // Minutes are written on Accept (roundtable.minutes = onAccept): no link to them before.
    assert.equal(await review.$('[data-testid="open-minutes"]'), null, 'no minutes before the decision');
    await page.screenshot({ path: path.join(SHOTS, 'review-pending-light.png') });

    await review.click('#edit-toggle');
    assert.equal(await review.isVisible('#digest-text'), true);
    const markdown = await review.inputValue('#digest-text');
    assert.match(markdown, /^## Outcome\n\nAdopt a monorepo for api/);
    await review.fill('#digest-text', `${markdown}\nREVIEWER NOTE: start with the billing service.`);
    await page.screenshot({ path: path.join(SHOTS, 'review-editing.png') });
  });

  it('Accept writes a MADR record with front matter; the review turns read-only with links to both files', async () => {
    const review = await reviewFrame('[data-testid="accept"]');
    await review.click('#accept');
    const decisions = path.join(vs.workspace, 'docs', 'decisions');
    const record = await until('the decision record', async () =>
      (await readdir(decisions).catch(() => [])).find((f) => /^0001-.*\.md$/.test(f)),
    );
    const adr = await readFile(path.join(decisions, record), 'utf8');
    assert.match(adr, /^---\nstatus: "accepted"\ndate: "\d{4}-\d\d-\d\d"\ndecision-makers:\n {2}- "Test Person"\n/);
    for (const line of [
      '  - "chair-model"',
      '  - "model-a"',
      'consulted:',
      '  - "ada (worker, model-a)"',
      '## Context and Problem Statement',
      '## Considered Options',
      '## Decision Outcome',
      'Chosen option: "Adopt a monorepo for api, billing and web',
      '## More Information',
      'REVIEWER NOTE: start with the billing service.',
    ])
      assert.ok(adr.includes(line), `the record has ${line}`);
    assert.doesNotMatch(adr, /Decision Outcome: FULL|Deciders: the team/);

    const decided = await reviewFrame('[data-testid="decided"]');
    assert.match(
      (await decided.textContent('[data-testid="decided"]')) ?? '',
      /^Decided: accepted by Test Person on \d{4}-\d\d-\d\d$/,
    );
    for (const id of ['#accept', '#reject', '#another', '#edit-toggle'])
      assert.equal(await decided.$(id), null, `${id} is gone`);
    const minutesLink = (await decided.textContent('[data-testid="open-minutes"]')) ?? '';
    const recordLink = (await decided.textContent('[data-testid="open-decision"]')) ?? '';
    assert.match(minutesLink, /^docs\/roundtable\/.+\.md$/);
    assert.equal(recordLink, `docs/decisions/${record}`);

    await decided.click('[data-testid="open-minutes"]');
    const minutesName = path.basename(minutesLink);
    await until(
      'the minutes in the editor',
      async () => (await page.locator('.tab.active', { hasText: minutesName }).count()) > 0,
    );
    await decided.click('[data-testid="open-decision"]');
    await until(
      'the record in the editor',
      async () => (await page.locator('.tab.active', { hasText: record }).count()) > 0,
    );
    await page.screenshot({ path: path.join(SHOTS, 'review-decided-light.png') });
  });

  it('reads well in dark and high-contrast themes too', async () => {
    for (const [kind, file] of [
      ['dark', 'review-decided-dark.png'],
      ['hc', 'review-decided-hc.png'],
    ] as const) {
      await setTheme(page, kind);
      await reviewFrame('[data-testid="decided"]');
      await page.screenshot({ path: path.join(SHOTS, file) });
    }
  });
});
