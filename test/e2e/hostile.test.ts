/**
 * Issue 32 as a person sees it in a real VS Code (code-server + the packaged .vsix), from meetings
 * already in the daemon's store: a post whose model wrote bidi controls (raw, and spelled as
 * Markdown entities) shows them as visible escapes in reading order, never as characters that
 * reorder the line (Trojan Source); a meeting whose log holds a record the reader refuses (a
 * negative usage figure an older release stored unchecked) does not stop the daemon: it is listed
 * as quarantined, with the reason, beside the meetings that open as usual.
 * Screenshots in light, dark and high-contrast themes and a 250 px sidebar go to
 * test/.tmp/e2e-screenshots/issue32-*.png.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Frame, Locator, Page } from 'playwright-core';
import type { MeetingEvent } from '@roundtable/protocol';
import { EVENT_SCHEMA_VERSION } from '@roundtable/protocol';
import { loadPanel } from '../../daemon/src/panel';
import { journalFiles } from '../../daemon/src/store/storeFiles';
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
const TOPIC_BIDI = 'Should the admin check move into middleware?';
const TOPIC_BAD = 'Should we shard the audit log by tenant?';
/** Trojan Source (CVE-2021-42574): an RLO and isolates that make the line read otherwise than it runs. */
const BIDI_POST = [
  'Keep the check where it is: if (accessLevel != "user\u202E \u2066// Check if admin\u2069 \u2066") { grant(); }',
  'Entities too: &#x202E;reversed&#x202C; and &#8297;isolated&#8297;.',
  '[STANCE: AGREE]',
].join('\n');
const BIDI_CHARS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;

/** Appends to the store's journal a usage record as a release that stored usage unchecked wrote it. */
async function badUsageRecord(home: string, meetingId: string, seq: number): Promise<void> {
  const journal = (await journalFiles(path.join(home, 'store'))).at(-1);
  assert.ok(journal, 'the store keeps a journal');
  const usage = { promptTokens: -5, completionTokens: 20, source: 'provider' };
  const e = { type: 'usage_recorded', participant: 'ada', role: 'worker', purpose: 'turn', round: 1, usage };
  await appendFile(journal, `${JSON.stringify({ ...e, meetingId, seq, at: Date.now(), v: EVENT_SCHEMA_VERSION })}\n`);
}

