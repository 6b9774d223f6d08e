/**
 * The scope of the decision record in the digest review (issue 33): the paths the decision
 * governs, proposed from the meeting's context (files, folders and globs attached, a selection's
 * file) and editable before Accept, one glob per line. Checked with the rulebook's own glob check
 * before anything is sent; a problem is one line under the box.
 */
import type { MeetingState } from '@roundtable/protocol';
import { parseScopeInput, proposedScope } from '@roundtable/protocol';
import { el } from './dom';

/** The box's text as first shown: the proposed globs, one a line (empty when the meeting had no context). */
export const proposedScopeText = (s: MeetingState): string => proposedScope(s).join('\n');

export function scopeSection(doc: Document, s: MeetingState, draft: string | undefined): HTMLElement {
  const text = draft ?? proposedScopeText(s);
  const area = el(doc, 'textarea', {
    id: 'scope',
    rows: String(Math.min(6, Math.max(2, text.split('\n').length))),
    spellcheck: 'false',
    placeholder: 'src/db/**\ndocs/schema.sql',
    'aria-describedby': 'scope-help scope-error',
    'data-testid': 'scope',
  });
  area.value = text;
  area.textContent = text;
  return el(
    doc,
    'section',
    { class: 'scope-review' },
    el(doc, 'label', { for: 'scope' }, el(doc, 'h3', {}, 'Scope')),
    el(
      doc,
      'p',
      { id: 'scope-help', class: 'quiet' },
      text.trim()
        ? 'The paths this decision governs, from the meeting’s context: a review holds every change to them to it. One glob per line; edit or clear.'
        : 'The paths this decision governs (none proposed: the meeting had no context). One glob per line, e.g. src/db/**.',
    ),
    area,
    el(doc, 'p', { id: 'scope-error', class: 'error', role: 'alert', 'data-testid': 'scope-error' }),
  );
}

/** The globs in the box, or the first problem in one line (shown under it). */
export function readScope(doc: Document): { ok: true; globs: string[] } | { ok: false; error: string } {
  const area = doc.getElementById('scope') as HTMLTextAreaElement | null;
  return area ? parseScopeInput(area.value) : { ok: true, globs: [] };
}
