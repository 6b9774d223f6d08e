/**
 * The room webview's real code (`webview/src/room.ts`) in a jsdom window, as VS Code runs it: the
 * extension's messages come in as `message` events, `acquireVsCodeApi` is the stub VS Code injects
 * (its state kept as the JSON VS Code stores), and frames run when the caller flushes them. A
 * MutationObserver counts the DOM work each message causes. Each `loadRoom` is a fresh view, as
 * after a window reload, holding the state the previous view saved.
 */
import { createRequire } from 'node:module';
import { JSDOM } from 'jsdom';
import type { MeetingEvent } from '@roundtable/protocol';
import { panel, runMeeting, turns } from './meetings';

const load = createRequire(__filename);
const ROOM = load.resolve('../../webview/src/room.ts');

const BODY = `<div class="controls"><textarea id="post-text"></textarea>
<button id="post" type="button">Post</button><button id="review" type="button" hidden>Review Digest</button></div>
<main id="room"></main>`;

let dom: JSDOM | undefined;
let frames: FrameRequestCallback[] = [];

/** One jsdom document for the process (lit binds the document it first sees), set up before lit loads. */
export function domOnce(): JSDOM {
  if (dom) return dom;
  dom = new JSDOM('<!DOCTYPE html><body></body>', { pretendToBeVisual: false });
  const w = dom.window;
  const globals: Record<string, unknown> = {
    document: w.document,
    customElements: w.customElements,
    ...Object.fromEntries(
      [
        'Document',
        'Node',
        'Element',
        'HTMLElement',
        'CSSStyleSheet',
        'ShadowRoot',
        'MutationObserver',
        'NodeFilter',
      ].map((k) => [k, w[k as keyof typeof w]]),
    ),
    requestAnimationFrame: (cb: FrameRequestCallback) => frames.push(cb),
    cancelAnimationFrame: () => undefined,
  };
  for (const [k, v] of Object.entries(globals)) Object.defineProperty(globalThis, k, { value: v, configurable: true });
  return dom;
}

export interface DomWork {
  /** Nodes put into the DOM (each added subtree counted node by node). */
  added: number;
  removed: number;
  /** Attribute and text changes on nodes already there. */
  changed: number;
  /** Timeline entries whose Markdown body was asked for (each a rebuilt entry; the text itself is cached). */
  entries: number;
  /** Timeline entries and keys the view visited (built, compared or keyed: `timelineWork` in webview/src/timeline.ts). */
  visited: number;
}

export interface RoomView {
  /** A message from the extension. */
  send(msg: unknown): void;
  /** Runs the frames the view asked for (its coalesced render). */
  flush(): void;
  readonly root: HTMLElement;
  /** What the view posted to the extension. */
  readonly posted: unknown[];
  /** The JSON of each `setState` call, in order. */
  readonly stateWrites: string[];
  /** The state VS Code would hand a reloaded view. */
  state(): unknown;
  /** DOM work since the last call. */
  takeWork(): DomWork;
}

let markdownAsks = 0;
/** Counts the Markdown bodies the room asks for (wraps the real cache, which still answers). */
function countMarkdown(): void {
  const { MarkdownCache } = load('../../webview/src/markdown') as typeof import('../../webview/src/markdown');
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the instance as `this`
  const html = MarkdownCache.prototype.html;
  if ((html as { counted?: true }).counted) return;
  const counted = function (this: InstanceType<typeof MarkdownCache>, key: string, text: string): string {
    // The rolling summary and the digest are asked for on every frame (cached); entries are what is counted.
    if (key !== 'summary' && key !== 'digest') markdownAsks++;
    return html.call(this, key, text);
  };
  MarkdownCache.prototype.html = Object.assign(counted, { counted: true as const });
}

function subtreeSize(n: Node): number {
  let count = 1;
  for (let c = n.firstChild; c; c = c.nextSibling) count += subtreeSize(c);
  return count;
}

