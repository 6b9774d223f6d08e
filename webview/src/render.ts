/**
 * Rendering of the room view, from the folded meeting state. Pure DOM building so it can be
 * tested in jsdom on recorded logs. Everything an agent wrote goes in through textContent, never
 * as markup: a model cannot inject HTML or script into the view.
 */
import type { MeetingState, PostedMessage, StanceCell } from '../../protocol/src';
import { currentRound, finalStances, stanceMatrix, workersOf } from '../../protocol/src';

type Attrs = Record<string, string | undefined>;

export function el<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  attrs?: Attrs,
  ...children: (Node | string | null | undefined)[]
): HTMLElementTagNameMap[K];
export function el(
  doc: Document,
  tag: string,
  attrs?: Attrs,
  ...children: (Node | string | null | undefined)[]
): HTMLElement;
export function el(
  doc: Document,
  tag: string,
  attrs: Attrs = {},
  ...children: (Node | string | null | undefined)[]
): HTMLElement {
  const node = doc.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) node.setAttribute(k, v);
  for (const c of children) {
    if (c === null || c === undefined) continue;
    node.append(typeof c === 'string' ? doc.createTextNode(c) : c);
  }
  return node;
}

export type MeetingPhase = 'empty' | 'running' | 'final_round' | 'awaiting_human' | 'closed';

export function phaseOf(s: MeetingState): MeetingPhase {
  if (!s.meetingId) return 'empty';
  if (s.status === 'closed') return 'closed';
  if (s.status === 'awaiting_human') return 'awaiting_human';
  const r = currentRound(s);
  if (r?.final || s.finalRound !== undefined) return 'final_round';
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
      return `Closed: ${s.closed?.reason ?? '?'}${s.closed?.detail ? ` (${s.closed.detail})` : ''}`;
  }
}

function header(doc: Document, s: MeetingState): HTMLElement {
  const r = currentRound(s);
  return el(
    doc,
    'header',
    { class: 'room-header' },
    el(doc, 'h2', { class: 'topic', title: s.topic }, s.topic),
    el(
      doc,
      'div',
      { class: 'meta' },
      el(doc, 'vscode-badge', { class: `state state-${phaseOf(s)}`, 'data-testid': 'state' }, phaseLabel(s)),
      el(doc, 'span', { class: 'round', 'data-testid': 'round' }, `Round ${r?.round ?? 0} of ${s.config.maxRounds}`),
      el(doc, 'span', { class: 'mode' }, s.mode),
    ),
  );
}

/** Budget meter with the 80% mark; `final` once the final round was announced. */
function budget(doc: Document, s: MeetingState): HTMLElement {
  const pct = Math.min(100, Math.round((s.spokenTokens / s.config.tokenBudget) * 100));
  const cls = pct >= 100 ? 'exhausted' : s.finalRound !== undefined || pct >= 80 ? 'final' : 'ok';
  return el(
    doc,
    'div',
    {
      class: `budget budget-${cls}`,
      'data-testid': 'budget',
      role: 'meter',
      'aria-valuemin': '0',
      'aria-valuemax': '100',
      'aria-valuenow': String(pct),
    },
    el(
      doc,
      'div',
      { class: 'budget-bar' },
      el(doc, 'div', { class: 'budget-fill', style: `width:${pct}%` }),
      el(doc, 'div', { class: 'budget-mark', title: '80%: final round' }),
    ),
    el(
      doc,
      'span',
      { class: 'budget-label' },
      `${s.spokenTokens.toLocaleString('en-US')} / ${s.config.tokenBudget.toLocaleString('en-US')} tokens (${pct}%)${cls === 'final' ? ' · final round' : ''}`,
    ),
  );
}

function participants(doc: Document, s: MeetingState): HTMLElement {
  return el(
    doc,
    'ul',
    { class: 'participants', 'data-testid': 'participants' },
    ...s.participants.map((p) =>
      el(
        doc,
        'li',
        { class: `participant role-${p.role}` },
        el(doc, 'strong', {}, p.name),
        ` ${p.role} · ${p.provider}:${p.model}`,
      ),
    ),
  );
}

export function stanceTable(doc: Document, s: MeetingState): HTMLElement | null {
  const m = stanceMatrix(s);
  if (m.rounds.length === 0 || s.mode !== 'roundtable') return null;
  return el(
    doc,
    'table',
    { class: 'stances', 'data-testid': 'stances' },
    el(
      doc,
      'thead',
      {},
      el(doc, 'tr', {}, el(doc, 'th', {}, 'Agent'), ...m.rounds.map((r) => el(doc, 'th', {}, `R${r}`))),
    ),
    el(
      doc,
      'tbody',
      {},
      ...m.workers.map((w) =>
        el(
          doc,
          'tr',
          {},
          el(doc, 'th', {}, w),
          ...m.rounds.map((r) => {
            const c: StanceCell | '' = m.cells[w]?.[r] ?? '';
            return el(doc, 'td', { class: `stance stance-${c || 'none'}`, title: c }, c ? c : '·');
          }),
        ),
      ),
    ),
  );
}

function message(doc: Document, s: MeetingState, m: PostedMessage): HTMLElement {
  const stance = m.kind === 'contribution' ? s.rounds.find((r) => r.round === m.round)?.stances[m.from] : undefined;
  return el(
    doc,
    'article',
    { class: `message role-${m.role} kind-${m.kind}`, 'data-message-id': m.messageId },
    el(
      doc,
      'div',
      { class: 'message-head' },
      el(doc, 'strong', { class: 'from' }, m.from),
      el(doc, 'span', { class: 'role' }, m.kind === 'contribution' ? `round ${m.round}` : m.kind),
      stance ? el(doc, 'vscode-badge', { class: `stance stance-${stance.stance}` }, stance.stance) : null,
    ),
    el(doc, 'div', { class: 'message-body' }, m.text),
  );
}

