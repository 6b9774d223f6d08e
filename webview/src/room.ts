/**
 * Browser side of the room view. Talks only to the extension through postMessage (never to the
 * daemon, so no token ever reaches this code). It keeps the meeting's log in the webview state,
 * so after being hidden or a window reload it asks only for what comes after its cursor and
 * shows exactly the log, nothing lost or doubled.
 */
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import type { MeetingEvent, MessageDelta } from '../../protocol/src';
import { checkToWebview, fold } from '../../protocol/src';
import { phaseOf, renderRoom } from './render';
import { vscodeApi } from './vscodeApi';

interface Saved {
  meetingId: string | null;
  events: MeetingEvent[];
}

const api = vscodeApi<Saved>();
let saved: Saved = api.getState() ?? { meetingId: null, events: [] };
const live = new Map<string, { from: string; round: number; text: string }>();
let connection = '';

const roomEl = document.getElementById('room') as HTMLElement;
const statusEl = document.getElementById('connection') as HTMLElement;
const postBox = document.getElementById('post-text') as HTMLTextAreaElement & { value: string };
const postButton = document.getElementById('post') as HTMLElement;
const cutButton = document.getElementById('cut') as HTMLElement;
const reviewButton = document.getElementById('review') as HTMLElement;

function render(): void {
  const s = fold(saved.events);
  roomEl.replaceChildren(renderRoom(document, s, live));
  const phase = phaseOf(s);
  const running = phase === 'running' || phase === 'final_round';
  cutButton.toggleAttribute('disabled', !running);
  postButton.toggleAttribute('disabled', !running);
  reviewButton.hidden = !(s.digest || s.status === 'awaiting_human');
  statusEl.textContent = connection;
}

function apply(e: MeetingEvent): void {
  if (e.meetingId !== saved.meetingId || e.seq !== saved.events.length + 1) return;
  saved.events.push(e);
  if (e.type === 'message_posted') live.delete(e.messageId);
  if (e.type === 'stance_recorded' || e.type === 'turn_failed') live.delete(`r${e.round}-${e.participant}`);
  api.setState(saved);
}

function delta(d: MessageDelta): void {
  if (d.meetingId !== saved.meetingId) return;
  const m = live.get(d.messageId) ?? { from: d.from, round: d.round, text: '' };
  m.text += d.text;
  live.set(d.messageId, m);
}

let frame = 0;
function scheduleRender(): void {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    render();
  });
}

window.addEventListener('message', (ev: MessageEvent<unknown>) => {
  // The extension is trusted, but every message is still checked against the protocol's schema.
  const checked = checkToWebview(ev.data);
  if (!checked.ok) return;
  const msg = checked.value;
  if (msg.type === 'room/reset') {
    if (msg.meetingId !== saved.meetingId) {
      saved = { meetingId: msg.meetingId, events: [] };
      live.clear();
      api.setState(saved);
    }
  } else if (msg.type === 'room/event') {
    apply(msg.event);
  } else if (msg.type === 'room/delta') {
    delta(msg.delta);
  } else if (msg.type === 'room/connection') {
    connection = msg.state === 'connected' ? '' : `Daemon ${msg.state}${msg.message ? `: ${msg.message}` : ''}`;
  } else if (msg.type === 'room/error') {
    connection = msg.message;
  }
  scheduleRender();
});

postButton.addEventListener('click', () => {
  const text = postBox.value.trim();
  if (!text) return;
  api.postMessage({ type: 'room/post', text });
  postBox.value = '';
});
cutButton.addEventListener('click', () => api.postMessage({ type: 'room/cut' }));
reviewButton.addEventListener('click', () =>
  api.postMessage({ type: 'room/review', ...(saved.meetingId ? { meetingId: saved.meetingId } : {}) }),
);

render();
api.postMessage({
  type: 'room/ready',
  sinceSeq: saved.events.length,
  ...(saved.meetingId ? { meetingId: saved.meetingId } : {}),
});
