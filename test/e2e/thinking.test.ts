/**
 * Issue 24 as a person sees it in a real VS Code (code-server + the packaged .vsix), from meetings
 * already in the daemon's store (written before VS Code starts, as the engine writes them):
 * a model's thinking folded under its reply ("Thought for N tokens", opened as text, never HTML);
 * a meeting that produced no decision, whose room and review say why first and offer Retry, never
 * Accept, and whose Retry runs it again in its place; the scripted demo labelled "Demo".
 * Screenshots in light, dark and high-contrast themes and a 250 px sidebar go to
 * test/.tmp/e2e-screenshots/issue24-*.png.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Frame, Locator, Page } from 'playwright-core';
import type { Digest, MeetingEvent } from '@roundtable/protocol';
import { loadPanel } from '../../daemon/src/panel';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';
import { runMeeting } from '../fakes/meetings';
import {
  CODE_SERVER,
  ROOT,
  VSIX,
  frameWith,
  palette,
  resizeSidebar,
  setTheme,
  startVsCode,
  until,
  waitForRoundtableCommands,
  type RunningVsCode,
} from './codeServer';
import { meetingsView, seedMeetings, type MeetingsView } from './meetingsView';

const SHOTS = path.join(ROOT, 'test', '.tmp', 'e2e-screenshots');
const TOPIC_THINK = 'Should we cache build artefacts in CI?';
const TOPIC_NONE = 'Should we move the billing jobs to a queue?';
const TOPIC_DEMO = 'Should we adopt a monorepo for our three services?';
const HOSTILE = 'Let me think first. <img src=x onerror="document.body.dataset.pwned=1"> **not bold**';
const LONG_THOUGHT = [
  'The cache key must include the lockfile hash, otherwise a dependency bump reuses a stale build.',
  'Remote caches cost egress; a per-branch cache with a fallback to main is cheaper.',
  'Risk: poisoned artefacts from forks. Only trusted branches may write to the cache.',
].join('\n');
const REFUSED =
  'No worker stated a stance: ada (gpt-5) was refused by the server: 400 “The model gpt-5 does not exist or you do not have access to it”; grace ended UNKNOWN';

/** The same log with every seat a real model on `baseURL` (so no demo, and Retry reaches that server). */
function real(events: MeetingEvent[], baseURL: string): MeetingEvent[] {
  return events.map((e) =>
    e.type === 'meeting_opened'
      ? {
          ...e,
          participants: e.participants.map((p) => ({
            ...p,
            provider: 'openai' as const,
            model: p.name === 'ada' ? 'gpt-5' : 'model-b',
          })),
          providers: { baseURL },
        }
      : e,
  );
}

function edit(events: MeetingEvent[], opts: { topic: string; digest?: Partial<Digest> }): MeetingEvent[] {
  return events.map((e) => {
    if (e.type === 'meeting_opened') return { ...e, topic: opts.topic };
    if (e.type === 'digest_ready') return { ...e, digest: { ...e.digest, topic: opts.topic, ...opts.digest } };
    return e;
  });
}

