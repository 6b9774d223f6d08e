/**
 * Browser side of the digest review: the digest (editable), and for consensus meetings the voting
 * matrix, verdict and conflicts. Accept, Reject or Run Another Round; for an escalated consensus
 * meeting, Pick an option, Another Round or Defer.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import type { MeetingEvent } from '../../protocol/src';
import { checkToWebview, fold } from '../../protocol/src';
import { renderDigestView } from './digestRender';
import { vscodeApi } from './vscodeApi';

const api = vscodeApi<{ events: MeetingEvent[] }>();
const root = document.getElementById('digest') as HTMLElement;

function show(events: MeetingEvent[]): void {
  const s = fold(events);
  root.replaceChildren(renderDigestView(document, s));
  const text = () => (document.getElementById('digest-text') as HTMLTextAreaElement | null)?.value ?? '';
  const instruction = () => (document.getElementById('instruction') as HTMLTextAreaElement | null)?.value.trim() ?? '';
  const on = (id: string, fn: () => void) => document.getElementById(id)?.addEventListener('click', fn);
  on('accept', () => api.postMessage({ type: 'digest/decide', decision: 'accepted', digestText: text() }));
  on('reject', () => api.postMessage({ type: 'digest/decide', decision: 'rejected', digestText: text() }));
  on('another', () => {
    if (!instruction()) return showError('Write an instruction for the extra round first.');
    api.postMessage({
      type: 'digest/decide',
      decision: 'another_round',
      digestText: text(),
      instruction: instruction(),
    });
  });
  on('pick', () => {
    const option = (document.getElementById('option') as HTMLSelectElement | null)?.value ?? '';
    api.postMessage({ type: 'digest/resolve', action: 'pick', option });
  });
  on('resolve-another', () => {
    if (!instruction()) return showError('Write an instruction for the extra round first.');
    api.postMessage({ type: 'digest/resolve', action: 'another_round', instruction: instruction() });
  });
  on('defer', () => api.postMessage({ type: 'digest/resolve', action: 'defer' }));
}

function showError(message: string): void {
  const e = document.getElementById('error');
  if (e) e.textContent = message;
}

window.addEventListener('message', (ev: MessageEvent<unknown>) => {
  const checked = checkToWebview(ev.data);
  if (!checked.ok) return;
  const msg = checked.value;
  if (msg.type === 'digest/show') {
    api.setState({ events: msg.events });
    show(msg.events);
  } else if (msg.type === 'digest/error') {
    showError(msg.message);
  }
});

const saved = api.getState();
if (saved) show(saved.events);
api.postMessage({ type: 'digest/ready' });