/** Loads a fresh room view; `state` is what `getState` returns (a reload), undefined for a first start. */
export function loadRoom(state?: unknown): RoomView {
  const d = domOnce();
  const doc = d.window.document;
  frames = [];
  // A fresh page: new elements, and a window of its own so an earlier view hears nothing.
  doc.body.innerHTML = BODY;
  const win = new EventTarget();
  Object.defineProperty(globalThis, 'window', { value: win, configurable: true });
  const stateWrites: string[] = [];
  const posted: unknown[] = [];
  let held = state === undefined ? undefined : JSON.stringify(state);
  Object.defineProperty(globalThis, 'acquireVsCodeApi', {
    configurable: true,
    value: () => ({
      postMessage: (m: unknown) => posted.push(JSON.parse(JSON.stringify(m))),
      getState: (): unknown => (held === undefined ? undefined : JSON.parse(held)),
      setState: (s: unknown) => {
        held = JSON.stringify(s);
        stateWrites.push(held);
      },
    }),
  });
  // A new module instance for each view (its state lives at module level, as in the webview).
  delete load.cache[ROOM];
  load(ROOM);
  countMarkdown();
  // The same module instance room.ts counts into (loaded through the same require).
  const walk = (load('../../webview/src/timeline') as typeof import('../../webview/src/timeline')).timelineWork;
  const root = doc.getElementById('room') as HTMLElement;
  const observer = new d.window.MutationObserver(() => undefined);
  observer.observe(doc.body, { subtree: true, childList: true, attributes: true, characterData: true });
  const takeWork = (): DomWork => {
    const w: DomWork = { added: 0, removed: 0, changed: 0, entries: markdownAsks, visited: walk.visited };
    markdownAsks = 0;
    walk.visited = 0;
    for (const r of observer.takeRecords()) {
      if (r.type === 'childList') {
        for (const n of r.addedNodes) w.added += subtreeSize(n);
        for (const n of r.removedNodes) w.removed += subtreeSize(n);
      } else w.changed++;
    }
    return w;
  };
  return {
    send: (data) => win.dispatchEvent(new MessageEvent('message', { data })),
    flush: () => {
      const run = frames;
      frames = [];
      for (const f of run) f(0);
    },
    root,
    posted,
    stateWrites,
    state: (): unknown => (held === undefined ? undefined : JSON.parse(held)),
    takeWork,
  };
}

/** A roundtable of `rounds` rounds (at most 100), `seats` workers who never agree: about `seats` messages a round. */
export async function longMeeting(rounds: number, seats = 5): Promise<MeetingEvent[]> {
  const named = ['ada', 'grace', 'linus', 'ken', 'barbara'];
  const workers = Array.from({ length: seats }, (_, i) => named[i] ?? `w${i + 1}`);
  const replies = Object.fromEntries(
    workers.map((w, i) => [w, turns(rounds, i === 0 ? 'DISAGREE' : 'AGREE', `point <b>${w}</b> *in* \`code\``)]),
  );
  const r = await runMeeting({
    script: { replies },
    participants: panel(workers, false),
    config: { maxRounds: rounds, tokenBudget: 10_000_000, stopWhenStable: false },
  });
  return r.events;
}

/** Answers the view's `room/ready` as the extension does: from its cursor if it holds this meeting, else all. */
export function answerReady(view: RoomView, log: readonly MeetingEvent[]): void {
  const ready = view.posted.find((m) => (m as { type?: string }).type === 'room/ready') as
    { sinceSeq: number; meetingId?: string } | undefined;
  const meetingId = log[0]?.meetingId ?? null;
  const from = ready?.meetingId === meetingId ? (ready?.sinceSeq ?? 0) : 0;
  view.send({ type: 'room/reset', meetingId });
  for (const event of log.slice(from)) view.send({ type: 'room/event', event });
}

/**
 * A longer meeting than the daemon runs in a test's time (it allows 100 rounds): `log`'s opening and
 * first round, then its second round again and again as rounds 2 to `rounds` (each renumbered: seq,
 * round, message ids), left running. What a room sees of a meeting `rounds` rounds long.
 */
export function extendMeeting(log: readonly MeetingEvent[], rounds: number): MeetingEvent[] {
  const starts = log.flatMap((e, i) => (e.type === 'round_started' ? [i] : []));
  const [, second = 0, third = log.length] = starts;
  const out = log.slice(0, second);
  for (let r = 2; r <= rounds; r++)
    for (const e of log.slice(second, third)) {
      const x = { ...e, seq: out.length + 1 } as MeetingEvent & { round?: number; messageId?: string };
      if (typeof x.round === 'number') x.round += r - 2;
      if (typeof x.messageId === 'string') x.messageId = x.messageId.replace(/^r2-/, `r${r}-`);
      out.push(x);
    }
  return out;
}
