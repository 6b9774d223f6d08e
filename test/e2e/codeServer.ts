/** code-server (VS Code's workbench and a real extension host) driven by Debian's Chromium. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type Frame, type Locator, type Page } from 'playwright-core';

export const ROOT = path.resolve(__dirname, '..', '..');
export const CODE_SERVER = path.join(ROOT, '.cache', 'e2e', 'node_modules', '.bin', 'code-server');
export const VSIX = path.join(ROOT, 'roundtable.vsix');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export async function until<T>(
  what: string,
  fn: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/** The webview frame that holds `selector` (webview content lives in nested iframes). */
export async function frameWith(page: Page, selector: string): Promise<Frame | undefined> {
  for (const f of page.frames()) {
    try {
      if (await f.$(selector)) return f;
    } catch {
      // a frame detached while we looked
    }
  }
  return undefined;
}

/**
 * What a failed wait saw, for its message: the text of every webview and the tail of the
 * extension's log (code-server keeps it under the user data folder).
 */
export async function whatWasShown(vs: RunningVsCode): Promise<string> {
  const views: string[] = [];
  for (const f of vs.page.frames()) {
    const text = await f
      .evaluate(() => document.querySelector<HTMLElement>('#digest, #room, main')?.innerText ?? '')
      .catch(() => '');
    if (text.trim()) views.push(`[webview] ${text.trim().replace(/\s+/g, ' ').slice(0, 600)}`);
  }
  const logs = path.join(path.dirname(path.dirname(vs.settingsFile)), 'logs');
  const files: string[] = await readdir(logs, { recursive: true }).catch(() => []);
  const tails: string[] = [];
  for (const f of files.filter((n) => /roundtable/i.test(path.basename(n)) && n.endsWith('.log'))) {
    const lines = (await readFile(path.join(logs, f), 'utf8').catch(() => '')).trimEnd().split('\n');
    tails.push(`[${path.basename(f)}]\n${lines.slice(-40).join('\n')}`);
  }
  return [...views, ...tails].join('\n');
}

/**
 * The frame holding `selector` once `ok` holds for its text (any text by default); a timeout says
 * what every webview showed and the tail of the extension's log.
 */
export function frameShowing(
  vs: RunningVsCode,
  what: string,
  selector: string,
  ok: (text: string) => boolean = () => true,
  timeoutMs = 60_000,
): Promise<Frame> {
  return until(
    what,
    async () => {
      const f = await frameWith(vs.page, selector);
      return f && ok((await f.textContent(selector)) ?? '') && f;
    },
    timeoutMs,
  ).catch(async (e: Error) => {
    throw new Error(`${e.message}\n${await whatWasShown(vs)}`);
  });
}

/**
 * Does `attempt` up to `times` times, with `recover` between tries: a keystroke sent while the
 * workbench moves focus (a webview taking it, a notification appearing) can be lost, and a
 * person would simply try again.
 */
export async function retrying<T>(
  times: number,
  attempt: (n: number) => Promise<T>,
  recover: () => Promise<void>,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      if (n >= times) throw e;
      await recover();
    }
  }
}

/** The quick input (palette or picker) while it is open. */
export function quickInput(page: Page): Locator {
  return page.locator('.quick-input-widget:not([style*="display: none"]) input');
}

/**
 * Runs a command from the palette as a person does: opens it, types `command`, waits for the row
 * that shows `pick` (by default the command without a leading `>`) and presses Enter. When the
 * palette does not open or does not list the command (a keystroke lost while focus moved), it
 * closes what is open and opens the palette again from the command centre.
 */
export async function palette(page: Page, command: string, pick = command.replace(/^>?\s*/, '')): Promise<void> {
  await retrying(
    3,
    async (n) => {
      if (n === 1) await page.keyboard.press('Control+Shift+P');
      else await page.locator('.command-center-center').first().click({ timeout: 5_000 });
      await quickInput(page).waitFor({ timeout: 10_000 });
      await quickInput(page).fill(`>${command.replace(/^>?\s*/, '')}`);
      await until(
        `"${pick}" in the palette`,
        async () => (await page.locator('.quick-input-list .monaco-list-row', { hasText: pick }).count()) > 0,
        20_000,
      );
    },
    async () => {
      await page.keyboard.press('Escape');
    },
  );
  await pressOn(page, pick);
}

