/**
 * The room as a person sees it in a real VS Code (code-server + the packaged .vsix), with no model
 * anywhere so the demo runs: after a consensus and a roundtable nothing is left "writing…" and no
 * raw protocol text shows, the stance colours read at 4.5:1 or better on the actual background in
 * the light, dark and high-contrast default themes, and a 250 px sidebar has no horizontal
 * scrollbar. Screenshots go to test/.tmp/e2e-screenshots/room-*.png.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Frame, Page } from 'playwright-core';
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
  waitForRoundtableCommands,
  type RunningVsCode,
} from './codeServer';

const SHOTS = path.join(ROOT, 'test', '.tmp', 'e2e-screenshots');
const SIDEBAR = '[id="workbench.parts.sidebar"]';

/**
 * Runs in the webview: the contrast of each stance colour against the background actually behind
 * the text (the first opaque ancestor, else the sidebar colour a webview view shows through).
 * A string, so the test runner's transpiler adds no helpers the page does not have.
 */
const CONTRAST = `(() => {
  const parse = (c) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(c);
    if (!m) throw new Error('unexpected colour ' + c);
    const [r, g, b, a] = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
    return [r, g, b, a === undefined ? 1 : a];
  };
  const over = (fg, bg) => [0, 1, 2].map((i) => fg[i] * fg[3] + bg[i] * (1 - fg[3]));
  const lum = (c) => {
    const [r, g, b] = c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const probe = document.createElement('div');
  document.body.append(probe);
  probe.style.backgroundColor = 'var(--vscode-sideBar-background, var(--vscode-editor-background))';
  const viewBg = parse(getComputedStyle(probe).backgroundColor);
  probe.remove();
  const backgroundOf = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) return over(c, viewBg);
    }
    return viewBg.slice(0, 3);
  };
  const host = document.querySelector('.room');
  const out = {};
  for (const stance of ['AGREE', 'DISAGREE', 'NEUTRAL', 'UNKNOWN']) {
    const real = document.querySelector('.stance-badge.stance-' + stance + ', td.stance-' + stance);
    const el = real || Object.assign(document.createElement('span'), { className: 'stance stance-' + stance, textContent: stance });
    if (!real) host.append(el);
    const bg = backgroundOf(el);
    const fg = over(parse(getComputedStyle(el).color), bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    out[stance] = { ratio: Math.round(((hi + 0.05) / (lo + 0.05)) * 100) / 100, real: !!real, fg: fg.map(Math.round).join(','), bg: bg.map(Math.round).join(',') };
    if (!real) el.remove();
  }
  return out;
})()`;

