/**
 * A decisions folder read as people keep it (issue 40): the status in every place and language a
 * team writes it, which files are records at all, one id per record even when two share a number
 * (and a citation that names exactly one of them), a search that finds word forms with title
 * matches first, and the one line a review gives when the folder holds records but no rule.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DecisionStatus } from '@roundtable/protocol';
import { recordIds, resolveCitation } from '../../daemon/src/decisions/ids';
import { searchRecords, wordForm } from '../../daemon/src/decisions/index';
import { parseRecord, type DecisionRecord } from '../../daemon/src/decisions/record';
import { readRecord, skippedByName } from '../../daemon/src/decisions/recordRule';
import { isPlaceholderStatus, normalizeStatus } from '../../daemon/src/decisions/status';
import { noRuleLine } from '../../daemon/src/review/rules';
import { refutation, reviewOptions } from '../../daemon/src/meeting/reviewFindings';
import { reviewSarif } from '../../daemon/src/review/sarif';
import { reviewMarkdown } from '../../daemon/src/review/markdown';
import type { Finding, ReviewScope, ReviewedFinding } from '@roundtable/protocol';

const stateOf = (text: string, file = 'docs/decisions/0001-x.md'): [DecisionStatus, string | undefined] => {
  const r = parseRecord(file, text, { unstatused: 'ignore' });
  return [r.state, r.status];
};

describe('the status, wherever a record writes it', () => {
  it('reads it from front matter, a section, a bullet, bold, a blockquote, a heading, a line of several fields, a table row and a checked box', () => {
    const cases: [string, string, [DecisionStatus, string]][] = [
      ['front matter', '---\nstatus: accepted\n---\n# X\n', ['accepted', 'accepted']],
      ['French front matter key', '---\nstatut: accepté\ndécideurs: Ada\n---\n# X\n', ['accepted', 'accepté']],
      ['Nygard section', '# 1. X\n\n## Status\n\nAccepted\n\n## Context\n', ['accepted', 'Accepted']],
      ['section with a colon', '# X\n\n## Status:\n\nProposed\n', ['proposed', 'Proposed']],
      ['bullet', '# X\n\n* Status: rejected\n', ['rejected', 'rejected']],
      ['bold bullet', '# X\n\n- **Status:** Deprecated\n', ['deprecated', 'Deprecated']],
      ['blockquote', '# X\n\n> Status: Aceito\n> Data: 2026-05-01\n', ['accepted', 'Aceito']],
      ['heading', '# 00108 X\n\nDate: 2026-09-01\n\n## Status: Accepted\n\n## Context\n', ['accepted', 'Accepted']],
      ['heading in bold', '# X\n\n## **Status:** Accepted\n', ['accepted', 'Accepted']],
      ['section in italics', '# X\n\n### *Status*\n\nRejected\n', ['rejected', 'Rejected']],
      [
        'heading, French',
        '# X\n\n## Statut : Accepté (2026-08-27)\n## Contexte :\n',
        ['accepted', 'Accepté (2026-08-27)'],
      ],
      ['heading with a dash', '# X\n\n## Status — Superseded by ADR-0009\n', ['superseded', 'Superseded by ADR-0009']],
      ['a line of fields', '# X\n\nDate : 05/08/2026 · Statut : accepté · Complète : 0027\n', ['accepted', 'accepté']],
      [
        'a line of fields, Spanish',
        '# X\n\nFecha: 2026-09-28 · Estado: rechazado · Cierra T60\n',
        ['rejected', 'rechazado'],
      ],
      ['table row', '# X\n\n| Field | Value |\n| --- | --- |\n| **Status** | Accepted |\n', ['accepted', 'Accepted']],
      ['checked box', '# X\n\n## Status\n\n- [ ] Proposed\n- [x] Rejected\n\n## Context\n', ['rejected', 'Rejected']],
      [
        'struck out',
        '# X\n\n## Status\n\n~~Accepted~~ *Deprecated - See ADR 017*\n',
        ['deprecated', '~~Accepted~~ *Deprecated - See ADR 017*'],
      ],
    ];
    assert.deepEqual(
      cases.map(([what, text]) => [what, ...stateOf(text)]),
      cases.map(([what, , want]) => [what, ...want]),
    );
  });

  it('takes front matter over a heading or section, and those over a Status line in the prose', () => {
    assert.deepEqual(stateOf('---\nstatus: ACTIVE\n---\n# X\n\n## Status\nAngenommen\n'), ['accepted', 'ACTIVE']);
    assert.deepEqual(stateOf('# X\n\nStatus: proposed\n\n## Status: Rejected\n'), ['rejected', 'Rejected']);
    assert.deepEqual(stateOf('# X\n\n## Status\n\nAccepted\n\n## Notes\n\nStatus: rejected once, then\n'), [
      'accepted',
      'Accepted',
    ]);
  });

  it('reads the status words of English, French, German, Spanish, Portuguese and Italian, whatever the case and accents', () => {
    const words: Record<DecisionStatus, string[]> = {
      accepted: [
        ...['Accepted', 'approved', 'Implemented'],
        ...['accepté', 'Acceptée', 'ACCEPTE', 'adopté', 'validée'],
        ...['Angenommen', 'akzeptiert', 'Beschlossen', 'gültig'],
        ...['Aceptado', 'aceptada', 'Aprobado', 'vigente'],
        ...['Aceito', 'aceita', 'aprovado'],
        ...['accettato'],
      ],
      proposed: [
        ...['Proposed', 'Draft', 'Tentative', 'on hold'],
        ...['proposé', 'Proposée', 'brouillon', 'en discussion'],
        ...['Vorgeschlagen', 'Entwurf', 'in Prüfung'],
        ...['Propuesto', 'borrador', 'en revisión'],
        ...['Proposto', 'rascunho', 'em análise'],
      ],
      rejected: [
        ...['Rejected', 'declined'],
        ...['rejeté', 'Refusée'],
        ...['abgelehnt', 'Verworfen'],
        ...['rechazado', 'descartada'],
        ...['Rejeitado', 'recusado'],
        ...['rifiutato'],
      ],
      deprecated: [
        ...['Deprecated', 'obsolete'],
        ...['déprécié', 'obsolète'],
        ...['veraltet', 'überholt'],
        ...['obsoleto', 'deprecado'],
        ...['descontinuado', 'depreciado'],
      ],
      superseded: [
        ...['Superseded', 'superceded by 5. X'],
        ...['remplacé', 'Remplacée par [ADR-0004](0004-x.md)'],
        ...['ersetzt', 'Ersetzt durch ADR 5', 'abgelöst durch ADR-0007'],
        ...['reemplazado', 'reemplazado por ADR-0197', 'Sustituido por 0005'],
        ...['substituído', 'Substituído por ADR-0003'],
        ...['sostituito'],
      ],
      unknown: ['RESOLVED', 'Amended by [4. X](0004-x.md)', ''],
    };
    for (const [want, list] of Object.entries(words))
      for (const w of list) assert.equal(normalizeStatus(w), want, `"${w}"`);
  });

  it('links what the status names: superseded by in any language, "accepted; supersedes ADR-0045", a link after "Superseded."', () => {
    const links = (status: string) =>
      parseRecord('docs/decisions/0001-x.md', `# X\n\n## Status\n\n${status}\n`).links.map((l) => [
        l.kind,
        l.target ?? l.label,
      ]);
    assert.deepEqual(links('Remplacé par [ADR-0004](0004-y.md)'), [['superseded-by', '0004-y.md']]);
    assert.deepEqual(links('Substituído por ADR-0003'), [['superseded-by', 'ADR-0003']]);
    assert.deepEqual(links('accepted; supersedes ADR-0045'), [['supersedes', 'ADR-0045']]);
    assert.deepEqual(links('Superseded.  [13. Use React](../013-react.md) is newer.'), [
      ['superseded-by', '../013-react.md'],
    ]);
    assert.deepEqual(links('Accepted.  Replaces [6. SSR](./deprecated/006-ssr.md).'), [
      ['supersedes', './deprecated/006-ssr.md'],
    ]);
  });

  it('tells a template status from a real one: braces, or several statuses offered by | or /', () => {
    for (const s of [
      '{proposed | rejected | accepted | deprecated | … | superseded by [ADR-0005](0005-example.md)}',
      '[Vorgeschlagen | Akzeptiert | Veraltet | Ersetzt]',
      'Proposed/Accepted/Rejected/Deprecated/Superseded',
      'Proposto | Aceito | Substituído por [ADR-XXXX](XXXX-titulo.md) | Descontinuado',
    ])
      assert.equal(isPlaceholderStatus(s), true, s);
    for (const s of [
      'superseded by [ADR-0003]({{< ref "0003-external-user-management.md" >}})',
      'Accepted.  Replaces [6. Front-end tech stack](./deprecated/006-start-off.md).',
      'Superseded  [This one](../022-use-azure.md) is newer.',
      'accepted; supersedes ADR-0045',
      'Accepted / implemented',
    ])
      assert.equal(isPlaceholderStatus(s), false, s);
  });
});

describe('records with no status', () => {
  it('are read by the setting: accepted (the default) or not; a status written but not read, or an unread front matter, never', () => {
    const bare =
      '---\nparent: Decisions\nnav_order: 1\n---\n# Use Crowdin for translations\n\n## Context and Problem Statement\n';
    const byDefault = parseRecord('docs/decisions/0001-x.md', bare);
    assert.deepEqual([byDefault.state, byDefault.unstatused, byDefault.status], ['accepted', true, undefined]);
    assert.equal(parseRecord('docs/decisions/0001-x.md', bare, { unstatused: 'ignore' }).state, 'unknown');
    const unread = parseRecord('docs/decisions/0001-x.md', 'RESOLVED\n# X\n\n## Status\n\nRESOLVED\n');
    assert.deepEqual([unread.state, unread.unstatused], ['unknown', undefined]);
    assert.match(unread.notes.join('\n'), /status "RESOLVED" is not one Roundtable reads/);
    const unclosed = parseRecord('docs/decisions/0001-x.md', '---\nparent: Decisions\n# X\n');
    assert.deepEqual([unclosed.state, unclosed.unstatused], ['unknown', undefined]);
  });

  it('a record filed in an archive folder under the decisions folder is not in force, whatever it says', () => {
    const r = parseRecord('docs/decisions/archive/0001-x.md', '# X\n\n## Status\n\nACCEPTED\n', {
      folder: 'docs/decisions',
    });
    assert.equal(r.state, 'deprecated');
    assert.match(r.notes.join('\n'), /filed under archive\/: read as deprecated/);
    // The decisions folder's own path is not a filing: docs/archive/adr is where the team keeps its records.
    assert.equal(
      parseRecord('docs/archive/adr/0001-x.md', '# X\n\n## Status\n\nACCEPTED\n', { folder: 'docs/archive/adr' }).state,
      'accepted',
    );
  });
});

describe('which files are records', () => {
  it('leaves out by name: READMEs and indexes (in any language), changelogs, lists of people, templates, and templates/assets/reports folders', () => {
    const names: [string, RegExp | undefined][] = [
      ['README.md', /^a README/],
      ['README.pt-BR.md', /^a README/],
      ['index.es.md', /^an index/],
      ['_index.md', /^an index/],
      ['adr-log.md', /^an index/],
      ['CHANGELOG.md', /^a changelog/],
      ['MAINTAINERS.md', /^a list of people/],
      ['CODEOWNERS.md', /^a list of people/],
      ['template.md', /^a template/],
      ['adr-template-bare-minimal.md', /^a template/],
      ['0000-modele-adr.md', /^a template/],
      ['ADR-9999-TEMPLATE.md', /^a template/],
      ['0000-adr-template-de.md', /^a template/],
      ['vorlage.md', /^a template/],
      ['plantilla-adr.md', /^a template/],
      ['templates/nygard.md', /^in a templates\/ folder/],
      ['reports/2024-q1.md', /^in a reports\/ folder/],
      ['assets/diagram-notes.md', /^in a assets\/ folder/],
      // Records that only look like it.
      ['0039-template-engine.md', undefined],
      ['0039-use-apache-velocity-as-template-engine.md', undefined],
      ['0005-modelo-de-dados.md', undefined],
      ['0007-readme-generation.md', undefined],
      ['20201016-use-the-adr-slug-as-its-unique-id.md', undefined],
    ];
    for (const [name, want] of names) {
      const why = skippedByName(`docs/decisions/${name}`, 'docs/decisions');
      if (want) assert.match(why ?? '(a record)', want, name);
      else assert.equal(why, undefined, name);
    }
  });

  it('leaves out by text a template with another name and a file that looks like no record; keeps a numbered, dated, statused or decided one', () => {
    const read = (name: string, text: string) => {
      const r = readRecord(`docs/decisions/${name}`, text, { folder: 'docs/decisions' });
      return r.ok ? 'record' : r.reason;
    };
    assert.match(
      read('0000-base.md', '# ADR-0000: Base\n\n## Status\n\n[Vorgeschlagen | Akzeptiert]\n'),
      /^a template/,
    );
    assert.match(read('0001-x.md', '# [short title of solved problem and solution]\n'), /^a template/);
    assert.match(read('starter.md', '# ADR-XXXX: Title\n\n## Status\n\nAccepted\n'), /^a template/);
    assert.match(
      read(
        'DECISIONS.md',
        '# Architectural Decisions (Index)\n\n| ID | Title | Status |\n|--|--|--|\n| ADR-0001 | x | ACCEPTED |\n',
      ),
      /^not a record: no number or date in its name or title, no status, no decision section$/,
    );
    assert.match(read('team.md', '# Who decides\n\n- Ada\n- Grace\n'), /^not a record/);
    assert.equal(read('0042-no-status-yet.md', '# Use X\n'), 'record', 'numbered');
    assert.equal(read('2024-05-16-use-x.md', '# Use X\n'), 'record', 'dated');
    assert.equal(read('use-postgres.md', '# ADR-0012: Use Postgres\n'), 'record', 'numbered title');
    assert.equal(read('use-postgres.md', '# Use Postgres\n\n* Status: accepted\n'), 'record', 'a status');
    assert.equal(read('use-postgres.md', '# Use Postgres\n\n## Entscheidung\n\nPostgres.\n'), 'record', 'a decision');
  });

  it('reads no number from a date (log4brains, timestamps), and the digits as written otherwise', () => {
    const num = (name: string) => parseRecord(`docs/decisions/${name}`, '# X\n').number;
    assert.deepEqual(
      [
        '20201016-slug.md',
        '2024-05-16-slug.md',
        '20240516132303-slug.md',
        '2020-use-x.md',
        '00108-x.md',
        'ADR-1001-x.md',
      ].map(num),
      [undefined, undefined, undefined, 2020, 108, 1001],
    );
  });
});

const rec = (file: string, title = 'X'): DecisionRecord => parseRecord(`docs/decisions/${file}`, `# ${title}\n`);

describe('one record id', () => {
  it('is the number as the file name writes it, four digits from a title, the file name without one, and the file name for each of two records sharing a number', () => {
    const records = [
      rec('0005-use-postgres.md'),
      rec('001-record.md'),
      rec('ADR015-aws.md'),
      rec('use-sqs.md', '7. Use SQS'),
      rec('20201016-use-the-slug.md'),
      rec('001-backend.md'),
      rec('0012-a.md'),
      rec('0012-b.md'),
    ];
    const ids = recordIds(records);
    assert.deepEqual(
      records.map((r) => ids.get(r)),
      ['0005', '001-record', '015', '0007', '20201016-use-the-slug', '001-backend', '0012-a', '0012-b'],
    );
    assert.equal(new Set(ids.values()).size, records.length);
  });

  it('makes ids unique even when file names repeat in two subfolders', () => {
    const a = rec('a/0001-x.md');
    const b = rec('b/0001-x.md');
    const ids = recordIds([a, b]);
    assert.deepEqual([ids.get(a), ids.get(b)], ['docs/decisions/a/0001-x', 'docs/decisions/b/0001-x']);
  });
});

/** Two records numbered 0001 (issue 40: the finding resolved to the other one), one accepted, one rejected. */
const TWINS: ReviewScope = {
  changed: [{ file: 'src/db.ts', ranges: [{ start: 1, end: 20 }] }],
  decisions: [
    {
      id: '0001-use-postgres',
      title: 'Use Postgres',
      path: 'docs/decisions/0001-use-postgres.md',
      status: 'accepted',
    },
    { id: '0001-use-mongo', title: 'Use Mongo', path: 'docs/decisions/0001-use-mongo.md', status: 'rejected' },
  ],
};

