/**
 * Browser side of the digest review: the digest rendered (Edit shows its Markdown), and for
 * consensus meetings the voting matrix, verdict and conflicts. Accept, Reject or Run Another Round;
 * for an escalated consensus meeting, Pick an option, Another Round or Defer. The person's edits
 * survive the panel re-rendering on a new event; links open the files the meeting wrote.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-progress-ring/index.js';
import type { MeetingEvent, ToWebview } from '@roundtable/protocol';
import { checkToWebview, fold, visibleDeep } from '@roundtable/protocol';
import { reviewMarkdown } from '@roundtable/protocol/digestMarkdown';
import { renderDigestView, type ReviewContext } from './digestRender';
import { readScope } from './digestScope';
import { vscodeApi } from './vscodeApi';

interface Saved {
  events: MeetingEvent[];
  files?: ToWebview['digest/files'];
  /** The draft and the digest it was made from: a new digest (another round) drops it. */
  draft?: { base: string; text: string };
  /** The record's scope as edited, for the same digest. */
  scopeDraft?: { base: string; text: string };
  editing?: boolean;
}

const api = vscodeApi<Saved>();
const root = document.getElementById('digest') as HTMLElement;
let saved: Saved = api.getState() ?? { events: [] };

function save(patch: Partial<Saved>): void {
  saved = { ...saved, ...patch };
  api.setState(saved);
}

function textArea(): HTMLTextAreaElement | null {
  return document.getElementById('digest-text') as HTMLTextAreaElement | null;
}

function show(): void {
  const s = fold(saved.events);
  const base = reviewMarkdown(s);
  const draft = saved.draft && saved.draft.base === base ? saved.draft.text : undefined;
  const ctx: ReviewContext = { editing: saved.editing === true };
  if (saved.files) {
    ctx.files = saved.files;
    if (saved.files.decidedBy) ctx.decidedBy = saved.files.decidedBy;
  }
  if (draft !== undefined) ctx.draft = draft;
  if (saved.scopeDraft?.base === base) ctx.scopeDraft = saved.scopeDraft.text;
  root.replaceChildren(renderDigestView(document, s, ctx));
  const scopeBox = document.getElementById('scope') as HTMLTextAreaElement | null;
  scopeBox?.addEventListener('input', () => {
    save({ scopeDraft: { base, text: scopeBox.value } });
    // The problem said under the box was about the text before this edit.
    const problem = document.getElementById('scope-error');
    if (problem) problem.textContent = '';
  });

  textArea()?.addEventListener('input', () => save({ draft: { base, text: textArea()?.value ?? '' } }));
  const text = () => textArea()?.value ?? '';
  const instruction = () => (document.getElementById('instruction') as HTMLTextAreaElement | null)?.value.trim() ?? '';
  const on = (id: string, fn: () => void) => document.getElementById(id)?.addEventListener('click', fn);
  on('edit-toggle', () => {
    save({ editing: !saved.editing, draft: { base, text: text() } });
    show();
    if (saved.editing) textArea()?.focus();
  });
  on('accept', () => {
    const scope = readScope(document);
    const problem = document.getElementById('scope-error');
    if (problem) problem.textContent = scope.ok ? '' : scope.error;
    if (!scope.ok) return scopeBox?.focus();
    api.postMessage({ type: 'digest/decide', decision: 'accepted', digestText: text(), scope: scope.globs });
  });
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
  on('retry', () => api.postMessage({ type: 'digest/retry' }));
  for (const a of root.querySelectorAll<HTMLElement>('[data-open]'))
    a.addEventListener('click', (ev) => {
      ev.preventDefault();
      const file = a.dataset.open;
      if (file === 'minutes' || file === 'decision') api.postMessage({ type: 'digest/open', file });
    });
}

/** The message in the panel's error line; false when the panel has none (nothing rendered yet). */
function showError(message: string): boolean {
  const e = document.getElementById('error');
  if (e) e.textContent = message;
  return e !== null;
}

/**
 * A log the panel refused or could not render: said in the panel (in place of "Loading the
 * meeting…", which would otherwise stay for ever) and in the extension's log, never dropped.
 */
function cannotShow(what: string): void {
  clearInterval(askAgain); // the same log would be refused again
  const line = `The review could not show this meeting: ${what}. Close it and open it again from the room; the Roundtable log has the details.`;
  if (!showError(line))
    root.replaceChildren(
      Object.assign(document.createElement('p'), { className: 'error', role: 'alert', textContent: line }),
    );
  api.postMessage({ type: 'digest/problem', message: what.slice(0, 2_000) });
}

window.addEventListener('message', (ev: MessageEvent<unknown>) => {
  const checked = checkToWebview(ev.data);
  if (!checked.ok) {
    // Only the extension posts to the panel; another sender's message (no digest type) is not ours to report.
    const type = (ev.data as { type?: unknown } | null)?.type;
    if (typeof type === 'string' && type.startsWith('digest/'))
      cannotShow(`its ${type.slice(0, 40)} was refused (${checked.error})`);
    return;
  }
  // Bidi controls as escapes, zero-width characters out of names and markers: as in the room and minutes.
  const msg = visibleDeep(checked.value);
  try {
    if (msg.type === 'digest/show') {
      // A log always opens with its meeting: an empty one (history not arrived yet) is asked for again.
      if (msg.events.length === 0) return;
      save({ events: msg.events });
      show();
    } else if (msg.type === 'digest/files') {
      const { type: _type, ...files } = msg;
      save({ files });
      // The links go with the log: before it comes, "Loading the meeting…" stays (not an empty meeting).
      if (saved.events.length > 0) show();
    } else if (msg.type === 'digest/error') {
      showError(msg.message);
    }
  } catch (e) {
    cannotShow(`rendering it failed (${(e as Error).message})`);
  }
});

if (saved.events.length > 0) show();
api.postMessage({ type: 'digest/ready' });
// The log answers `digest/ready`; one lost while the panel loaded (the review then stayed on
// "Loading the meeting…", seen in the e2e runs) is asked for again, once a second, until it comes.
const askAgain = setInterval(() => {
  if (saved.events.length > 0) clearInterval(askAgain);
  else api.postMessage({ type: 'digest/ready' });
}, 1000);