describe('the room in a real VS Code', () => {
  let vs: RunningVsCode;
  let page: Page;

  before(async () => {
    assert.ok(existsSync(CODE_SERVER), 'code-server is installed by test/e2e/setup.sh');
    assert.ok(existsSync(VSIX), 'the extension is packaged by `npm run package`');
    vs = await startVsCode({ install: 'vsix', settings: { 'workbench.colorTheme': 'Default Dark Modern' } });
    page = vs.page;
    await mkdir(SHOTS, { recursive: true });
  });

  after(async () => {
    await vs?.stop();
    console.log(`e2e screenshots: ${SHOTS}`);
  });

  /** The room once it shows the closed meeting on `topic` with its digest. */
  function closedRoom(topic: RegExp, timeoutMs = 240_000): Promise<Frame> {
    return until(
      `the digest in the closed room of ${String(topic)}`,
      async () => {
        const frame = await frameWith(page, '[data-testid="digest"]');
        return frame &&
          (await frame.$('[data-testid="closed"]')) &&
          topic.test((await frame.textContent('.room')) ?? '')
          ? frame
          : undefined;
      },
      timeoutMs,
    );
  }

  async function assertNothingWriting(room: Frame): Promise<string> {
    assert.equal((await room.$$('.message.streaming')).length, 0, 'no streaming entry after close');
    const text = (await room.textContent('.room')) ?? '';
    assert.doesNotMatch(text, /writing…|CONSENSUS_STATEMENT|PROPOSAL:|BALLOT/);
    return text;
  }

  it('runs the consensus demo and leaves no "writing…" entry and no protocol text once it closed', async () => {
    await waitForRoundtableCommands(page);
    await startMeeting(page, { mode: 'Consensus' });
    const room = await closedRoom(/Should we adopt a monorepo/);
    const text = await assertNothingWriting(room);
    assert.match(text, /Ended: /);
    await page.locator(SIDEBAR).screenshot({ path: path.join(SHOTS, 'room-consensus-dark.png') });
  });

  let f: Frame;

  it('runs the roundtable demo and leaves no "writing…" entry once it closed and the digest is in', async () => {
    await startMeeting(page, { mode: 'Roundtable' });
    // The consensus demo's room shows the same topic: wait for the roundtable's own ending.
    const done = await closedRoom(/Ended: Full consensus/);
    await assertNothingWriting(done);
    assert.equal(await done.getAttribute('[data-testid="messages"]', 'aria-live'), 'polite');
    assert.match(
      (await done.getAttribute('[data-testid="budget"] [role="meter"]', 'aria-label')) ?? '',
      /^Spoken [\d,]+ of 15,000 tokens$/,
    );
    // Back to the room: the digest review opened in the editor.
    await palette(page, 'Roundtable: Show Room');
    f = await until('the room view', () => frameWith(page, '.room'), 30_000);
    // Was the debate worth it: the demo's round 1 had no majority, grace and linus moved after the judge.
    const debate = (await f.textContent('[data-testid="debate"]'))?.replace(/\s+/g, ' ') ?? '';
    assert.match(debate, /Debate changed the outcome: yes — round 1: no majority · final: AGREE/);
    assert.match(debate, /grace DISAGREE → NEUTRAL in round 2 after ada, linus, the judge/);
    assert.equal((await f.$$('[data-testid="stances"] td.flipped')).length, 3, 'three changed positions are marked');
  });

  for (const [kind, bodyClass, shot] of [
    ['light', 'vscode-light', 'room-light.png'],
    ['dark', 'vscode-dark', 'room-dark.png'],
    ['hc', 'vscode-high-contrast', 'room-hc.png'],
  ] as const)
    it(`reads the stance colours at 4.5:1 or better in the ${kind} theme`, async () => {
      await setTheme(page, kind);
      await until(`the room in the ${kind} theme`, async () =>
        f.evaluate(`document.body.classList.contains(${JSON.stringify(bodyClass)})`),
      );
      await f.evaluate('window.scrollTo(0, 0)');
      const ratios =
        await f.evaluate<Record<string, { ratio: number; real: boolean; fg: string; bg: string }>>(CONTRAST);
      console.log(kind, JSON.stringify(ratios));
      assert.ok(ratios.AGREE?.real && ratios.DISAGREE?.real, 'the meeting shows AGREE and DISAGREE stances');
      for (const [stance, r] of Object.entries(ratios))
        assert.ok(r.ratio >= 4.5, `${stance} in ${kind}: ${r.ratio}:1 (rgb ${r.fg} on ${r.bg})`);
      await page.locator(SIDEBAR).screenshot({ path: path.join(SHOTS, shot) });
      await f.evaluate(`document.querySelector('[data-testid="debate"]').scrollIntoView({ block: 'center' })`);
      await page.locator(SIDEBAR).screenshot({ path: path.join(SHOTS, shot.replace('room-', 'room-debate-')) });
    });

  it('has no horizontal scrollbar in a 250 px sidebar', async () => {
    await setTheme(page, 'dark');
    const width = await resizeSidebar(page, 250);
    assert.ok(Math.abs(width - 250) <= 4, `the sidebar is 250 px wide (is ${width})`);
    await f.evaluate('window.scrollTo(0, 0)');
    const overflow = await f.evaluate<{ scroll: number; client: number }>(
      '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
    );
    assert.ok(overflow.scroll <= overflow.client, `no horizontal overflow (${overflow.scroll} > ${overflow.client})`);
    await page.locator(SIDEBAR).screenshot({ path: path.join(SHOTS, 'room-narrow.png') });
    await f.evaluate(`document.querySelector('[data-testid="debate"]').scrollIntoView({ block: 'center' })`);
    await page.locator(SIDEBAR).screenshot({ path: path.join(SHOTS, 'room-debate-narrow.png') });
    await f.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    await page.locator(SIDEBAR).screenshot({ path: path.join(SHOTS, 'room-narrow-end.png') });
  });
});