describe('a citation names exactly one record', () => {
  const decisions = [
    { id: '0003', path: 'docs/decisions/0003-postgres.md' },
    { id: '0007-iso-dates', path: 'docs/decisions/0007-iso-dates.md' },
    { id: '0007-adr-config', path: 'docs/decisions/0007-adr-config.md' },
    { id: '015', path: 'docs/decisions/ADR015-aws.md' },
    { id: '20201016-use-the-slug', path: 'docs/decisions/20201016-use-the-slug.md' },
  ];
  const cite = (c: string) => {
    const r = resolveCitation(c, decisions);
    return r.ok
      ? r.decision.id
      : r.why === 'ambiguous'
        ? `ambiguous: ${r.candidates.map((d) => d.id).join(', ')}`
        : 'none';
  };

  it('by its id, file name or path, or by a number only one record has; never a guess between two', () => {
    assert.deepEqual(
      [
        '0003',
        'ADR-0003',
        '3',
        'adr 3',
        '`0003`',
        '0003-postgres.md',
        'docs/decisions/0003-postgres.md',
        '0007-iso-dates',
        '0007-ADR-CONFIG.md',
        '0007',
        'ADR-7',
        'ADR015',
        '15',
        '20201016-use-the-slug',
        '20201016',
        '0099',
        '',
      ].map(cite),
      [
        '0003',
        '0003',
        '0003',
        '0003',
        '0003',
        '0003',
        '0003',
        '0007-iso-dates',
        '0007-adr-config',
        'ambiguous: 0007-iso-dates, 0007-adr-config',
        'ambiguous: 0007-iso-dates, 0007-adr-config',
        '015',
        '015',
        '20201016-use-the-slug',
        'none',
        'none',
        'none',
      ],
    );
  });

  it('so a finding on one of two records numbered 0001 is judged by that record: a rejected twin refutes nothing', () => {
    const scope = TWINS;
    const f = (decision: string): Finding => ({
      file: 'src/db.ts',
      lines: { start: 3, end: 4 },
      severity: 'blocking',
      decision,
      claim: 'A MySQL pool.',
    });
    assert.equal(refutation(f('0001-use-postgres'), scope), undefined);
    assert.equal(refutation(f('0001-use-mongo.md'), scope), 'cites 0001-use-mongo, which is rejected');
    assert.equal(
      refutation(f('ADR-0001'), scope),
      'cites ADR-0001, which 0001-use-postgres and 0001-use-mongo share: a finding cites one record by its id',
    );
    // Two reviewers, one on each twin: two findings, not one merged into the other.
    const options = reviewOptions(
      [
        ['ada', [f('0001-use-postgres.md')]],
        ['grace', [f('0001-use-mongo')]],
      ],
      scope,
    );
    assert.deepEqual(
      options.map((o) => [o.finding?.decision, o.finding?.refuted]),
      [
        ['0001-use-postgres', undefined],
        ['0001-use-mongo', 'cites 0001-use-mongo, which is rejected'],
      ],
    );
  });
});