describe('thinking, no decision and the demo in a real VS Code (code-server)', () => {
  let vs: RunningVsCode;
  let page: Page;
  let fake: FakeOpenAI;

  before(async () => {
    assert.ok(existsSync(CODE_SERVER), 'code-server is installed by test/e2e/setup.sh');
    assert.ok(existsSync(VSIX), 'the extension is packaged by `npm run package`');
    // The retried meeting's models: they answer now.
    fake = await startFakeOpenAI(
      (body) =>
        (body.messages ?? []).some((m) => String(m.content).includes('CONSENSUS_STATEMENT'))
          ? [
              'CONSENSUS_STATEMENT: Move the billing jobs to a queue.',
              'CONTRIBUTORS: ada and grace agreed.',
              'DISSENT: none.',
            ].join('\n')
          : 'A queue decouples the jobs from the web tier.\n[STANCE: AGREE]',
      { models: ['gpt-5', 'model-b'] },
    );
    const root = path.join(__dirname, '..', '..');
    const script = JSON.parse(await readFile(path.join(root, 'examples', 'demo-script.json'), 'utf8')) as {
      replies: Record<string, unknown>;
    };
    const { events: demo } = await runMeeting({
      topic: TOPIC_DEMO,
      participants: loadPanel(path.join(root, 'examples', 'demo-panel.json')),
      script: { replies: script.replies },
    });
    const thinking = edit(real(demo, fake.baseURL), { topic: TOPIC_THINK }).map((e) => {
      if (e.type !== 'message_posted') return e;
      if (e.messageId === 'r1-ada') return { ...e, thinking: HOSTILE, thinkingTokens: 1234 };
      if (e.messageId === 'r1-grace') return { ...e, thinking: LONG_THOUGHT };
      return e;
    });
    const none = edit(real(demo, fake.baseURL), { topic: TOPIC_NONE, digest: { noDecision: REFUSED } });
    const demoOnly = edit(demo, { topic: TOPIC_DEMO, digest: { demo: true } });
    vs = await startVsCode({
      install: 'vsix',
      settings: { 'workbench.colorTheme': 'Default Light Modern', 'roundtable.providerBaseUrl': fake.baseURL },
      beforeStart: async ({ home }) => {
        await seedMeetings(home, [demoOnly, none, thinking]);
      },
    });
    page = vs.page;
    await mkdir(SHOTS, { recursive: true });
  });

  let step = 0;
  afterEach(async () => {
    await page?.screenshot({ path: path.join(SHOTS, `issue24-end-of-test-${++step}.png`) }).catch(() => undefined);
  });

  after(async () => {
    await vs?.stop();
    await fake?.close().catch(() => undefined);
    console.log(`e2e screenshots: ${SHOTS}`);
  });

  const view = (): MeetingsView => meetingsView(page);
  const meetingsPane = (): Locator => view().pane();
  const row = (topic: string): Locator => view().row(topic);
  const expandGroups = (): Promise<void> => view().expandGroups();

  /** Shows a meeting in the room from its row in the Meetings view, and returns the room's frame. */
  /** Shows or hides the Meetings pane (hidden, the room gets the sidebar's whole height). */
  async function meetingsOpen(open: boolean): Promise<void> {
    const header = meetingsPane().locator('.pane-header');
    if (((await header.getAttribute('aria-expanded')) === 'true') !== open) await header.click();
  }

  async function openRoom(topic: string, selector: string): Promise<Frame> {
    if ((await meetingsPane().count()) === 0) await palette(page, 'Roundtable: Focus on Meetings View');
    await meetingsOpen(true);
    await until(`the row of ${topic}`, async () => {
      await expandGroups();
      return (await row(topic).count()) > 0;
    });
    await row(topic).first().click();
    return until(`the room showing ${topic}`, async () => {
      const f = await frameWith(page, `.room ${selector}`);
      return f && ((await f.textContent('.topic')) ?? '').includes(topic) ? f : undefined;
    });
  }

  /** Screenshots of the whole window and of the sidebar, in each theme; the sidebar also at 250 px. */
  async function shoot(name: string, before?: () => Promise<void>): Promise<void> {
    await palette(page, 'Notifications: Clear All Notifications');
    for (const kind of ['light', 'dark', 'hc'] as const) {
      await setTheme(page, kind);
      await before?.();
      await page.screenshot({ path: path.join(SHOTS, `issue24-${name}-${kind}.png`) });
      await page.locator('.part.sidebar').screenshot({ path: path.join(SHOTS, `issue24-${name}-sidebar-${kind}.png`) });
    }
    await setTheme(page, 'light');
  }

  /** No horizontal scrollbar in the room at the current width. */
  async function noOverflow(room: Frame): Promise<void> {
    const over = await room.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(over <= 1, `the room overflows by ${over}px`);
  }

  it('folds a model’s thinking under its reply and opens it as text', async () => {
    await waitForRoundtableCommands(page);
    const room = await openRoom(TOPIC_THINK, '[data-testid="thinking"]');
    const ada = '[data-message-id="r1-ada"]';
    assert.equal(
      (await room.textContent(`${ada} [data-testid="thinking-summary"]`))?.trim(),
      'Thought for 1,234 tokens',
    );
    assert.equal(await room.$eval(`${ada} details`, (d) => (d as HTMLDetailsElement).open), false, 'folded');
    assert.doesNotMatch((await room.textContent(`${ada} .message-body`)) ?? '', /Let me think/);
    await room.click(`${ada} summary`);
    assert.equal((await room.textContent(`${ada} [data-testid="thinking-body"]`))?.trim(), HOSTILE);
    assert.equal(await room.$(`${ada} [data-testid="thinking-body"] img`), null, 'model HTML shown as text');
    assert.equal(await room.evaluate(() => document.body.dataset.pwned), undefined);
    await room.click(`${ada} summary`); // folded again
    const grace = '[data-message-id="r1-grace"]';
    assert.match((await room.textContent(`${grace} summary`)) ?? '', /^Thought for about [\d,]+ tokens$/);
    await room.click(`${grace} summary`);
    const show = (): Promise<void> => room.$eval(ada, (el) => el.scrollIntoView({ block: 'center' }));
    await meetingsOpen(false);
    await shoot('thinking', show);
    const width = await resizeSidebar(page, 250);
    assert.ok(width <= 270, `the sidebar is narrow (${width}px)`);
    await show();
    await noOverflow(room);
    await shoot('thinking-narrow', show);
  });

  it('a meeting without a decision says why first and offers Retry, never Accept', async () => {
    const room = await openRoom(TOPIC_NONE, '[data-testid="no-decision"]');
    assert.match(
      (await room.textContent('[data-testid="no-decision"]')) ?? '',
      /No decision to accept\. No worker stated a stance: ada \(gpt-5\) was refused/,
    );
    assert.ok(await room.$('[data-testid="no-decision"] #retry'));
    await noOverflow(room);
    const rowText = (await row(TOPIC_NONE).first().textContent()) ?? '';
    assert.match(rowText, /No decision · retry/);
    // A failed-style row: the error icon and Retry inline.
    await row(TOPIC_NONE).first().hover();
    assert.equal(
      await row(TOPIC_NONE).first().locator('.action-label[aria-label^="Retry"]').count(),
      1,
      'Retry inline',
    );
    await meetingsPane().screenshot({ path: path.join(SHOTS, 'issue24-no-decision-meetings-row.png') });
    assert.equal(
      await room.evaluate(() => document.scrollingElement?.scrollTop),
      0,
      'the room opens at the banner, not at the last message',
    );
    await meetingsOpen(false);
    await shoot('no-decision-room-narrow');
    await resizeSidebar(page, 400);

    await room.click('#review');
    const review = await until('the review with the banner', () =>
      frameWith(page, '.review [data-testid="no-decision"]'),
    );
    assert.match(
      (await review.textContent('[data-testid="no-decision"]')) ?? '',
      /ada \(gpt-5\) was refused by the server/,
    );
    for (const id of ['#accept', '#reject', '#another']) assert.equal(await review.$(id), null, `no ${id}`);
    assert.ok(await review.$('#retry'));
    await shoot('no-decision-review');

    // Retry runs the same meeting again in its place: one row for the topic, and it has a decision to review.
    await review.click('#retry');
    await meetingsOpen(true);
    await until(
      'the retried meeting alone in the view, ready for review',
      async () => {
        await expandGroups();
        return (
          (await row(TOPIC_NONE).count()) === 1 && /review/.test((await row(TOPIC_NONE).first().textContent()) ?? '')
        );
      },
      240_000,
    );
    assert.ok(fake.requests.length > 0, 'the retry called the models again');
  });

  it('labels the scripted demo "Demo" in the room and the review', async () => {
    const room = await openRoom(TOPIC_DEMO, '[data-testid="demo"]');
    assert.equal(
      (await room.textContent('.room-header [data-testid="demo"]'))?.replace(/\s+/g, ' ').trim(),
      'Demo Scripted replies that ignore your topic',
    );
    await room.click('#review');
    const review = await until('the review with the demo line', () => frameWith(page, '.review [data-testid="demo"]'));
    assert.match((await review.textContent('[data-testid="demo"]')) ?? '', /^Demo Scripted replies/);
    await meetingsOpen(false);
    await shoot('demo', () =>
      room.evaluate(() => {
        if (document.scrollingElement) document.scrollingElement.scrollTop = 0;
      }),
    );
  });
});
