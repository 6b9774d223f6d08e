/**
 * Which Markdown files of a decisions folder are records. A file is a record when it looks like
 * one: its name is numbered or dated (`0005-…`, `ADR-015-…`, `001-…`, `20201016-…`), or its title
 * is numbered (`# 5. …`, `# ADR-0007: …`), or it writes a status, or it has a decision section
 * (`## Decision`, `## Decision Outcome`, `## Décision`, `## Entscheidung`, `## Decisión`…). Never a
 * record, whatever it holds: a README, an index or table of contents, the folder's changelog,
 * contributing guide or maintainers list, a template (by its name — `template.md`,
 * `adr-template-bare.md`, `0000-modele-adr.md`, `vorlage`, `plantilla` — or by its text: a status
 * that offers several statuses to choose from, `{proposed | accepted}`, `Proposed/Accepted`, or a
 * placeholder title, `[short title]`, `ADR-XXXX: …`),
 * and anything in a folder of templates, assets or reports. What is left out is listed with the
 * reason, never dropped silently.
 */
import * as path from 'node:path';
import { foldDiacritics } from '@roundtable/protocol';
import { readRecordFile, underFolder, type DecisionRecord, type ReadOptions } from './record';
import { isPlaceholderStatus } from './status';

/** A language tag before `.md` (`index.es.md`, `README.pt-BR.md`) is not part of the name. */
const LANGUAGE_TAG = /\.[a-z]{2}(?:[-_][a-z]{2,4})?$/i;

/** File names (folded, without `.md` and a language tag) that are never records, with what they are. */
const NOT_RECORD_NAMES: [RegExp, string][] = [
  [/^readme$/, 'a README'],
  [/^_?index$|^toc$|^summary$|^adr[-_ ]?log$|^decision[-_ ]?log$/, 'an index of the records'],
  [/^(changelog|changes|history)$/, 'a changelog'],
  [/^(contributing|code[-_]of[-_]conduct|security|license|licence)$/, 'a guide for contributors'],
  [/^(maintainers|codeowners|owners|authors|contributors)$/, 'a list of people'],
];

/**
 * A template's file name (folded): a template word with nothing but a number, `adr`, a variant or a
 * language code around it — `template`, `adr-template-bare-minimal`, `0000-modele-adr`,
 * `ADR-9999-TEMPLATE`, `0000-adr-template-de` — but not `0039-template-engine` or `0005-modelo-de-dados`.
 */
const TEMPLATE_NAME =
  /^(?:(?:adr|madr|decision|record|architecture)[-_ ]?|\d+[-_ ])*(?:templates?|vorlage|plantilla|plantilha|modele|modelo|skeleton|boilerplate)(?:[-_ ](?:adr|madr|decision|record|bare|minimal|short|long|full|simple|[a-z]{2}))*$/;

/** Folders (folded) whose files are not records: templates, assets, reports and notes. */
const NOT_RECORD_DIRS =
  /^(templates?|vorlagen?|plantillas?|modeles?|modelos?|assets|images?|img|attachments|diagrams|reports?|research|notes|meetings|resources)$/;

/** A title that is a template's placeholder: `[short title]`, `{title}`, `ADR-XXXX: …`, `NNNN. Título`, `ADR ${ID}`, `<title>`. */
const PLACEHOLDER_TITLE = /^[[{<].*[\]}>]$|^(?:adr[-_ #]*)?(?:x{3,}|n{3,})(?![a-z])|^(?:adr[-_ #]*)?\$\{/i;

/** Why a file is not a record by its name or its folder alone (nothing of it read), or undefined. */
export function skippedByName(relPath: string, folder?: string): string | undefined {
  const rel = underFolder(relPath, folder);
  const dirs = rel.split('/').slice(0, -1);
  const dir = dirs.find((d) => NOT_RECORD_DIRS.test(foldDiacritics(d.toLowerCase())));
  if (dir !== undefined) return `in a ${dir}/ folder, not a record`;
  const name = foldDiacritics(path.posix.basename(rel).toLowerCase()).replace(/\.md$/, '').replace(LANGUAGE_TAG, '');
  for (const [re, what] of NOT_RECORD_NAMES) if (re.test(name)) return `${what}, not a record`;
  if (TEMPLATE_NAME.test(name)) return 'a template (by its name), not a record';
  return undefined;
}

/** A file read: a record, or why it is not one. */
export type RecordRead = { ok: true; record: DecisionRecord } | { ok: false; reason: string };

/** One Markdown file of the decisions folder, read and judged by the record rule. */
export function readRecord(relPath: string, text: string, opts: ReadOptions = {}): RecordRead {
  const byName = skippedByName(relPath, opts.folder);
  if (byName) return { ok: false, reason: byName };
  const { record, shape } = readRecordFile(relPath, text, opts);
  if ((record.status !== undefined && isPlaceholderStatus(record.status)) || PLACEHOLDER_TITLE.test(record.title))
    return { ok: false, reason: 'a template (a placeholder status or title), not a record' };
  if (record.number === undefined && !shape.dated && !shape.hasStatus && !shape.decisionSection)
    return {
      ok: false,
      reason: 'not a record: no number or date in its name or title, no status, no decision section',
    };
  return { ok: true, record };
}
