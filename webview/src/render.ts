/**
 * The room view, from the folded meeting state plus the calls being written. lit templates: each
 * update touches only what changed, so a selection, an opened section and the scroll position
 * survive the next chunk. Agent text goes in as escaped text or through the HTML-free Markdown
 * renderer, never as markup: a model cannot inject HTML or script into the view.
 */
import { html, nothing, render, type TemplateResult } from 'lit';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import type { MeetingState } from '@roundtable/protocol';
import {
  billOf,
  currentRound,
  finalStances,
  formatBill,
  formatCount,
  roundLabel,
  terminationLabel,
  workersOf,
} from '@roundtable/protocol';
import { reviewMarkdown } from '@roundtable/protocol/digestMarkdown';
import type { LiveEntry } from '@roundtable/protocol';
import { MarkdownCache } from './markdown';
import { demoNote, noDecisionOf } from './outcome';
import { Timeline } from './timeline';
import { timelineTemplate } from './timelineList';
import { ballots, debateSection, stanceTable } from './positions';

export type MeetingPhase = 'empty' | 'running' | 'final_round' | 'awaiting_human' | 'closed';

/** The final round is the round announced as final (or planned so) once it has started, not the one crossing 80%. */
export function phaseOf(s: MeetingState): MeetingPhase {
  if (!s.meetingId) return 'empty';
  if (s.status === 'closed') return 'closed';
  if (s.status === 'awaiting_human') return 'awaiting_human';
  const r = currentRound(s);
  if (r?.final || (r && s.finalRound !== undefined && r.round >= s.finalRound)) return 'final_round';
  return 'running';
}

export function phaseLabel(s: MeetingState): string {
  switch (phaseOf(s)) {
    case 'empty':
      return 'No meeting';
    case 'running':
      return 'Running';
    case 'final_round':
      return 'Final round';
    case 'awaiting_human':
      return 'Awaiting your decision';
    case 'closed':
      return s.closed ? `Closed: ${terminationLabel(s.closed.reason)}` : 'Closed';
  }
}

/** What the room's chrome (outside the log) needs: the Cut confirmation, handlers, the connection line. */
export interface RoomUi {
  confirmingCut: boolean;
  /** A quiet line about the daemon connection, or an error to show ('' = nothing). */
  notice: { text: string; error: boolean };
  /** Messages that arrived while the reader was scrolled up. */
  unseen: number;
  onCut: () => void;
  onCutAnswer: (yes: boolean) => void;
  onCopy: (text: string) => void;
  onJumpToLatest: () => void;
  /** Starts the same meeting again (a meeting that produced no decision). */
  onRetry: () => void;
}

const noop = (): void => undefined;
export const QUIET_UI: RoomUi = {
  confirmingCut: false,
  notice: { text: '', error: false },
  unseen: 0,
  onCut: noop,
  onCutAnswer: noop,
  onCopy: noop,
  onJumpToLatest: noop,
  onRetry: noop,
};

const n = formatCount;

function cutControl(s: MeetingState, ui: RoomUi): TemplateResult | typeof nothing {
  const phase = phaseOf(s);
  if (phase !== 'running' && phase !== 'final_round') return nothing;
  if (!ui.confirmingCut)
    return html`<button class="cut secondary" id="cut" type="button" aria-label="Cut the meeting" @click=${ui.onCut}>
      Cut…
    </button>`;
  return html`<span class="cut-confirm" role="group" aria-label="Confirm cut">
    Cut the meeting?
    <button class="secondary" id="cut-yes" type="button" @click=${() => ui.onCutAnswer(true)}>Yes, cut</button>
    <button class="secondary" id="cut-no" type="button" @click=${() => ui.onCutAnswer(false)}>No</button>
  </span>`;
}

/** Said under the topic: the replies were scripted, so nothing here answers the topic. */
function demoLine(s: MeetingState): TemplateResult | typeof nothing {
  const note = demoNote(s);
  if (!note) return nothing;
  return html`<p class="demo-line" data-testid="demo"><span class="demo-badge">Demo</span> ${note}</p>`;
}