describe('search', () => {
  it('meets word forms: plurals, -ing, -ed, a final e, accents', () => {
    const same: [string, string][] = [
      ['placeholder', 'Placeholders'],
      ['policy', 'policies'],
      ['index', 'indexes'],
      ['cache', 'caching'],
      ['cache', 'cached'],
      ['cache', 'caches'],
      ['map', 'mapped'],
      ['service', 'services'],
      ['status', 'statuses'],
      ['process', 'processes'],
    ];
    for (const [a, b] of same) assert.equal(wordForm(a), wordForm(b.toLowerCase()), `${a} ~ ${b}`);
    assert.notEqual(wordForm('postgres'), wordForm('post'));
    const fr = parseRecord('docs/decisions/0001-x.md', '# Décision sur les données\n\n## Status\n\nAccepté\n');
    assert.deepEqual(searchRecords([fr], 'decision donnee'), [fr], 'accents off, plural off');
  });

  it('ranks a record whose title matches above any matched only in its body, however many body words', () => {
    const inBody = parseRecord(
      'docs/decisions/0001-ops.md',
      '# Operations handbook\n\nPostgres migrations, schema indexes and vacuum all run nightly.\n',
    );
    const inTitle = parseRecord('docs/decisions/0002-pg.md', '# Use Postgres\n\nOne engine.\n');
    const other = parseRecord('docs/decisions/0003-x.md', '# Unrelated\n\nNothing.\n');
    assert.deepEqual(
      searchRecords([inBody, inTitle, other], 'postgres migrations schema indexes vacuum').map((r) => r.title),
      ['Use Postgres', 'Operations handbook'],
    );
  });
});