describe('hostile model text and a bad log record in a real VS Code (code-server)', () => {
  let vs: RunningVsCode;
  let page: Page;

  before(async () => {
    assert.ok(existsSync(CODE_SERVER), 'code-server is installed by test/e2e/setup.sh');
    assert.ok(existsSync(VSIX), 'the extension is packaged by `npm run package`');
    const script = JSON.parse(await readFile(path.join(ROOT, 'examples', 'demo-script.json'), 'utf8')) as {
      replies: Record<string, unknown>;
    };
    const demo = async (topic: string): Promise<MeetingEvent[]> =>
      (
        await runMeeting({
          topic,
          participants: loadPanel(path.join(ROOT, 'examples', 'demo-panel.json')),
          script: { replies: script.replies },
        })
      ).events.map((e) => (e.type === 'meeting_opened' ? { ...e, topic } : e));
    const bidi = (await demo(TOPIC_BIDI)).map((e) =>
      e.type === 'message_posted' && e.messageId === 'r1-ada' ? { ...e, text: BIDI_POST } : e,
    );
    const bad = (await demo(TOPIC_BAD)).slice(0, 3);
    vs = await startVsCode({
      install: 'vsix',
      settings: { 'workbench.colorTheme': 'Default Light Modern' },
      beforeStart: async ({ home }) => {
        const [, badId] = await seedMeetings(home, [bidi, bad]);
        await badUsageRecord(home, badId as string, bad.length + 1);
      },
    });
    page = vs.page;
    await mkdir(SHOTS, { recursive: true });
  });

  let step = 0;
  afterEach(async () => {
    await page?.screenshot({ path: path.join(SHOTS, `issue32-end-of-test-${++step}.png`) }).catch(() => undefined);
  });

  after(async () => {
    await vs?.stop();
    console.log(`e2e screenshots: ${SHOTS}`);
  });

  const view = (): MeetingsView => meetingsView(page);
  const meetingsPane = (): Locator => view().pane();
  const row = (topic: string): Locator => view().row(topic);
  const expandGroups = (): Promise<void> => view().expandGroups();
  async function showMeetings(): Promise<void> {
    if ((await meetingsPane().count()) === 0) await palette(page, 'Roundtable: Focus on Meetings View');
    const header = meetingsPane().locator('.pane-header');
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  }

  async function shoot(name: string, before?: () => Promise<void>): Promise<void> {
    await palette(page, 'Notifications: Clear All Notifications');
    for (const kind of ['light', 'dark', 'hc'] as const) {
      await setTheme(page, kind);
      await before?.();
      await page.screenshot({ path: path.join(SHOTS, `issue32-${name}-${kind}.png`) });
      await page.locator('.part.sidebar').screenshot({ path: path.join(SHOTS, `issue32-${name}-sidebar-${kind}.png`) });
    }
    await setTheme(page, 'light');
  }

  it('shows bidi controls from a model as visible escapes in reading order, none in the DOM', async () => {
    await waitForRoundtableCommands(page);
    await showMeetings();
    await until(`the row of ${TOPIC_BIDI}`, async () => {
      await expandGroups();
      return (await row(TOPIC_BIDI).count()) > 0;
    });
    await row(TOPIC_BIDI).first().click();
    const room: Frame = await until('the room showing the bidi post', async () => {
      const f = await frameWith(page, '.room [data-message-id="r1-ada"]');
      return f && ((await f.textContent('.topic')) ?? '').includes(TOPIC_BIDI) ? f : undefined;
    });
    const ada = '[data-message-id="r1-ada"] .message-body';
    const shown = (await room.textContent(ada)) ?? '';
    assert.doesNotMatch(shown, BIDI_CHARS, 'no bidi control reaches the post');
    assert.match(shown, /"user⟨U\+202E⟩ ⟨U\+2066⟩\/\/ Check if admin⟨U\+2069⟩ ⟨U\+2066⟩"/, 'in reading order');
    assert.match(
      shown,
      /⟨U\+202E⟩reversed⟨U\+202C⟩ and ⟨U\+2069⟩isolated⟨U\+2069⟩/,
      'entities decoded, then made visible',
    );
    const anywhere = await room.evaluate(() => document.body.innerHTML);
    assert.doesNotMatch(anywhere, BIDI_CHARS, 'no bidi control anywhere in the room');
    const show = (): Promise<void> => room.$eval(ada, (el) => el.scrollIntoView({ block: 'center' }));
    const header = meetingsPane().locator('.pane-header');
    if ((await header.getAttribute('aria-expanded')) === 'true') await header.click();
    await shoot('bidi', show);
    const width = await resizeSidebar(page, 250);
    assert.ok(width <= 270, `the sidebar is narrow (${width}px)`);
    await show();
    const over = await room.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(over <= 1, `the room overflows by ${over}px`);
    await shoot('bidi-narrow', show);
    await resizeSidebar(page, 400);
  });

  it('lists a meeting whose log holds a refused record as quarantined, and opens the others', async () => {
    await showMeetings();
    await until('the quarantined meeting in the Meetings view', async () => {
      await expandGroups();
      return /Quarantined · log unreadable/.test((await row(TOPIC_BAD).first().textContent()) ?? '');
    });
    assert.ok((await row(TOPIC_BIDI).count()) > 0, 'the other meeting is listed as usual');
    await row(TOPIC_BAD).first().hover();
    for (const action of ['Retry', 'Review', 'Discard'])
      assert.equal(
        await row(TOPIC_BAD).first().locator(`.action-label[aria-label^="${action}"]`).count(),
        0,
        `no ${action}`,
      );
    await row(TOPIC_BAD).first().click();
    const toast = page.locator('.notifications-toasts .notification-list-item-message');
    await until('the one line that says why it cannot be opened', async () =>
      /cannot be opened: its log is quarantined \(.*usage/.test((await toast.allTextContents()).join('\n')),
    );
    const room = await frameWith(page, '.room [data-message-id="r1-ada"]');
    assert.ok(room, 'the room still shows the meeting it showed');
    assert.deepEqual(
      (await toast.allTextContents()).filter((t) => /quarantined/.test(t)).length,
      1,
      'one notification says why, not a raw error beside it',
    );
    await row(TOPIC_BAD).first().hover();
    for (const kind of ['light', 'dark', 'hc'] as const) {
      await setTheme(page, kind);
      await meetingsPane().screenshot({ path: path.join(SHOTS, `issue32-quarantined-meetings-${kind}.png`) });
      await page.screenshot({ path: path.join(SHOTS, `issue32-quarantined-${kind}.png`) });
    }
    await setTheme(page, 'light');
  });
});
