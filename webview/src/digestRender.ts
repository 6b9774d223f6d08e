/**
 * Rendering of the digest review panel from the folded meeting state (tested in jsdom): the
 * outcome in words, the digest as rendered Markdown (editable as Markdown until decided), the
 * consensus matrix, verdict and conflicts, links to the files the meeting wrote, and the actions
 * while a decision is open. After a decision the panel is read-only and says who decided when.
 */
import type { MeetingState } from '@roundtable/protocol';
import { reviewOutcome, reviewSummary, shownVotesOn, terminationLabel } from '@roundtable/protocol';
import { finalDecision, reviewMarkdown } from '@roundtable/protocol/digestMarkdown';
import { renderMarkdown } from './markdown';
import { demoNote, noDecisionOf } from './outcome';
import { el } from './dom';
import { scopeSection } from './digestScope';

/** What the panel knows besides the log: the files written, who decides, the person's draft. */
export interface ReviewContext {
  files?: { minutes?: string; decision?: string };
  decidedBy?: string;
  /** The digest Markdown as the person is editing it (kept across re-renders). */
  draft?: string;
  /** Show the Markdown editor instead of the rendered digest. */
  editing?: boolean;
  /** The record's scope as the person is editing it (one glob a line). */
  scopeDraft?: string;
}

const DECIDED: Record<string, string> = { accepted: 'accepted', rejected: 'rejected' };

/**
 * A finished review in words: what its findings came to, or why it could not be done. It is no
 * decision: nothing to accept or reject, its upheld findings are in the Problems panel.
 */
function reviewOutcomeLine(doc: Document, s: MeetingState): HTMLElement {
  const { exit, why, findings } = reviewOutcome(s, 'blocking');
  return el(
    doc,
    'p',
    { class: `outcome outcome-${exit === 3 ? 'failed' : 'ok'}`, 'data-testid': 'outcome' },
    exit === 3
      ? `The review could not be done: ${why ?? 'it was not read or counted whole'}.`
      : `Review finished: ${reviewSummary(s, findings)}. A review is no decision to accept: its upheld findings are in the Problems panel.`,
  );
}

function outcomeLine(doc: Document, s: MeetingState): HTMLElement | undefined {
  if (!s.closed) return undefined;
  if (s.config.review) return reviewOutcomeLine(doc, s);
  const rounds = `${s.rounds.length} round${s.rounds.length === 1 ? '' : 's'}`;
  const detail = s.closed.reason === 'error' && s.closed.detail ? ` — ${s.closed.detail}` : '';
  return el(
    doc,
    'p',
    { class: `outcome outcome-${s.closed.reason === 'error' ? 'failed' : 'ok'}`, 'data-testid': 'outcome' },
    `${terminationLabel(s.closed.reason)} after ${rounds}${detail}`,
  );
}

function progress(doc: Document, text: string): HTMLElement {
  return el(
    doc,
    'p',
    { class: 'progress', role: 'status', 'aria-live': 'polite', 'data-testid': 'progress' },
    el(doc, 'vscode-progress-ring', { 'aria-hidden': 'true' }),
    el(doc, 'span', {}, text),
  );
}

function digestSection(doc: Document, s: MeetingState, ctx: ReviewContext, readOnly: boolean): HTMLElement {
  const text = readOnly ? reviewMarkdown(s) : (ctx.draft ?? reviewMarkdown(s));
  const editing = !readOnly && ctx.editing === true;
  const area = el(doc, 'textarea', {
    id: 'digest-text',
    rows: '16',
    'data-testid': 'digest-text',
    'aria-label': 'Digest (Markdown)',
    ...(editing ? {} : { hidden: '' }),
    ...(readOnly ? { readonly: '' } : {}),
  });
  area.value = text;
  area.textContent = text;
  const head = el(doc, 'div', { class: 'section-head' }, el(doc, 'h3', {}, 'Digest'));
  if (!readOnly)
    head.append(
      el(
        doc,
        'vscode-button',
        { id: 'edit-toggle', secondary: '', 'data-testid': 'edit-toggle', 'aria-pressed': String(editing) },
        editing ? 'Preview' : 'Edit',
      ),
    );
  const rendered = renderMarkdown(doc, text, { 'data-testid': 'digest-rendered', id: 'digest-rendered' });
  if (editing) rendered.hidden = true;
  return el(doc, 'section', { class: 'digest-review' }, head, rendered, area);
}