describe('a review with records but no rule', () => {
  it('says so in one line: how many, why none counts, the fix', () => {
    const records = [
      parseRecord('docs/decisions/0001-a.md', '# A\n', { unstatused: 'ignore' }),
      parseRecord('docs/decisions/0002-b.md', '# B\n\n## Status\n\nProposed\n'),
      parseRecord('docs/decisions/0003-c.md', '# C\n\n## Status\n\nRESOLVED\n'),
    ];
    assert.equal(
      noRuleLine(records, 'docs/decisions', 'ignore'),
      'docs/decisions holds 3 decision record(s) but none is a rule (1 with no status (decisions.unstatused is ignore), 1 with a status Roundtable does not read, 1 proposed): review with --unstatused accepted (VS Code: roundtable.decisions.unstatused), or mark the records in force "Status: accepted"',
    );
    assert.equal(noRuleLine([], 'docs/decisions', 'ignore'), undefined, 'no records: nothing to explain');
    assert.equal(
      noRuleLine([parseRecord('docs/decisions/0001-a.md', '# A\n')], 'docs/decisions', 'accepted'),
      undefined,
    );
  });
});

describe('the review report names records by the one id and says what it left out', () => {
  const scope: ReviewScope = {
    ...TWINS,
    skipped: [{ path: 'docs/decisions/0000-modele-adr.md', reason: 'a template (by its name), not a record' }],
    rulebookNote: 'docs/decisions holds 2 decision record(s) but none is a rule (2 <b>proposed</b>)',
  };
  const proven: ReviewedFinding = {
    id: 'O1',
    file: 'src/db.ts',
    lines: { start: 3, end: 3 },
    severity: 'blocking',
    decision: '0001-use-postgres',
    claim: 'A MySQL pool.',
    verdict: 'PROVEN',
    votes: [{ worker: 'ada', vote: 'accept', confidence: 0.9, rationale: 'Line 3.' }],
  };

  it('SARIF: the rule and the result are decision/<id>, for one of two records sharing a number', () => {
    const log = reviewSarif({ findings: [proven], exit: 1, scope }, { recordUri: (p) => `file:///r/${p}` }) as {
      runs: { tool: { driver: { rules: { id: string }[] } }; results: { ruleId: string }[] }[];
    };
    assert.deepEqual(
      log.runs[0]?.tool.driver.rules.map((r) => r.id),
      ['decision/0001-use-postgres'],
    );
    assert.deepEqual(
      log.runs[0]?.results.map((r) => r.ruleId),
      ['decision/0001-use-postgres'],
    );
  });

  it('Markdown: the one line on the rulebook and the files skipped, escaped', () => {
    const md = reviewMarkdown({ findings: [proven], exit: 1, scope }, { failOn: 'blocking' });
    assert.match(
      md,
      /^\*\*Rulebook:\*\* docs\/decisions holds 2 decision record\(s\) but none is a rule \(2 (?:\\<|&lt;)b/m,
    );
    assert.doesNotMatch(md, /<b>/);
    assert.match(
      md,
      /^Not read as decision records: `docs\/decisions\/0000-modele-adr\.md` \(a template \(by its name\), not a record\)\.$/m,
    );
    assert.match(md, /breaks decision `0001-use-postgres` \(`docs\/decisions\/0001-use-postgres\.md`\)/);
  });
});
