/**
 * The digest review's real code (`webview/src/digest.ts`) in the jsdom window of test/fakes/roomView,
 * as VS Code runs it: the extension's messages come in as `message` events, `acquireVsCodeApi` is the
 * stub VS Code injects, and the panel's once-a-second "ask again" runs when the caller ticks it
 * (a fake clock: no timer is left running). Each `loadDigest` is a fresh panel.
 */
import { createRequire } from 'node:module';
import { domOnce } from './roomView';

const load = createRequire(__filename);
const DIGEST = load.resolve('../../webview/src/digest.ts');

/** The panel's body until its first render, as extension/src/digestPanel.ts writes it. */
const BODY = '<main id="digest"><p class="quiet" role="status">Loading the meeting…</p></main>';

export interface DigestView {
  /** A message from the extension. */
  send(msg: unknown): void;
  /** One second passes: the panel's interval runs, if it is still set. */
  tick(): void;
  readonly root: HTMLElement;
  /** What the panel posted to the extension. */
  readonly posted: { type: string; [k: string]: unknown }[];
}

export function loadDigest(): DigestView {
  const dom = domOnce();
  const doc = dom.window.document;
  // The web components the panel uses read the browser's platform for their font stack (Node 20 has no navigator).
  if (!('navigator' in globalThis))
    Object.defineProperty(globalThis, 'navigator', { value: dom.window.navigator, configurable: true });
  // …and give a button its form value, which jsdom's ElementInternals cannot hold: a no-op here.
  const internals = (dom.window as unknown as { ElementInternals?: { prototype: Record<string, unknown> } })
    .ElementInternals?.prototype;
  if (internals && !internals.setFormValue) internals.setFormValue = () => undefined;
  doc.body.innerHTML = BODY;
  const win = new EventTarget();
  Object.defineProperty(globalThis, 'window', { value: win, configurable: true });
  const posted: DigestView['posted'] = [];
  let held: string | undefined;
  Object.defineProperty(globalThis, 'acquireVsCodeApi', {
    configurable: true,
    value: () => ({
      postMessage: (m: unknown) => posted.push(JSON.parse(JSON.stringify(m)) as DigestView['posted'][number]),
      getState: (): unknown => (held === undefined ? undefined : JSON.parse(held)),
      setState: (s: unknown) => (held = JSON.stringify(s)),
    }),
  });
  // The panel's intervals, on a clock the test turns: swapped in only while the panel's code runs.
  const intervals = new Map<number, () => void>();
  let next = 1;
  const fake = {
    setInterval: (fn: () => void) => (intervals.set(next, fn), next++),
    clearInterval: (id: number) => void intervals.delete(id),
  };
  const onClock = (run: () => void): void => {
    const real = { setInterval: globalThis.setInterval, clearInterval: globalThis.clearInterval };
    Object.assign(globalThis, fake);
    try {
      run();
    } finally {
      Object.assign(globalThis, real);
    }
  };
  onClock(() => {
    // A new module instance for each panel (its state lives at module level, as in the webview).
    delete load.cache[DIGEST];
    load(DIGEST);
  });
  return {
    send: (data) => onClock(() => win.dispatchEvent(new MessageEvent('message', { data }))),
    tick: () => onClock(() => [...intervals.values()].forEach((fn) => fn())),
    root: doc.getElementById('digest') as HTMLElement,
    posted,
  };
}