/** Who voted what on each option: a row per worker of the last round, a column per option. */
function votingMatrix(doc: Document, s: MeetingState, last: MeetingState['rounds'][number]): HTMLElement {
  // A review's votes on a finding: the last round that voted on it (a challenge round votes on the contested ones).
  const voteOfs = s.options.map((o) => shownVotesOn(s, o.id));
  const cell = (w: string, voteOf: ReturnType<typeof shownVotesOn>) => {
    const x = voteOf(w, last.ballots[w]);
    // A reviewer's own finding is its accept, not a vote it was asked for.
    const shown = x ? (x.proposed ? 'proposed' : `${x.vote} (${x.confidence.toFixed(2)})`) : '—';
    return el(doc, 'td', { class: `vote-${x?.vote ?? 'none'}` }, shown);
  };
  return el(
    doc,
    'table',
    { class: 'matrix', 'data-testid': 'matrix' },
    el(
      doc,
      'thead',
      {},
      el(doc, 'tr', {}, el(doc, 'th', {}, 'Worker'), ...s.options.map((o) => el(doc, 'th', { title: o.label }, o.id))),
    ),
    el(
      doc,
      'tbody',
      {},
      ...Object.entries(last.ballots).map(([w, b]) =>
        el(
          doc,
          'tr',
          {},
          el(doc, 'th', {}, b.valid ? w : `${w} (invalid: ${b.invalidReason ?? '?'})`),
          ...voteOfs.map((voteOf) => cell(w, voteOf)),
        ),
      ),
    ),
  );
}

function consensusSection(doc: Document, s: MeetingState): HTMLElement[] {
  const last = [...s.rounds].reverse().find((r) => r.verdict);
  if (s.mode !== 'consensus' || !last?.verdict) return [];
  const v = last.verdict;
  const label = (id: string) => s.options.find((o) => o.id === id)?.label ?? id;
  const matrix = votingMatrix(doc, s, last);
  return [
    el(doc, 'h3', {}, 'Voting matrix'),
    el(doc, 'div', { class: 'matrix-scroll' }, matrix),
    el(doc, 'h3', {}, 'Verdict'),
    el(
      doc,
      'ul',
      { 'data-testid': 'verdicts' },
      ...v.results.map((r) => {
        // The verdict first (a finding's label is long); one refuted before the vote had no vote: it says why.
        const refuted = s.options.find((o) => o.id === r.option)?.finding?.refuted;
        const why = refuted
          ? `before the vote (${refuted})`
          : `(weighted acceptance ${Math.round(r.weightedAccept * 100)}%)`;
        return el(doc, 'li', {}, `${r.option}: ${r.verdict} ${why} — ${label(r.option)}`);
      }),
    ),
    // A review judges findings one by one: no agreement on one option to measure.
    ...(s.config.review
      ? []
      : [
          el(
            doc,
            'p',
            {},
            `Agreement ${Math.round(v.actualConsensus * 100)}% (threshold ${Math.round(v.consensusThreshold * 100)}%)${v.decision ? ` — decided for ${v.decision} ${label(v.decision)}` : ''}`,
          ),
        ]),
    el(doc, 'h3', {}, 'Conflicts'),
    v.conflicts.length === 0
      ? el(doc, 'p', {}, 'None.')
      : el(
          doc,
          'ul',
          { 'data-testid': 'conflicts' },
          ...v.conflicts.map((c) =>
            el(
              doc,
              'li',
              {},
              `${c.conflictId} ${c.severity} ${c.conflictType}: ${c.positions.map((p) => `${p.worker} ${p.vote} ${p.option} (${p.confidence.toFixed(2)})`).join('; ')} — ${c.resolution}`,
            ),
          ),
        ),
  ];
}

function filesLine(doc: Document, files: ReviewContext['files']): HTMLElement | undefined {
  const links: HTMLElement[] = [];
  const link = (key: 'minutes' | 'decision', title: string) => {
    const file = files?.[key];
    if (!file) return;
    links.push(
      el(
        doc,
        'li',
        {},
        `${title}: `,
        el(doc, 'a', { href: '#', 'data-open': key, 'data-testid': `open-${key}`, title: `Open ${file}` }, file),
      ),
    );
  };
  link('minutes', 'Minutes');
  link('decision', 'Decision record');
  return links.length > 0 ? el(doc, 'ul', { class: 'files', 'data-testid': 'files' }, ...links) : undefined;
}

function instructionBox(doc: Document): HTMLElement {
  return el(doc, 'textarea', {
    id: 'instruction',
    rows: '3',
    placeholder: 'Instruction for another round',
    'aria-label': 'Instruction for another round',
  });
}