/**
 * Presses Enter on the quick pick's row that shows `text`. Enter takes the focused row, which is
 * the first match only by the list's own ranking ("Color Theme" can rank below "Browse Color
 * Themes…"): the focus is moved down to the wanted row first, as a person would with the arrows.
 */
export async function pressOn(page: Page, text: string): Promise<void> {
  const focused = page.locator('.quick-input-list .monaco-list-row.focused');
  for (let i = 0; i < 20; i++) {
    if (
      (
        (await focused
          .first()
          .textContent({ timeout: 2_000 })
          .catch(() => '')) ?? ''
      ).includes(text)
    )
      break;
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
}

/** Waits until the extension host has registered Roundtable's commands (it needs a moment after the workbench appears). */
export async function waitForRoundtableCommands(page: Page): Promise<void> {
  await until('the Roundtable commands', async () => {
    await page.keyboard.press('Control+Shift+P');
    await page.waitForSelector('.quick-input-widget input', { timeout: 5_000 });
    await page.keyboard.type('Roundtable: Start');
    const found =
      (await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Roundtable: Start Roundtable' }).count()) >
      0;
    await page.keyboard.press('Escape');
    return found;
  });
}

/** The rows of the open quick pick that show `text`. */
export function pickRows(page: Page, text: string | RegExp): Locator {
  return page.locator('.quick-input-list .monaco-list-row', { hasText: text });
}

/** Waits until the open quick pick shows a row with `text`. */
export async function waitForPick(page: Page, text: string | RegExp, timeoutMs = 60_000): Promise<void> {
  await until(`"${String(text)}" in the picker`, async () => (await pickRows(page, text).count()) > 0, timeoutMs);
}

/** Waits until the open input box or quick pick says `text` (its title, prompt or message). */
export async function waitForPrompt(page: Page, text: RegExp, timeoutMs = 30_000): Promise<void> {
  let shown = '';
  await until(
    `the prompt ${String(text)}`,
    async () => {
      shown = await page
        .locator('.quick-input-widget')
        .innerText()
        .catch(() => '');
      return text.test(shown);
    },
    timeoutMs,
  ).catch((e: Error) => {
    throw new Error(`${e.message} (the input shows: ${JSON.stringify(shown.slice(0, 300))})`);
  });
}

/**
 * Starts a meeting with "Start Roundtable" as a person does. With a `topic` (a configured panel)
 * it is typed in the topic box; without one (no model anywhere) the demo offer is taken, and the
 * demo runs on its own topic. Then the mode, the options of a consensus (none: the workers
 * propose them) and Start.
 */
export async function startMeeting(
  page: Page,
  opts: {
    topic?: string;
    mode?: 'Roundtable' | 'Consensus';
    options?: string[];
    /** How the flow is opened (default: "Start Roundtable" from the palette). */
    open?: () => Promise<void>;
    /** A note for the panel, attached in the context step. */
    note?: string;
    /** A screenshot of the context step with the note ticked. */
    contextShot?: string;
  } = {},
): Promise<void> {
  await (opts.open ?? (() => palette(page, 'Roundtable: Start Roundtable')))();
  if (opts.topic === undefined) {
    await waitForPick(page, 'Run the demo');
    await page.keyboard.press('Enter');
  } else {
    await waitForPrompt(page, /What should the room decide/);
    await page.keyboard.type(opts.topic);
    await page.keyboard.press('Enter');
  }
  const mode = opts.mode ?? 'Roundtable';
  await waitForPick(page, 'Consensus');
  // Typing filters the pick to the one mode, as a person narrows a list.
  await page.keyboard.type(mode);
  await until(`${mode} alone in the mode pick`, async () => (await pickRows(page, /./).count()) === 1);
  await page.keyboard.press('Enter');
  if (mode === 'Consensus') {
    for (const [i, option] of [...(opts.options ?? []), ''].entries()) {
      await waitForPrompt(page, new RegExp(`Option ${i + 1}\\b`));
      if (option) await page.keyboard.type(option);
      await page.keyboard.press('Enter');
    }
  }
  if (opts.topic !== undefined && !opts.open) await pickContext(page, opts.note, opts.contextShot);
  // The last step: Start (first) and "Change rounds and budget…" (last).
  await waitForPick(page, 'Change rounds and budget');
  await page.keyboard.press('Enter');
}

/** Drags the sash on the sidebar's right edge until the sidebar is `width` px wide, as a person resizes it; returns the width it got. */
export async function resizeSidebar(page: Page, width: number): Promise<number> {
  const sidebar = page.locator('.part.sidebar');
  const box = await sidebar.boundingBox();
  if (!box) throw new Error('the sidebar is not shown');
  const edge = box.x + box.width;
  let grip: { x: number; y: number } | undefined;
  for (const sash of await page.locator('.monaco-sash.vertical').all()) {
    const b = await sash.boundingBox();
    if (b && b.height > 100 && Math.abs(b.x + b.width / 2 - edge) <= 4)
      grip = { x: b.x + b.width / 2, y: b.y + b.height / 2 };
  }
  if (!grip) throw new Error('the sidebar has no sash to drag');
  await page.mouse.move(grip.x, grip.y);
  await page.mouse.down();
  await page.mouse.move(grip.x - 20, grip.y, { steps: 4 });
  await page.mouse.move(box.x + width, grip.y, { steps: 8 });
  await page.mouse.up();
  return (await sidebar.boundingBox())?.width ?? 0;
}

/**
 * The start flow's context step (a meeting on the person's own question, started from the
 * palette): nothing ticked starts without context; with a `note`, "A note…" is ticked and the
 * note typed in the box that follows.
 */
/** `shot`: a screenshot of the step once the note is ticked. */
export async function pickContext(page: Page, note?: string, shot?: string): Promise<void> {
  await waitForPick(page, 'The git diff');
  if (note !== undefined) {
    // A click on a row of a multi-select pick ticks it; OK takes what is ticked.
    await pickRows(page, 'A note').first().click();
    if (shot) await page.screenshot({ path: shot });
    await page.locator('.quick-input-action .monaco-button', { hasText: 'OK' }).first().click();
    await waitForPrompt(page, /a note for the panel/);
    await page.keyboard.type(note);
  }
  await page.keyboard.press('Enter');
}

/** The workbench's colour theme kinds, by the class VS Code sets on `.monaco-workbench`. */
const THEME_CLASS = { light: 'vs', dark: 'vs-dark', hc: 'hc-black' } as const;
const THEME_LABEL = { light: 'Light Modern', dark: 'Dark Modern', hc: 'Dark High Contrast' } as const;
export const THEME_ID = {
  light: 'Default Light Modern',
  dark: 'Default Dark Modern',
  hc: 'Default High Contrast',
} as const;

/**
 * Picks a colour theme with the theme picker (Ctrl+K Ctrl+T, or "Preferences: Color Theme" when
 * the keys were lost), as a person would; the picker lists
 * "Dark Modern" with its id "Default Dark Modern" beside it. (code-server does not pick up an
 * edit of settings.json while it runs.)
 */
export async function setTheme(page: Page, kind: keyof typeof THEME_CLASS): Promise<void> {
  const classes = async () => ((await page.getAttribute('.monaco-workbench', 'class')) ?? '').split(/\s+/);
  // The workbench gets its theme class once the theme is loaded.
  const current = await until('the workbench theme', async () => {
    const c = await classes();
    return (['hc', 'dark', 'light'] as const).find((k) => c.includes(THEME_CLASS[k]));
  });
  if (current === kind) return;
  await retrying(
    3,
    async (n) => {
      if (n === 1) {
        await page.keyboard.press('Control+K');
        await page.keyboard.press('Control+T');
      } else await palette(page, 'Preferences: Color Theme');
      await waitForPick(page, THEME_LABEL[kind], 15_000);
      await quickInput(page).fill(THEME_LABEL[kind]);
      // Enter takes the focused row: wait until the filter has put the wanted theme there.
      await until(
        `${THEME_LABEL[kind]} focused in the theme picker`,
        async () =>
          ((await page.locator('.quick-input-list .monaco-list-row.focused').first().textContent()) ?? '').includes(
            THEME_LABEL[kind],
          ),
        15_000,
      );
      // Enter can be lost when focus moves while it is pressed (the picker then closes on blur and
      // the theme stays): the attempt is done only when the workbench wears the theme.
      await page.keyboard.press('Enter');
      await until(`the ${THEME_ID[kind]} theme`, async () => (await classes()).includes(THEME_CLASS[kind]), 20_000);
    },
    async () => {
      await page.keyboard.press('Escape');
    },
  );
}

export interface RunningVsCode {
  page: Page;
  workspace: string;
  home: string;
  /** The user settings file (VS Code applies edits to it while running). */
  settingsFile: string;
  log: () => string;
  stop(): Promise<void>;
}

/**
 * Starts code-server with the extension installed — from the packaged .vsix, or unpacked from
 * this checkout (so the development-only test suite in dist/test is there too) — and opens it.
 */
export async function startVsCode(opts: {
  install: 'vsix' | 'unpacked';
  env?: NodeJS.ProcessEnv;
  /** More user settings, written before VS Code starts (code-server does not pick up later edits of the file). */
  settings?: Record<string, unknown>;
  /** Runs once the folders exist and before VS Code (and so the daemon) starts: e.g. seeds the daemon's store in `home`. */
  beforeStart?: (dirs: { home: string; workspace: string }) => Promise<void>;
}): Promise<RunningVsCode> {
  const base = await mkdtemp(path.join(tmpdir(), 'rt-e2e-'));
  const userData = path.join(base, 'user');
  const extensions = path.join(base, 'extensions');
  const home = path.join(base, 'roundtable-home');
  const workspace = path.join(base, 'workspace');
  await mkdir(path.join(userData, 'User'), { recursive: true });
  await mkdir(workspace, { recursive: true });
  await mkdir(extensions, { recursive: true });
  await writeFile(
    path.join(userData, 'User', 'settings.json'),
    JSON.stringify({
      'security.workspace.trust.enabled': false,
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'extensions.autoUpdate': false,
      'telemetry.telemetryLevel': 'off',
      'roundtable.dataDir': home,
      ...opts.settings,
    }),
  );
  await writeFile(path.join(workspace, 'README.md'), '# a project\n');
  execFileSync('git', ['init', '-q'], { cwd: workspace });
  execFileSync(
    'git',
    ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init'],
    { cwd: workspace },
  );
  if (opts.install === 'vsix') {
    execFileSync(
      CODE_SERVER,
      ['--user-data-dir', userData, '--extensions-dir', extensions, '--install-extension', VSIX],
      { stdio: 'pipe' },
    );
  } else {
    const pkg = JSON.parse(
      execFileSync(process.execPath, [
        '-p',
        `JSON.stringify(require(${JSON.stringify(path.join(ROOT, 'package.json'))}))`,
      ]).toString(),
    ) as { publisher: string; name: string; version: string };
    const folder = `${pkg.publisher}.${pkg.name}-${pkg.version}`;
    const target = path.join(extensions, folder);
    for (const item of ['package.json', 'dist', 'media', 'examples', 'README.md', 'LICENSE'])
      await cp(path.join(ROOT, item), path.join(target, item), { recursive: true });
    // An unpacked extension is only loaded when extensions.json lists it.
    await writeFile(
      path.join(extensions, 'extensions.json'),
      JSON.stringify([
        {
          identifier: { id: `${pkg.publisher}.${pkg.name}` },
          version: pkg.version,
          location: { $mid: 1, path: target, scheme: 'file' },
          relativeLocation: folder,
        },
      ]),
    );
  }
  await opts.beforeStart?.({ home, workspace });
  const port = await freePort();
  let log = '';
  const server: ChildProcess = spawn(
    CODE_SERVER,
    [
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--user-data-dir',
      userData,
      '--extensions-dir',
      extensions,
      workspace,
    ],
    { env: { ...process.env, ROUNDTABLE_HOME: home, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  server.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  server.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  await until('code-server to listen', () => /HTTP server listening/.test(log), 60_000);
  const browser: Browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
  await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
  return {
    page,
    workspace,
    home,
    settingsFile: path.join(userData, 'User', 'settings.json'),
    log: () => log,
    stop: async () => {
      await browser.close();
      server.kill('SIGTERM');
      // Stop the daemon the extension started for this run.
      try {
        const info = JSON.parse(execFileSync('cat', [path.join(home, 'daemon.json')]).toString()) as { pid: number };
        process.kill(info.pid, 'SIGTERM');
      } catch {
        // none running
      }
      await rm(base, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}
