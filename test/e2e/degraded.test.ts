/**
 * A degraded meeting in a real VS Code (code-server with the packaged .vsix, driven in Chromium):
 * one of four workers is on a server that answers every request with HTTP 429 (OpenAI's
 * rate-limit answer, the body the loopback server sends by default). The room says in one line
 * that the worker left and why; the review says the decision was made by 3 of 4 workers, and
 * offers Accept. Screenshots of the room and the review in light, dark and high-contrast themes,
 * and of the room in a 250 px sidebar.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { startFakeOpenAI, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';
import {
  CODE_SERVER,
  ROOT,
  VSIX,
  frameShowing,
  palette,
  resizeSidebar,
  setTheme,
  startMeeting,
  startVsCode,
  waitForRoundtableCommands,
  type RunningVsCode,
} from './codeServer';

const SHOTS = path.join(ROOT, 'test', '.tmp', 'e2e-screenshots');
const TOPIC = 'Should the billing service move to a job queue?';
const LEFT = /grace leaves the meeting: its server failed \(.*429.*\)\. 3 of 4 workers remain/;
const all = (b: ChatBody) => (b.messages ?? []).map((m) => m.content).join('\n');

describe('a degraded meeting in a real VS Code (code-server)', () => {
  let vs: RunningVsCode;
  let page: Page;
  let fake: FakeOpenAI;

  before(async () => {
    assert.ok(existsSync(CODE_SERVER), 'code-server is installed by test/e2e/setup.sh');
    assert.ok(existsSync(VSIX), 'the extension is packaged by `npm run package`');
    fake = await startFakeOpenAI(
      (body) => {
        // grace's server is rate-limited for good; retry-after-ms keeps the provider's retries fast.
        if (body.model === 'model-grace') return { status: 429, retryAfterMs: 1 };
        if (body.model === 'chair-model' && all(body).includes('CONSENSUS_STATEMENT'))
          return [
            'CONSENSUS_STATEMENT: Move the billing jobs to a queue, one job type at a time.',
            'CONTRIBUTORS: ada, linus and ken agreed on a queue.',
            'DISSENT: none.',
          ].join('\n');
        if (body.model === 'chair-model') return 'Welcome. Decide on the job queue; say where you stand.';
        return 'A queue decouples billing from the web tier. [STANCE: AGREE]';
      },
      { models: ['chair-model', 'model-ada', 'model-grace', 'model-linus', 'model-ken'] },
    );
    vs = await startVsCode({
      install: 'vsix',
      settings: {
        'workbench.colorTheme': 'Default Light Modern',
        'roundtable.providerBaseUrl': fake.baseURL,
        'roundtable.maxRounds': 2,
        'roundtable.participants': [
          { name: 'chair', role: 'assistant', provider: 'openai', model: 'chair-model' },
          ...['ada', 'grace', 'linus', 'ken'].map((name) => ({
            name,
            role: 'worker',
            provider: 'openai',
            model: `model-${name}`,
          })),
        ],
      },
    });
    page = vs.page;
    await mkdir(SHOTS, { recursive: true });
  });

  after(async () => {
    await vs?.stop();
    await fake?.close();
    console.log(`e2e screenshots: ${SHOTS}`);
  });

  const frameSaying = (what: string, selector: string, ok: (text: string) => boolean): Promise<Frame> =>
    frameShowing(vs, what, selector, ok, 90_000);

  async function shoot(name: string, target: () => Promise<Frame>): Promise<void> {
    await palette(page, 'Notifications: Clear All Notifications');
    for (const kind of ['light', 'dark', 'hc'] as const) {
      await setTheme(page, kind);
      await target();
      await page.screenshot({ path: path.join(SHOTS, `degraded-${name}-${kind}.png`) });
    }
    await setTheme(page, 'light');
  }

  it('says in the room, in one line, that a worker left and why', async () => {
    await waitForRoundtableCommands(page);
    await startMeeting(page, { topic: TOPIC, mode: 'Roundtable' });
    const room = await frameSaying('the room saying grace left', '.room', (t) => LEFT.test(t));
    const lines = ((await room.textContent('.room')) ?? '').match(new RegExp(LEFT.source, 'g')) ?? [];
    assert.equal(lines.length, 1, 'one line, not one per round');
    // Once closed, the final stances say grace left rather than give it one.
    await frameSaying('the room saying grace left in the final stances', '.room', (t) =>
      /Final stances:.*grace\s+left/s.test(t),
    );
    // The line is what the shots are of: scrolled into the middle of the room (the digest is below it).
    const showLine = async (): Promise<Frame> => {
      const f = await frameSaying('the room', '.room', (t) => LEFT.test(t));
      await f.evaluate(() =>
        document.querySelector('[data-message-id="left-grace"]')?.scrollIntoView({ block: 'center' }),
      );
      return f;
    };
    await shoot('room', showLine);
    const width = await resizeSidebar(page, 250);
    assert.ok(width <= 270, `the sidebar is narrow (${width}px)`);
    await showLine();
    await page.locator('.part.sidebar').screenshot({ path: path.join(SHOTS, 'degraded-room-narrow.png') });
    const over = await room.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(over <= 1, `the room overflows by ${over}px`);
  });

  it('the review says the decision was made by 3 of 4 workers, and offers Accept', async () => {
    const review = await frameSaying('the review saying 3 of 4', '.review', (t) =>
      /decided by 3 of 4 workers: grace's server failed \(.*429.*\)/.test(t),
    );
    assert.ok(await review.$('[data-testid="accept"]'), 'the decision can be accepted');
    assert.doesNotMatch((await review.textContent('.review')) ?? '', /DISSENT:.*grace|grace ended on UNKNOWN/);
    await shoot('review', () => frameSaying('the review', '.review', (t) => /decided by 3 of 4/.test(t)));
  });
});