/** A closed meeting with nothing to accept says why first, and offers Retry (not Accept). */
function noDecisionBanner(s: MeetingState, ui: RoomUi): TemplateResult | typeof nothing {
  const why = noDecisionOf(s);
  if (!why || s.decision) return nothing;
  return html`<div class="banner banner-error" role="alert" data-testid="no-decision">
    <p><strong>No decision to accept.</strong> ${why}</p>
    <button type="button" id="retry" data-testid="retry" @click=${ui.onRetry}>Retry</button>
  </div>`;
}

function header(s: MeetingState, ui: RoomUi): TemplateResult {
  return html`<header class="room-header">
    <h2 class="topic" title=${s.topic}>${s.topic}</h2>
    ${demoLine(s)}
    <div class="meta">
      <span class="state state-${phaseOf(s)}" data-testid="state">${phaseLabel(s)}</span>
      <span class="round" data-testid="round">${roundLabel(s)}</span>
      <span class="mode">${s.mode}</span>
      ${cutControl(s, ui)}
    </div>
  </header>`;
}

/** Budget meter with the 80% mark, and the billed figure next to it. */
function budget(s: MeetingState): TemplateResult {
  const pct = Math.min(100, Math.round((s.spokenTokens / s.config.tokenBudget) * 100));
  const r = currentRound(s)?.round ?? 0;
  const announced = s.finalRound !== undefined;
  const cls = pct >= 100 ? 'exhausted' : announced ? 'final' : 'ok';
  const note = !announced ? '' : r >= (s.finalRound ?? 0) ? ' · final round' : ` · round ${s.finalRound} is the last`;
  const bill = billOf(s);
  const cost = bill.costUsd !== undefined ? ` · $${bill.costUsd.toFixed(bill.costUsd >= 1 ? 2 : 4)}` : '';
  return html`<div class="budget budget-${cls}" data-testid="budget">
    <div
      class="budget-bar"
      role="meter"
      aria-label="Spoken ${n(s.spokenTokens)} of ${n(s.config.tokenBudget)} tokens"
      aria-valuemin="0"
      aria-valuemax="100"
      aria-valuenow=${String(pct)}
    >
      <div class="budget-fill" style="width:${pct}%"></div>
      <div class="budget-mark" title="80%: the final round is announced"></div>
    </div>
    <span class="budget-label">${n(s.spokenTokens)} / ${n(s.config.tokenBudget)} tokens (${pct}%)${note}</span>
    <span class="bill" data-testid="bill" title=${formatBill(s, bill)}
      >billed ${n(bill.totalTokens)} tokens${cost}</span
    >
  </div>`;
}

function participants(s: MeetingState): TemplateResult {
  return html`<ul class="participants" data-testid="participants" aria-label="Participants">
    ${s.participants.map(
      (p) =>
        html`<li class="participant role-${p.role}">
          <strong>${p.name}</strong> ${p.role} · ${p.provider}:${p.model}
        </li>`,
    )}
  </ul>`;
}

/** What the panel was given to read at the start: each item with its size, and what was refused or cut. */
function contextSection(s: MeetingState): TemplateResult | typeof nothing {
  const c = s.context;
  if (!c || (c.items.length === 0 && c.refused.length === 0)) return nothing;
  const tokens = c.items.reduce((t, i) => t + i.tokens, 0);
  const what = (i: (typeof c.items)[number]): string =>
    i.kind === 'note' ? 'note' : i.kind === 'decision' ? `decision ${i.title ?? i.path ?? ''}` : (i.path ?? i.kind);
  return html`<vscode-collapsible
    title="Context: ${c.items.length} item${c.items.length === 1 ? '' : 's'}, ${n(tokens)} tokens${c.refused.length ? `, ${c.refused.length} refused` : ''}"
    class="context"
    data-testid="context"
  >
    <ul class="context-items">
      ${c.items.map(
        (i) =>
          html`<li>
            <span class="context-kind">${i.kind}</span> ${what(i)} · ${n(i.tokens)} tokens${i.truncated ? ' (cut)' : ''}
          </li>`,
      )}
      ${c.refused.map((r) => html`<li class="context-refused">refused ${r.path}: ${r.reason}</li>`)}
    </ul>
    ${c.cut ? html`<p class="context-cut">${c.cut}</p>` : nothing}
  </vscode-collapsible>`;
}

