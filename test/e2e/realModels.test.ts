/**
 * Issue 24's VS Code scenario, live: `roundtable.providerBaseUrl` points at a server that behaves
 * like Ollama (thinking streamed in `delta.reasoning`, `max_tokens` only) and whose models answer
 * as recorded real models do (test/fakes/realRoom.ts: thinking first, then decorated markers, a
 * list-form judge, `**CONVERGED:**`, a heading-style digest). Every default of the start flow is
 * accepted. The room shows a briefing (not a refusal), each thought folded and streaming while it
 * comes, never as a post; every worker's evident stance; and the review offers the model's own
 * statement to Accept. Screenshots: test/.tmp/e2e-screenshots/real-models-*.png.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { seatOf, startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';
import { realRoomAt } from '../fakes/realRoom';
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

const SHOTS = path.join(ROOT, 'test', '.tmp', 'e2e-screenshots');
const TOPIC = 'Should we migrate our three services to a monorepo?';
const PANEL = [
  { name: 'sam', role: 'assistant', provider: 'openai', model: 'qwen3:8b' },
  { name: 'jude', role: 'judge', provider: 'openai', model: 'deepseek-r1:8b' },
  { name: 'ada', role: 'worker', provider: 'openai', model: 'gpt-oss:20b' },
  { name: 'grace', role: 'worker', provider: 'openai', model: 'qwen3:8b' },
  { name: 'linus', role: 'worker', provider: 'openai', model: 'mistral-small3.2:24b' },
];

describe('models people run, in a real VS Code (code-server)', () => {
  let vs: RunningVsCode;
  let page: Page;
  let server: FakeOpenAI;
  // ada's first turn stops after its thinking until the test has seen it streaming.
  let releaseThought = () => {};
  const thoughtHeld = new Promise<void>((r) => (releaseThought = r));

  before(async () => {
    assert.ok(existsSync(CODE_SERVER), 'code-server is installed by test/e2e/setup.sh');
    assert.ok(existsSync(VSIX), 'the extension is packaged by `npm run package`');
    server = await startFakeOpenAI(realRoomAt(25, thoughtHeld), {
      personality: 'ollama',
      models: [...new Set(PANEL.map((p) => p.model))],
    });
    vs = await startVsCode({
      install: 'vsix',
      settings: {
        'roundtable.providerBaseUrl': server.baseURL,
        'roundtable.participants': PANEL,
        'workbench.colorTheme': 'Default Dark Modern',
      },
    });
    page = vs.page;
    await mkdir(SHOTS, { recursive: true });
  });

  after(async () => {
    releaseThought();
    await vs?.stop();
    await server?.close();
    console.log(`e2e screenshots: ${SHOTS}`);
  });

  it('streams thinking into its fold, posts only replies, reads every stance and converges on the judge', async () => {
    await waitForRoundtableCommands(page);
    await startMeeting(page, { topic: TOPIC });
    // While a worker thinks, the fold fills and the reply does not: ada's first turn thinks
    // until released, so this is looked at while it lasts.
    const live = await until(
      'ada thinking in a fold, with no reply yet',
      async () => {
        const f = await frameWith(page, '[data-testid="thinking"]');
        if (!f) return undefined;
        const ada = await f.$$eval('article.message.streaming', (els) =>
          els
            .filter((e) => e.querySelector('.from')?.textContent === 'ada')
            .map((e) => ({
              fold: e.querySelector('[data-testid="thinking"]')?.textContent ?? '',
              reply: e.querySelector('.message-body')?.textContent ?? '',
            })),
        );
        return ada.find((m) => /Thinking…/.test(m.fold) && m.reply.trim() === '');
      },
      120_000,
    ).catch((e: Error) => {
      const seats = server.requests.map((r) => `${seatOf(r.body).me}/${seatOf(r.body).round}`).join(' ');
      throw new Error(`${e.message} (requests so far: ${seats})`);
    });
    await page.screenshot({ path: path.join(SHOTS, 'real-models-thinking-live.png') });
    // All of it from its first piece, even what was written before the room showed the meeting.
    assert.match(live.fold, /ada: PRIVATE-THOUGHT/, live.fold);
    releaseThought();
    // Closed, and the digest written: what the person reads at the end.
    const room = await until(
      'the meeting to close with its digest',
      async () => frameWith(page, '[data-testid="closed"] [data-testid="digest"]'),
      240_000,
    );
    const bodies = await room.$$eval('.message-body', (els) => els.map((e) => e.textContent ?? ''));
    assert.ok(bodies.length >= 7, `briefing, six turns and more (${bodies.length})`);
    for (const b of bodies) assert.doesNotMatch(b, /PRIVATE-THOUGHT|forged|<\/?think>/, b);
    const text = (await room.textContent('.room')) ?? '';
    assert.match(text, /Welcome\. We decide on the monorepo\./, 'the briefing, not a refusal');
    assert.doesNotMatch(text, /could not open the meeting|refused the request/);
    assert.match(text, /Thought for [\d,]+ tokens/);
    assert.doesNotMatch(text, /UNKNOWN/, 'every worker’s stance was read');
    assert.match(text, /every worker now supports an incremental migration/, 'the judge’s CONVERGED reason');
    assert.equal(
      server.requests.filter((r) => r.status === 400).length,
      0,
      'nothing refused: max_tokens is what Ollama takes',
    );
    for (const kind of ['dark', 'light', 'hc'] as const) {
      await setTheme(page, kind);
      await page.screenshot({ path: path.join(SHOTS, `real-models-room-${kind}.png`) });
    }
    await setTheme(page, 'dark');
  });

  it('the review offers the model’s own heading-style statement to Accept', async () => {
    await palette(page, 'Roundtable: Review Digest');
    const review = await until(
      'the review panel',
      async () => {
        const f = await frameWith(page, '[data-testid="accept"]');
        return f && /Migrate to a monorepo incrementally/.test((await f.textContent('body')) ?? '') ? f : undefined;
      },
      60_000,
    );
    const body = (await review.textContent('body')) ?? '';
    assert.doesNotMatch(body, /No statement was produced|No decision to accept/);
    await page.screenshot({ path: path.join(SHOTS, 'real-models-review.png') });
  });
});
