/** Rendering of the digest review panel from the folded meeting state (tested in jsdom). */
import type { MeetingState } from '../../protocol/src';
import { el } from './render';

export function renderDigestView(doc: Document, s: MeetingState): HTMLElement {
  const last = [...s.rounds].reverse().find((r) => r.verdict);
  const awaiting = s.status === 'awaiting_human';
  const root = el(doc, 'div', { class: 'review' }, el(doc, 'h2', {}, `Review: ${s.topic}`));
  if (s.closed)
    root.append(
      el(doc, 'p', { class: 'ended' }, `Ended: ${s.closed.reason}${s.closed.detail ? ` — ${s.closed.detail}` : ''}`),
    );
  if (s.digest) {
    const area = el(doc, 'textarea', {
      id: 'digest-text',
      rows: '12',
      'data-testid': 'digest-text',
      'aria-label': 'Digest (editable)',
    });
    area.value = s.decision?.digestText ?? s.digest.text;
    area.textContent = area.value;
    root.append(el(doc, 'h3', {}, 'Digest'), area);
  }
  if (s.mode === 'consensus' && last?.verdict) {
    const v = last.verdict;
    root.append(
      el(doc, 'h3', {}, 'Voting matrix'),
      el(
        doc,
        'table',
        { class: 'matrix', 'data-testid': 'matrix' },
        el(
          doc,
          'thead',
          {},
          el(
            doc,
            'tr',
            {},
            el(doc, 'th', {}, 'Worker'),
            ...s.options.map((o) => el(doc, 'th', { title: o.label }, o.id)),
          ),
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
              ...s.options.map((o) => {
                const x = b.votes.find((y) => y.option === o.id);
                return el(
                  doc,
                  'td',
                  { class: `vote-${x?.vote ?? 'none'}` },
                  x ? `${x.vote} (${x.confidence.toFixed(2)})` : '—',
                );
              }),
            ),
          ),
        ),
      ),
      el(doc, 'h3', {}, 'Verdict'),
      el(
        doc,
        'ul',
        { 'data-testid': 'verdicts' },
        ...v.results.map((r) =>
          el(
            doc,
            'li',
            {},
            `${r.option} ${s.options.find((o) => o.id === r.option)?.label ?? ''}: ${r.verdict}, weighted acceptance ${Math.round(r.weightedAccept * 100)}%`,
          ),
        ),
      ),
      el(
        doc,
        'p',
        {},
        `Agreement ${Math.round(v.actualConsensus * 100)}% (threshold ${Math.round(v.consensusThreshold * 100)}%)${v.decision ? ` — decision ${v.decision}` : ''}`,
      ),
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
    );
  }
  if (awaiting) {
    const select = el(
      doc,
      'select',
      { id: 'option', 'aria-label': 'Option' },
      ...s.options.map((o) => el(doc, 'option', { value: o.id }, `${o.id}: ${o.label}`)),
    );
    root.append(
      el(doc, 'h3', {}, 'Your decision is needed'),
      el(doc, 'p', { 'data-testid': 'reasons' }, s.escalation?.reasons.join('; ') ?? ''),
      select,
      el(doc, 'vscode-button', { id: 'pick' }, 'Pick this option'),
      el(doc, 'textarea', { id: 'instruction', rows: '3', placeholder: 'Instruction for another round' }),
      el(doc, 'vscode-button', { id: 'resolve-another', secondary: '' }, 'Run Another Round'),
      el(doc, 'vscode-button', { id: 'defer', secondary: '' }, 'Defer'),
    );
  } else if (s.digest && !s.decision) {
    root.append(
      el(
        doc,
        'div',
        { class: 'actions' },
        el(doc, 'vscode-button', { id: 'accept', 'data-testid': 'accept' }, 'Accept'),
        el(doc, 'vscode-button', { id: 'reject', secondary: '' }, 'Reject'),
      ),
      el(doc, 'textarea', { id: 'instruction', rows: '3', placeholder: 'Instruction for another round' }),
      el(doc, 'vscode-button', { id: 'another', secondary: '' }, 'Run Another Round'),
    );
  } else if (s.decision) {
    root.append(
      el(doc, 'p', { class: 'decided', 'data-testid': 'decided' }, `Decision recorded: ${s.decision.decision}`),
    );
  } else {
    root.append(el(doc, 'p', {}, 'The meeting is still running; the review opens when it closes or needs you.'));
  }
  root.append(el(doc, 'p', { id: 'error', class: 'error', role: 'alert' }));
  return root;
}
