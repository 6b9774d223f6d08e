/**
 * The decision record in MADR 4.0 form (https://adr.github.io/madr/), as pure text (no VS Code
 * API) so it can be rendered and checked outside the editor. Front matter values are YAML-quoted;
 * every string from the meeting (topic, names, models, the reviewed digest) goes through the
 * escaping Markdown builder, so no model text can end the front matter or add a heading.
 */
import type { MeetingState } from '@roundtable/protocol';
import { formatBill, terminationLabel } from '@roundtable/protocol';
import { chosenOption, consensusLevelLabel, digestSections } from '@roundtable/protocol/digestMarkdown';
import {
  codeBlock,
  heading,
  inline,
  lineSafe,
  markdownBody,
  markdownLine,
  paragraph,
  yamlString,
} from '@roundtable/protocol/markdown';

export interface DecisionRecordInput {
  /** The meeting as folded from its log (decision recorded). */
  state: MeetingState;
  /** The digest as the person accepted it (Markdown, possibly edited). */
  digestText: string;
  /** The minutes, relative to the record's folder. */
  minutesLink: string;
  /** The person who accepted: git's user.name or the OS user. */
  decidedBy: string;
  /** Workspace-relative globs of the paths the decision governs (`scope:`), checked by `parseScopeInput`. */
  scope?: string[];
}

/** A list item whose text (escaped Markdown) cannot open a nested list, quote or heading. */
const item = (markdown: string) => `* ${lineSafe(markdown)}`;

function yamlList(key: string, values: string[]): string[] {
  return values.length === 0 ? [`${key}: []`] : [`${key}:`, ...values.map((v) => `  - ${yamlString(v)}`)];
}

/** A relative link target: no `<`, `>` or newline can leave the angle brackets. */
function linkTarget(rel: string): string {
  return `<${encodeURI(rel.replace(/[<>\n\r]/g, ''))}>`;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const rounds = (n: number) => `${n} round${n === 1 ? '' : 's'}`;

/** The "because …" of the outcome statement, from what settled the meeting (escaped where it holds text). */
function reasonFor(s: MeetingState, decidedBy: string): string {
  const d = s.digest?.digest;
  const verdict = [...s.rounds].reverse().find((r) => r.verdict)?.verdict;
  const picked = [...s.resolutions].reverse().find((r) => r.action === 'pick');
  if (s.mode === 'consensus' && picked && verdict)
    return `${inline(decidedBy)} picked it when the panel's vote could not settle the question (best weighted agreement ${pct(verdict.actualConsensus)}, threshold ${pct(verdict.consensusThreshold)}) after ${rounds(s.rounds.length)}`;
  if (s.mode === 'consensus' && verdict?.decision)
    return `the panel's vote accepted it with ${pct(verdict.actualConsensus)} weighted agreement (threshold ${pct(verdict.consensusThreshold)}) after ${rounds(s.rounds.length)}`;
  return [
    d ? `the panel reached ${consensusLevelLabel(d.consensus).toLowerCase()}` : 'the panel discussed it',
    d ? `(confidence ${d.confidence.toFixed(2)})` : '',
    `after ${rounds(s.rounds.length)}`,
    s.closed ? `and the meeting ended with “${terminationLabel(s.closed.reason)}”` : '',
    d?.seats ? `— ${inline(d.seats)}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** MADR 4.0 decision record text. */
export function decisionRecord(input: DecisionRecordInput): string {
  const { state: s, digestText, minutesLink, decidedBy, scope = [] } = input;
  const date = new Date(s.decision?.at ?? Date.now()).toISOString().slice(0, 10);
  const d = s.digest?.digest;
  const sections = digestSections(digestText);
  const models = [...new Set(s.participants.map((p) => p.model))];
  const option = s.mode === 'consensus' ? chosenOption(s) : undefined;
  const outcome = option ? inline(option) : markdownLine(sections.outcome ?? '') || inline(d?.consensusStatement ?? '');
  const lastVerdict = [...s.rounds].reverse().find((r) => r.verdict)?.verdict;
  const because = reasonFor(s, decidedBy);
  const considered =
    s.mode === 'consensus' && s.options.length > 0
      ? s.options.map((o) => item(inline(o.label)))
      : [item(outcome || 'The position the room reached'), '* No change for now'];
  const link = linkTarget(minutesLink);
  return [
    '---',
    `status: ${yamlString('accepted')}`,
    `date: ${yamlString(date)}`,
    // Read back by the rulebook (daemon/src/decisions): a review holds every change to these paths to it.
    ...(scope.length > 0 ? yamlList('scope', scope) : []),
    ...yamlList('decision-makers', [decidedBy, ...models]),
    ...yamlList(
      'consulted',
      s.participants.map((p) => `${p.name} (${p.role}, ${p.model})`),
    ),
    `minutes: ${yamlString(minutesLink)}`,
    '---',
    '',
    heading(1, s.topic.split('\n').find((l) => l.trim()) ?? s.topic),
    '',
    '## Context and Problem Statement',
    '',
    paragraph(s.topic),
    '',
    `A Roundtable of ${s.participants.filter((p) => p.role === 'worker').length} models discussed it; see the [minutes](${link}).`,
    '',
    ...(lastVerdict && lastVerdict.reasons.length > 0
      ? ['## Decision Drivers', '', ...lastVerdict.reasons.map((r) => item(inline(r))), '']
      : []),
    '## Considered Options',
    '',
    ...considered,
    '',
    '## Decision Outcome',
    '',
    `Chosen option: "${outcome || 'see the digest below'}", because ${because}.`,
    '',
    '### Consequences',
    '',
    ...(sections.dissent ? ['Dissent to keep in mind:', '', markdownBody(sections.dissent), ''] : []),
    ...(lastVerdict?.conflicts ?? []).map(
      (c) => `* Bad, because ${inline(`${c.conflictType} (${c.severity}): ${c.resolution}`)}`,
    ),
    ...(d
      ? // Both figures, named: spoken against the budget and what the calls billed (money where priced).
        [`* Cost: ${inline(formatBill(s))}.`]
      : []),
    '',
    '## More Information',
    '',
    `Minutes of the meeting: [${inline(minutesLink)}](${link}).`,
    ...(sections.contributions ? ['', 'Contributions:', '', markdownBody(sections.contributions)] : []),
    '',
    'The digest as accepted:',
    '',
    codeBlock(digestText, 'markdown'),
    '',
  ].join('\n');
}
