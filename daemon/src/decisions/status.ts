/**
 * A decision record's status as people write it, in English, French, German, Spanish, Portuguese
 * and Italian, normalised to the six statuses Roundtable knows. The words are compared lower-cased
 * with their accents taken off (`Accepté`, `accepte`, `ACCEPTÉE` read alike), struck-out text
 * (`~~Accepted~~ *Deprecated*`) and emphasis ignored. The field and section names that hold a
 * status are here too, so the parser and the docs have one list.
 */
import { foldDiacritics, type DecisionStatus } from '@roundtable/protocol';

/**
 * Names of a status field or section as written (a case-insensitive regex alternation): Status
 * (en, de, pt), Statut, État (fr), Estado (es, pt), Estatus (es), Stato (it).
 */
export const STATUS_NAMES = 'status|statut|[ée]tat|estado|estatus|stato';
/** Names of a date field: Date, Datum, Fecha, Data (pt, it). */
export const DATE_NAMES = 'date|datum|fecha|data';
/** Names of a deciders field: Deciders, Decision-makers, Décideurs, Décisionnaires, Entscheider, Decisores. */
export const DECIDER_NAMES = 'deciders|decision[- ]makers|d[ée]cideurs|d[ée]cisionnaires|entscheider|decisores';
/**
 * "Superseded by" as written in a status or a line, in each language, followed by what replaced
 * the record (its first group).
 */
export const SUPERSEDED_BY_TEXT =
  /(?:super[sc]eded[- ]by|replaced by|remplac[ée]e?s? par|ersetzt (?:durch|von)|abgel[öo]st (?:durch|von)|reemplazad[oa]s? por|sustituid[oa]s? por|substitu[íi]d[oa]s? por|sostituit[oa] da)\b(.*)$/i;

/** The first word or words of a status, per status (folded; `\b` after each). */
const STATUS_WORDS: [DecisionStatus, string[]][] = [
  [
    'accepted',
    [
      ...[
        'accepted',
        'accept',
        'approved',
        'adopted',
        'agreed',
        'decided',
        'done',
        'implemented',
        'active',
        'in force',
      ],
      ...['final', 'ratified', 'acceptee?s?', 'adoptee?s?', 'approuvee?s?', 'validee?s?', 'decidee?s?', 'en vigueur'],
      ...[
        'actif',
        'angenommen',
        'akzeptiert',
        'beschlossen',
        'genehmigt',
        'entschieden',
        'umgesetzt',
        'gultig',
        'aktiv',
      ],
      ...[
        'freigegeben',
        'aceptad[oa]s?',
        'aprobad[oa]s?',
        'adoptad[oa]s?',
        'vigente',
        'implementad[oa]s?',
        'activ[oa]',
      ],
      ...['aceit[oa]s?', 'aceite', 'aprovad[oa]s?', 'adotad[oa]s?', 'ativ[oa]', 'accettat[oa]', 'approvat[oa]'],
    ],
  ],
  [
    'proposed',
    [
      ...['proposed', 'proposal', 'draft', 'drafted', 'open', 'pending', 'under review', 'in review', 'in progress'],
      ...['discussion', 'wip', 'rfc', 'suggested', 'tentative', 'on hold', 'postponed', 'deferred', 'planned'],
      ...[
        'proposee?s?',
        'proposition',
        'brouillon',
        'en cours',
        'en discussion',
        'a valider',
        'en attente',
        'en revue',
      ],
      ...['ouvert', 'vorgeschlagen', 'entwurf', 'offen', 'in diskussion', 'in prufung', 'in bearbeitung', 'in arbeit'],
      ...['propuest[oa]', 'borrador', 'en revision', 'en discusion', 'pendiente', 'en progreso', 'abierto'],
      ...['propost[oa]', 'rascunho', 'em revisao', 'em discussao', 'pendente', 'em andamento', 'em analise', 'aberto'],
      ...['bozza'],
    ],
  ],
  [
    'rejected',
    [
      ...['rejected', 'declined', 'refused', 'dead', 'abandoned', 'withdrawn', 'not accepted', 'rejetee?s?'],
      ...['refusee?s?', 'abandonnee?s?', 'abgelehnt', 'verworfen', 'zuruckgewiesen', 'rechazad[oa]s?'],
      ...['descartad[oa]s?', 'rejeitad[oa]s?', 'recusad[oa]s?', 'rifiutat[oa]', 'respint[oa]'],
    ],
  ],
  [
    'deprecated',
    [
      ...['deprecated', 'obsolete', 'retired', 'outdated', 'archived', 'depreciee?s?', 'archivee?s?', 'veraltet'],
      ...['uberholt', 'abgekundigt', 'archiviert', 'ausser kraft', 'obsolet[oa]s?', 'deprecad[oa]s?', 'en desuso'],
      ...['archivad[oa]s?', 'depreciad[oa]s?', 'descontinuad[oa]s?', 'arquivad[oa]s?', 'deprecat[oa]'],
    ],
  ],
  [
    'superseded',
    [
      ...['superseded', 'superceded', 'replaced', 'remplacee?s?', 'ersetzt', 'abgelost', 'reemplazad[oa]s?'],
      ...['sustituid[oa]s?', 'substituid[oa]s?', 'sostituit[oa]'],
    ],
  ],
];

const FIRST_WORD: [DecisionStatus, RegExp][] = STATUS_WORDS.map(([status, words]) => [
  status,
  new RegExp(`^(?:${words.join('|')})\\b`),
]);

/** "Superseded by X" in any of the languages, anywhere in the status: it wins over the first word. */
const SUPERSEDED_BY =
  /super[sc]eded\b|replaced by|remplacee? par|ersetzt (?:durch|von)|abgelost (?:durch|von)|reemplazad[oa] por|sustituid[oa] por|substituid[oa] por|sostituit[oa] da/;

/** A status folded for comparison: lower case, no accents, struck-out text and emphasis gone. */
export function foldStatus(status: string): string {
  return foldDiacritics(status.toLowerCase())
    .replace(/~~[^~]*~~/g, ' ')
    .replace(/[*_`]/g, '')
    .trim();
}

/** A status as written, normalised: its first word decides; "superseded by" anywhere in it wins. */
export function normalizeStatus(status: string | undefined): DecisionStatus {
  if (!status) return 'unknown';
  const s = foldStatus(status);
  if (SUPERSEDED_BY.test(s)) return 'superseded';
  const word = s.replace(/^[^a-z]+/, '');
  return FIRST_WORD.find(([, re]) => re.test(word))?.[0] ?? 'unknown';
}

/**
 * Whether a status is a template's placeholder rather than a record's status: braces
 * (`{proposed | accepted}`), or two or more different statuses offered as alternatives, split by `|`
 * or `/` (`Proposed | Accepted | Deprecated`, `Proposed/Accepted/Rejected`, `[Vorgeschlagen | Akzeptiert]`).
 */
export function isPlaceholderStatus(status: string): boolean {
  // Hugo's `{{< ref "x.md" >}}` and Markdown links are not placeholders, and a `/` in a link is no choice.
  const bare = status.replace(/\{\{[<%].*?[>%]\}\}/g, ' ').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  if (/[{}]/.test(bare)) return true;
  const parts = foldStatus(bare)
    .replace(/^\[/, '')
    .split(/\s*[|/]\s*/);
  const known = new Set(
    parts
      .filter((p) => p.split(/\s+/).length <= 4)
      .map((p) => normalizeStatus(p))
      .filter((s) => s !== 'unknown'),
  );
  return known.size >= 2;
}