export function renderDigestView(doc: Document, s: MeetingState, ctx: ReviewContext = {}): HTMLElement {
  const decided = finalDecision(s);
  const root = el(doc, 'div', { class: 'review' }, el(doc, 'h2', {}, `Review: ${s.topic}`));
  // What a person must know before reading on: a demo answers nothing; no decision means nothing to accept.
  const demo = demoNote(s);
  if (demo)
    root.append(
      el(
        doc,
        'p',
        { class: 'demo-line', 'data-testid': 'demo' },
        el(doc, 'span', { class: 'demo-badge' }, 'Demo'),
        ` ${demo}`,
      ),
    );
  // A review decides nothing: no banner, no editing, no scope, no Accept (its findings are its outcome).
  const review = s.config.review !== undefined;
  const noDecision = decided || review ? undefined : noDecisionOf(s);
  if (noDecision) root.append(noDecisionBanner(doc, noDecision));
  const outcome = outcomeLine(doc, s);
  if (outcome) root.append(outcome);
  if (decided) {
    const on = new Date(decided.at).toISOString().slice(0, 10);
    root.append(
      el(
        doc,
        'p',
        { class: `decided decided-${decided.decision}`, 'data-testid': 'decided' },
        `Decided: ${DECIDED[decided.decision] ?? decided.decision}${ctx.decidedBy ? ` by ${ctx.decidedBy}` : ''} on ${on}`,
      ),
    );
  }
  const files = filesLine(doc, ctx.files);
  if (files) root.append(files);

  // A digest without a decision is read, not edited: there is nothing to accept it as.
  if (s.digest || decided)
    root.append(digestSection(doc, s, ctx, Boolean(decided) || noDecision !== undefined || review));
  // A review's findings and their verdicts (below) are its report: it waits for no digest.
  else if (s.status === 'closed' && !s.config.review) root.append(progress(doc, 'Writing the digest…'));
  else if (s.closeRequest) root.append(progress(doc, 'Closing the meeting…'));
  // The record's scope, edited before Accept (a failed meeting has nothing to accept).
  if (s.digest && !decided && !noDecision && !review && s.status !== 'awaiting_human' && s.closed?.reason !== 'error')
    root.append(scopeSection(doc, s, ctx.scopeDraft));
  root.append(...consensusSection(doc, s));
  root.append(...actionsOf(doc, s, Boolean(decided), noDecision !== undefined));
  root.append(el(doc, 'p', { id: 'error', class: 'error', role: 'alert' }));
  return root;
}

function noDecisionBanner(doc: Document, reason: string): HTMLElement {
  return el(
    doc,
    'div',
    { class: 'banner banner-error', role: 'alert', 'data-testid': 'no-decision' },
    el(doc, 'p', {}, el(doc, 'strong', {}, 'No decision to accept.'), ` ${reason}`),
    el(
      doc,
      'p',
      { class: 'banner-hint' },
      'Fix the cause (the model, its server or the key), then Retry: the meeting runs again with the same topic and panel.',
    ),
    el(doc, 'div', { class: 'actions' }, el(doc, 'vscode-button', { id: 'retry', 'data-testid': 'retry' }, 'Retry')),
  );
}

/** What the person can do now: answer an escalation, decide on the digest, or wait. */
function actionsOf(doc: Document, s: MeetingState, decided: boolean, noDecision: boolean): HTMLElement[] {
  if (s.config.review)
    return s.status === 'closed' || s.closeRequest
      ? []
      : [progress(doc, 'The review is running; its findings and their verdicts show here when it closes.')];
  if (s.status === 'awaiting_human') return escalationActions(doc, s);
  // Nothing to accept or reject: Retry (in the banner above) is the way on.
  if (noDecision) return [];
  if (s.digest && !decided) return digestActions(doc, s);
  if (decided || s.status === 'closed' || s.closeRequest) return [];
  // Another round clears the decision (so the new digest offers Accept again) and reopens the meeting.
  const again = s.reopenedAfterRound !== undefined;
  return [
    progress(
      doc,
      again
        ? 'Another round is running with your instruction; the new digest shows here when it ends.'
        : 'The meeting is still running; the review fills in when it closes or needs you.',
    ),
  ];
}

function escalationActions(doc: Document, s: MeetingState): HTMLElement[] {
  const select = el(
    doc,
    'select',
    { id: 'option', 'aria-label': 'Option' },
    ...s.options.map((o) => el(doc, 'option', { value: o.id }, `${o.id}: ${o.label}`)),
  );
  return [
    el(doc, 'h3', {}, 'Your decision is needed'),
    el(doc, 'p', { 'data-testid': 'reasons' }, s.escalation?.reasons.join('; ') ?? ''),
    el(doc, 'div', { class: 'actions' }, select, el(doc, 'vscode-button', { id: 'pick' }, 'Pick this option')),
    instructionBox(doc),
    el(
      doc,
      'div',
      { class: 'actions' },
      el(doc, 'vscode-button', { id: 'resolve-another', secondary: '' }, 'Run Another Round'),
      el(doc, 'vscode-button', { id: 'defer', secondary: '' }, 'Defer'),
    ),
  ];
}

function digestActions(doc: Document, s: MeetingState): HTMLElement[] {
  // A failed meeting decided nothing: there is nothing to accept, only to reject or run again.
  const failed = s.closed?.reason === 'error';
  return [
    ...(failed
      ? [
          el(
            doc,
            'p',
            { class: 'failed-note', 'data-testid': 'failed' },
            'The meeting failed, so there is no outcome to accept. Reject it, or run another round once the cause is fixed.',
          ),
        ]
      : []),
    el(
      doc,
      'div',
      { class: 'actions' },
      failed ? null : el(doc, 'vscode-button', { id: 'accept', 'data-testid': 'accept' }, 'Accept'),
      el(doc, 'vscode-button', { id: 'reject', ...(failed ? {} : { secondary: '' }) }, 'Reject'),
    ),
    instructionBox(doc),
    el(
      doc,
      'div',
      { class: 'actions' },
      el(doc, 'vscode-button', { id: 'another', secondary: '' }, 'Run Another Round'),
    ),
  ];
}
