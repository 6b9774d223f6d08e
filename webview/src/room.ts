/**
 * Browser side of the room view. Talks only to the extension through postMessage (never to the
 * daemon, so no token ever reaches this code). Its saved state is only the meeting it shows
 * (written when that changes, never per event): after being hidden or a window reload it asks the
 * extension for that meeting's log from the start, and applies each event once, in order, so it
 * shows exactly the log, nothing lost or doubled. Each event is folded once into the state, and
 * renders are coalesced to one per frame and incremental (lit, each timeline entry kept until it
 * changes), so an event touches only its entries and a storm of chunks neither thrashes nor wipes
 * a selection.
 */
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import type { MeetingEvent, MeetingState } from '@roundtable/protocol';
import { checkToWebview, evolve, fold, visibleDeep } from '@roundtable/protocol';
import { LiveMessages } from '@roundtable/protocol';
import { noDecisionOf } from './outcome';
import { phaseOf, renderRoom, type RoomUi } from './render';
import { vscodeApi } from './vscodeApi';

/** What VS Code keeps for the view: a bounded record (a state saved by an older release also held the log). */
interface Saved {
  meetingId: string | null;
}

const api = vscodeApi<Saved>();
const restored: unknown = api.getState();
/** The meeting shown; its log comes from the extension, from seq 1, after every load. */
let meetingId: string | null =
  restored && typeof restored === 'object' && typeof (restored as Saved).meetingId === 'string'
    ? (restored as Saved).meetingId
    : null;
// Rewritten bounded at once: an older release's saved log is not carried along.
api.setState({ meetingId });
/** The seq of the last event applied. */
let seq = 0;
let state: MeetingState = fold([]);
const live = new LiveMessages();

const roomEl = document.getElementById('room') as HTMLElement;
const postBox = document.getElementById('post-text') as HTMLTextAreaElement;
const postButton = document.getElementById('post') as HTMLButtonElement;
const reviewButton = document.getElementById('review') as HTMLButtonElement;
const scroller = document.scrollingElement ?? document.documentElement;

/** Being disconnected for less than this is a normal start or a reconnect, not worth a line. */
const CONNECTION_GRACE_MS = 3000;
let connectionNotice = '';
let connectionTimer: ReturnType<typeof setTimeout> | undefined;
let errorNotice = '';
let shownCount = 0;
/** The no-decision banner was brought into view once for this meeting (then the reader scrolls freely). */
let bannerShown = false;

const ui: RoomUi = {
  confirmingCut: false,
  notice: { text: '', error: false },
  unseen: 0,
  onCut: () => {
    ui.confirmingCut = true;
    scheduleRender();
    requestAnimationFrame(() => document.getElementById('cut-no')?.focus());
  },
  onCutAnswer: (yes) => {
    ui.confirmingCut = false;
    errorNotice = '';
    if (yes) api.postMessage({ type: 'room/cut' });
    scheduleRender();
  },
  onCopy: (text) => {
    const viaExtension = (): void => api.postMessage({ type: 'room/copy', text });
    if (navigator.clipboard?.writeText) navigator.clipboard.writeText(text).catch(viaExtension);
    else viaExtension();
  },
  onJumpToLatest: () => {
    scroller.scrollTop = scroller.scrollHeight;
  },
  onRetry: () => {
    if (meetingId) api.postMessage({ type: 'room/retry', meetingId });
  },
};

/** Near the bottom: new messages keep the view there. */
function atBottom(): boolean {
  return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 40;
}
let stick = true;
window.addEventListener('scroll', () => {
  stick = atBottom();
  if (stick && ui.unseen) {
    ui.unseen = 0;
    scheduleRender();
  }
});

function render(): void {
  const s = state;
  ui.notice = errorNotice ? { text: errorNotice, error: true } : { text: connectionNotice, error: false };
  const count = s.messages.length;
  if (!stick && count > shownCount) ui.unseen += count - shownCount;
  shownCount = count;
  renderRoom(roomEl, s, live.list(), ui);
  const phase = phaseOf(s);
  const running = phase === 'running' || phase === 'final_round';
  postButton.disabled = !running;
  postBox.disabled = !running;
  reviewButton.hidden = !(s.digest || s.status === 'awaiting_human');
  if (noDecisionOf(s) && !s.decision && !bannerShown) {
    // Nothing to accept: the reason and Retry, at the top, are what to read first, not the last message.
    bannerShown = true;
    stick = false;
    scroller.scrollTop = 0;
  } else if (stick) scroller.scrollTop = scroller.scrollHeight;
}

let frame = 0;
function scheduleRender(): void {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    render();
  });
}

function apply(e: MeetingEvent): void {
  // The extension relays a contiguous log from its MeetingMirror (the one gap check); this guards
  // the postMessage boundary, where a view may be sent events it already applied (nothing is doubled).
  if (e.meetingId !== meetingId || e.seq !== seq + 1) return;
  seq = e.seq;
  state = evolve(state, e);
  live.settle(e);
}

function setConnection(text: string): void {
  clearTimeout(connectionTimer);
  connectionTimer = undefined;
  if (!text) connectionNotice = '';
  else
    connectionTimer = setTimeout(() => {
      connectionNotice = text;
      scheduleRender();
    }, CONNECTION_GRACE_MS);
}

window.addEventListener('message', (ev: MessageEvent<unknown>) => {
  // The extension is trusted, but every message is still checked against the protocol's schema.
  const checked = checkToWebview(ev.data);
  if (!checked.ok) return;
  // Bidi controls as escapes, zero-width characters out of names and markers: as in the terminal and minutes.
  const msg = visibleDeep(checked.value);
  if (msg.type === 'room/reset') {
    if (msg.meetingId !== meetingId) {
      meetingId = msg.meetingId;
      seq = 0;
      state = fold([]);
      live.clear();
      ui.confirmingCut = false;
      ui.unseen = 0;
      shownCount = 0;
      stick = true;
      bannerShown = false;
      api.setState({ meetingId });
    }
  } else if (msg.type === 'room/event') {
    apply(msg.event);
  } else if (msg.type === 'room/delta') {
    if (msg.delta.meetingId === meetingId) live.delta(msg.delta, state);
  } else if (msg.type === 'room/connection') {
    setConnection(
      msg.state === 'connected'
        ? ''
        : msg.state === 'connecting'
          ? 'Reconnecting to the Roundtable daemon…'
          : `Not connected to the Roundtable daemon${msg.message ? `: ${msg.message}` : ''}`,
    );
    if (msg.state === 'connected') errorNotice = '';
  } else if (msg.type === 'room/error') {
    errorNotice = msg.message;
  }
  scheduleRender();
});

function post(): void {
  const text = postBox.value.trim();
  if (!text || postButton.disabled) return;
  errorNotice = '';
  api.postMessage({ type: 'room/post', text });
  postBox.value = '';
}
postButton.addEventListener('click', post);
postBox.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    post();
  }
});
reviewButton.addEventListener('click', () =>
  api.postMessage({ type: 'room/review', ...(meetingId ? { meetingId } : {}) }),
);

// A view that showed a meeting waits for its log (sent at once) rather than flash "No meeting yet".
if (!meetingId) render();
api.postMessage({ type: 'room/ready', sinceSeq: seq, ...(meetingId ? { meetingId } : {}) });