function ballots(doc: Document, s: MeetingState): HTMLElement | null {
  if (s.mode !== 'consensus' || s.options.length === 0) return null;
  const last = [...s.rounds].reverse().find((r) => Object.keys(r.ballots).length > 0);
  const rows = Object.entries(last?.ballots ?? {});
  return el(
    doc,
    'section',
    { class: 'consensus', 'data-testid': 'ballots' },
    el(doc, 'h3', {}, `Options and votes${last ? ` (round ${last.round})` : ''}`),
    el(
      doc,
      'ul',
      { class: 'options' },
      ...s.options.map((o) => el(doc, 'li', {}, el(doc, 'strong', {}, o.id), ` ${o.label}`)),
    ),
    rows.length === 0
      ? null
      : el(
          doc,
          'table',
          { class: 'matrix' },
          el(
            doc,
            'thead',
            {},
            el(doc, 'tr', {}, el(doc, 'th', {}, 'Worker'), ...s.options.map((o) => el(doc, 'th', {}, o.id))),
          ),
          el(
            doc,
            'tbody',
            {},
            ...rows.map(([w, b]) =>
              el(
                doc,
                'tr',
                { class: b.valid ? '' : 'invalid' },
                el(doc, 'th', {}, b.valid ? w : `${w} (invalid)`),
                ...s.options.map((o) => {
                  const v = b.votes.find((x) => x.option === o.id);
                  return el(
                    doc,
                    'td',
                    { class: `vote vote-${v?.vote ?? 'none'}` },
                    v ? `${v.vote} ${v.confidence.toFixed(2)}` : '—',
                  );
                }),
              ),
            ),
          ),
        ),
    last?.verdict
      ? el(
          doc,
          'p',
          { class: 'verdict', 'data-testid': 'verdict' },
          `${last.verdict.results.map((r) => `${r.option}: ${r.verdict}`).join(' · ')} — agreement ${Math.round(last.verdict.actualConsensus * 100)}% of ${Math.round(last.verdict.consensusThreshold * 100)}%${last.verdict.decision ? ` — decision ${last.verdict.decision}` : ''}`,
        )
      : null,
    s.escalation
      ? el(
          doc,
          'p',
          { class: 'escalation', 'data-testid': 'escalation' },
          `Needs your decision: ${s.escalation.reasons.join('; ')}`,
        )
      : null,
  );
}

/** The whole room below the header controls. `live` holds messages being written (from deltas). */
export function renderRoom(
  doc: Document,
  s: MeetingState,
  live: Map<string, { from: string; round: number; text: string }>,
): HTMLElement {
  if (!s.meetingId) {
    return el(
      doc,
      'div',
      { class: 'empty', 'data-testid': 'empty' },
      'No meeting yet. Run "Roundtable: Start Roundtable" from the command palette.',
    );
  }
  const judges = s.rounds.filter((r) => r.judge?.text || r.judge?.converged);
  const finals = finalStances(s);
  const root = el(
    doc,
    'div',
    { class: 'room' },
    header(doc, s),
    budget(doc, s),
    participants(doc, s),
    stanceTable(doc, s),
    ballots(doc, s),
    el(doc, 'section', { class: 'messages', 'data-testid': 'messages' }, ...s.messages.map((m) => message(doc, s, m))),
    ...[...live.entries()].map(([id, m]) =>
      el(
        doc,
        'article',
        { class: 'message streaming', 'data-message-id': id },
        el(
          doc,
          'div',
          { class: 'message-head' },
          el(doc, 'strong', { class: 'from' }, m.from),
          el(doc, 'span', { class: 'role' }, 'writing…'),
        ),
        el(doc, 'div', { class: 'message-body' }, m.text),
      ),
    ),
    judges.length > 0
      ? el(
          doc,
          'section',
          { class: 'judge', 'data-testid': 'judge' },
          el(doc, 'h3', {}, 'Judge'),
          ...judges.map((r) =>
            el(
              doc,
              'p',
              {},
              el(doc, 'strong', {}, `Round ${r.round}: `),
              r.judge?.converged ? `CONVERGED — ${r.judge.converged}` : (r.judge?.text ?? ''),
            ),
          ),
        )
      : null,
    s.summary
      ? el(
          doc,
          'vscode-collapsible',
          { title: 'Rolling summary', class: 'summary', 'data-testid': 'summary' },
          el(doc, 'div', { class: 'summary-body' }, s.summary),
        )
      : null,
    s.closed
      ? el(
          doc,
          'section',
          { class: 'closed', 'data-testid': 'closed' },
          el(doc, 'p', {}, `Ended: ${s.closed.reason}${s.closed.detail ? ` — ${s.closed.detail}` : ''}`),
          s.mode === 'roundtable'
            ? el(
                doc,
                'p',
                {},
                `Final stances: ${workersOf(s)
                  .map((w) => `${w.name} ${finals[w.name] ?? '—'}`)
                  .join(', ')}`,
              )
            : null,
          s.digest ? el(doc, 'pre', { class: 'digest', 'data-testid': 'digest' }, s.digest.text) : null,
          s.decision
            ? el(doc, 'p', { class: 'decision', 'data-testid': 'decision' }, `Decision: ${s.decision.decision}`)
            : null,
        )
      : null,
  );
  return root;
}