function closedSection(s: MeetingState, md: MarkdownCache): TemplateResult | typeof nothing {
  if (!s.closed) return nothing;
  const finals = finalStances(s);
  const demo = demoNote(s);
  return html`<section class="closed" data-testid="closed">
    <p>Ended: ${terminationLabel(s.closed.reason)}${s.closed.detail ? ` — ${s.closed.detail}` : ''}</p>
    ${demo ? html`<p class="demo-line"><span class="demo-badge">Demo</span> ${demo}</p>` : nothing}
    ${
      s.mode === 'roundtable'
        ? html`<p>
            Final stances:
            ${workersOf(s).map((w, i) =>
              // A worker that left has no stance: its failure is not read as one (UNKNOWN, counted neutral).
              s.left?.[w.name]
                ? html`${i ? ', ' : ''}${w.name} <span class="stance stance-none" data-testid="left">left</span>`
                : html`${i ? ', ' : ''}${w.name}
                    <span class="stance stance-${finals[w.name] ?? 'none'}">${finals[w.name] ?? '—'}</span>`,
            )}
          </p>`
        : nothing
    }
    ${
      s.digest
        ? // The digest as the review shows it (what was accepted, once decided), through the HTML-free renderer.
          html`<div class="digest md" data-testid="digest">${unsafeHTML(md.html('digest', reviewMarkdown(s)))}</div>`
        : nothing
    }
    ${s.decision ? html`<p class="decision" data-testid="decision">Decision: ${s.decision.decision}</p>` : nothing}
  </section>`;
}

/** What one container remembers between frames: rendered Markdown and the timeline last shown. */
interface RoomMemo {
  md: MarkdownCache;
  timeline: Timeline;
}

function roomTemplate(s: MeetingState, live: readonly LiveEntry[], ui: RoomUi, memo: RoomMemo): TemplateResult {
  const md = memo.md;
  const notice = ui.notice.text
    ? html`<p class="notice ${ui.notice.error ? 'error' : 'quiet'}" role="status">${ui.notice.text}</p>`
    : nothing;
  if (!s.meetingId)
    return html`${notice}
      <div class="empty" data-testid="empty">
        No meeting yet. Run "Roundtable: Start Roundtable" from the command palette.
      </div>`;
  memo.timeline.update(s, live);
  return html`${notice}
    <div class="room">
      ${header(s, ui)} ${noDecisionBanner(s, ui)} ${budget(s)} ${participants(s)} ${contextSection(s)} ${stanceTable(s)}
      ${ballots(s)} ${debateSection(s)}
      ${
        s.summary
          ? html`<vscode-collapsible title="Rolling summary" class="summary" data-testid="summary">
              <div class="summary-body md">${unsafeHTML(md.html('summary', s.summary))}</div>
            </vscode-collapsible>`
          : nothing
      }
      ${timelineTemplate(memo.timeline, md, { copy: ui.onCopy })} ${closedSection(s, md)}
      ${
        ui.unseen > 0
          ? html`<button class="jump" type="button" data-testid="new-messages" @click=${ui.onJumpToLatest}>
              ${ui.unseen === 1 ? '1 new message' : `${ui.unseen} new messages`} ↓
            </button>`
          : nothing
      }
    </div>`;
}

const memos = new WeakMap<HTMLElement, RoomMemo>();

/** Renders (or updates) the room into `container`. */
export function renderRoom(
  container: HTMLElement,
  s: MeetingState,
  live: readonly LiveEntry[],
  ui: RoomUi = QUIET_UI,
): void {
  let memo = memos.get(container);
  if (!memo) memos.set(container, (memo = { md: new MarkdownCache(), timeline: new Timeline() }));
  render(roomTemplate(s, live, ui, memo), container);
}
