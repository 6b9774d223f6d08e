/**
 * Record folders copied from public repositories (test/fixtures/decisions/README.md names each
 * source), each read as a team's decisions folder through the real workspace gate in a real git
 * repository: every record with the id, status and title a person would expect, what superseded
 * what, and every file that is not a record left out with its reason, in MADR 2/3/4, Nygard,
 * log4brains, three- and five-digit numbers, dated names, statuses in headings, French, German,
 * Spanish and Portuguese.
 */
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import type { DecisionStatus, Unstatused } from '@roundtable/protocol';
import { recordIds } from '../../daemon/src/decisions/ids';
import { searchRecords } from '../../daemon/src/decisions/index';
import { loadDecisions, type Rulebook } from '../../daemon/src/decisions/rulebook';
import { workspaceGate } from '../../daemon/src/gate';
import { chooseRules, noRuleLine } from '../../daemon/src/review/rules';
import { gitIn } from '../fakes/workspace';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'decisions');

/** A record as a person checks it: file (in its folder), id, status, title; `*` after the status: none written. */
type Row = [file: string, id: string, status: string, title: string];

interface Expected {
  records: Row[];
  /** Files left out, each with a pattern its reason must match. */
  skipped: [file: string, why: RegExp][];
}

const TEMPLATE_BY_NAME = /^a template \(by its name\), not a record$/;

const EXPECTED: Record<string, Expected> = {
  'adr-tools': {
    records: [
      ['0001-first-record.md', '0001', 'superseded', '1. First Record'],
      ['0002-second-record.md', '0002', 'accepted', '2. Second Record'],
      ['0003-record-architecture-decisions.md', '0003', 'accepted', '1. Record architecture decisions'],
      ['0005-help-comments.md', '0005', 'accepted', '5. Help comments'],
      ['0009-help-scripts.md', '0009', 'accepted', '9. Help scripts'],
    ],
    skipped: [],
  },
  'ans-fr': {
    records: [
      ['0001-choix-du-modele-adr.md', '0001', 'proposed', 'Choix du modèle pour la rédaction des ADR'],
      ['0002-licence-des-projets-github.md', '0002', 'proposed', 'Licence des projets Github'],
    ],
    skipped: [
      ['0000-modele-adr.md', TEMPLATE_BY_NAME],
      ['index.md', /^an index of the records, not a record$/],
    ],
  },
  compliantkubernetes: {
    records: [
      [
        '0003-push-metrics-via-influxdb.md',
        '0003',
        'superseded',
        '[Superseded by [ADR-0019](0019-push-metrics-via-thanos.md)] Push Metrics via InfluxDB',
      ],
      ['0019-push-metrics-via-thanos.md', '0019', 'accepted', 'Push Metrics via Thanos'],
    ],
    skipped: [],
  },
  gsp: {
    records: [['ADR015-aws-iam-authentication.md', '015', 'superseded', 'ADR015: AWS IAM Authentication (for admins)']],
    skipped: [],
  },
  madr3: {
    records: [['0001-record-architecture-decisions.md', '0001', 'accepted', 'Use Markdown Any Decision Records V3']],
    skipped: [],
  },
  'bike-es': {
    records: [
      [
        '0001-registrar-decisiones-de-arquitectura.md',
        '0001',
        'accepted',
        'ADR-0001 — Registrar decisiones de arquitectura con ADRs',
      ],
      [
        '0002-uuid-v7-como-estrategia-de-llaves.md',
        '0002',
        'accepted',
        'ADR-0002 — UUIDv7 como estrategia de llaves primarias',
      ],
      [
        '0008-estilo-de-arquitectura.md',
        '0008',
        'accepted',
        'ADR-0008 — Estilo de arquitectura: monolito modular hexagonal',
      ],
    ],
    skipped: [['README.md', /^a README, not a record$/]],
  },
  jabref: {
    records: [
      ['0001-use-crowdin-for-translations.md', '0001', 'accepted*', 'Use Crowdin for translations'],
      [
        '0045-use-input-flag-always-for-input-files.md',
        '0045',
        'superseded',
        'Use `--input` Flag Consistently for Reading Input Files',
      ],
      [
        '0047-use-references-heading-in-citations-tab.md',
        '0047',
        'accepted',
        'Use References Headings in Citations Tab',
      ],
      [
        '0057-allow-positional-input-file-argument.md',
        '0057',
        'accepted',
        'Allow a Positional Input File Argument for `jabkit` Commands',
      ],
    ],
    skipped: [
      ['adr-template.md', TEMPLATE_BY_NAME],
      ['index.md', /^an index of the records, not a record$/],
    ],
  },
  log4brains: {
    records: [
      [
        '20200926-use-the-adr-number-as-its-unique-id.md',
        '20200926-use-the-adr-number-as-its-unique-id',
        'superseded',
        'Use the ADR number as its unique ID',
      ],
      [
        '20201016-use-the-adr-slug-as-its-unique-id.md',
        '20201016-use-the-adr-slug-as-its-unique-id',
        'accepted',
        'Use the ADR slug as its unique ID',
      ],
      ['20201103-use-lunr-for-search.md', '20201103-use-lunr-for-search', 'accepted', 'Use Lunr for search'],
    ],
    skipped: [
      ['README.md', /^a README/],
      ['index.md', /^an index/],
      ['template.md', TEMPLATE_BY_NAME],
    ],
  },
  madr4: {
    records: [
      [
        '0000-use-markdown-architectural-decision-records.md',
        '0000',
        'accepted*',
        'Use Markdown Architectural Decision Records',
      ],
      ['0003-provide-own-madr-tools.md', '0003', 'proposed', 'Write Own MADR Tooling'],
      ['0008-add-status-field.md', '0008', 'accepted*', 'Add Status Field'],
      [
        '0012-use-curly-braces-to-denote-placeholder.md',
        '0012',
        'accepted*',
        'Use Curly Braces to Denote Placeholders',
      ],
      ['0013-use-yaml-front-matter-for-meta-data.md', '0013', 'accepted*', 'Use YAML front matter for metadata'],
    ],
    skipped: [
      ['adr-template.md', TEMPLATE_BY_NAME],
      ['index.md', /^an index/],
    ],
  },
  meldestelle: {
    records: [
      [
        '000-PENDING-backend-infrastructure-decisions.md',
        '000',
        'unknown',
        'PENDING DECISIONS: Backend Infrastructure & Architecture',
      ],
      ['0001-modular-architecture-de.md', '0001-modular-architecture-de', 'accepted', 'ADR-0001: Modulare Architektur'],
      ['0009-final-kmp-architecture.md', '0009', 'accepted', 'ADR-0009: Final KMP Architecture'],
      [
        '001-backend-infrastructure-decisions.md',
        '001-backend-infrastructure-decisions',
        'accepted',
        'ADR 001: Backend Infrastructure & Architecture Decisions',
      ],
      [
        '0012-domain-documentation-structure.md',
        '0012',
        'accepted',
        'ADR-0012: Strukturierung der Domänen-Dokumentation',
      ],
      [
        '0013-tech-stack-stabilization-2026.md',
        '0013',
        'accepted',
        'ADR-0013: Stabilisierung des Tech-Stacks (Januar 2026)',
      ],
    ],
    skipped: [
      ['0000-adr-template-de.md', TEMPLATE_BY_NAME],
      ['README.md', /^a README/],
    ],
  },
  muse: {
    records: [
      ['00101-Replacing-actions-with-commands.md', '00101', 'accepted', '00101 Replacing actions with commands'],
      [
        '00108-Shortcuts-Replacing-context-with-scope.md',
        '00108',
        'accepted',
        '00108 Shortcuts: Replacing the context with scope',
      ],
    ],
    skipped: [
      ['00000-template.md', TEMPLATE_BY_NAME],
      ['README.md', /^a README/],
    ],
  },
  ocis: {
    records: [
      ['0001-introduce-accounts-service.md', '0001', 'superseded', '1. Introduce an accounts service'],
      ['0003-external-user-management.md', '0003', 'superseded', '3. Use external User Management'],
    ],
    skipped: [],
  },
  'ofisy-pt': {
    records: [
      ['0001-registrar-decisoes-de-arquitetura.md', '0001', 'accepted', '0001. Registrar decisões de arquitetura'],
      [
        '0009-registrar-notificacoes-de-forma-sincrona-no-banco.md',
        '0009',
        'accepted',
        '0009. Registrar notificações de forma síncrona no banco',
      ],
    ],
    skipped: [['template.md', TEMPLATE_BY_NAME]],
  },
  'opre-ops': {
    records: [
      ['001-record-architecture-decisions.md', '001', 'accepted', '1. Record architecture decisions'],
      [
        '009-use-github-dependabot-and-codeql.md',
        '009',
        'accepted',
        '9. Use GitHub Dependabot and GitHub CodeQL security tools',
      ],
      ['013-react-for-frontend.md', '013', 'accepted', '13. Use React for the Frontend'],
      // No heading at all: the file name is the title.
      ['018-use-homegrown-authz.md', '018', 'accepted', '018-use-homegrown-authz'],
      ['019-style-guide-for-frontend-state.md', '019', 'proposed', '019-style-guide-for-frontend-state'],
      ['025-vite.md', '025', 'accepted', 'ADR 25: Replace webpack with Vite'],
      ['deprecated/005-use-django-for-back-end-web-framework.md', '005', 'deprecated', '5. Back-end web framework'],
      [
        'deprecated/006-start-off-with-server-side-rendering.md',
        '006',
        'superseded',
        '6. Front-end tech stack: Start off with server-side rendering',
      ],
    ],
    skipped: [],
  },
  'sagnus-pt': {
    records: [
      [
        'adr/ADR-0001-monorepo-maven-multi-modulo.md',
        'ADR-0001-monorepo-maven-multi-modulo',
        'accepted*',
        'ADR-0001 — Monorepo Maven multi-módulo',
      ],
      ['adr/ADR-0004-dominio-puro-sem-framework.md', '0004', 'accepted*', 'ADR-0004 — Domínio puro (sem framework)'],
      ['adr/ADR-1001-frontend-tech-stack.md', '1001', 'accepted', 'ADR-1001 — Tech Stack do Frontend'],
      // Filed under archive/: not in force, whatever their own status says.
      [
        'adr/archive/ADR-0001-ARCHITECTURAL-BASELINE-EN.md',
        'ADR-0001-ARCHITECTURAL-BASELINE-EN',
        'deprecated',
        'ADR-0001 – Sagnus ERP Architectural Baseline',
      ],
      [
        'adr/archive/ADR-0001-ARCHITECTURAL-BASELINE-PT.md',
        'ADR-0001-ARCHITECTURAL-BASELINE-PT',
        'deprecated',
        'ADR-0001 – Baseline Arquitetural do Sagnus ERP',
      ],
    ],
    skipped: [
      ['DECISIONS.md', /^not a record: no number or date in its name or title, no status, no decision section$/],
      ['adr/archive/ADR-9999-TEMPLATE.md', TEMPLATE_BY_NAME],
    ],
  },
  'zlv-fr': {
    records: [
      [
        '20240516132303-use-markdown-any-decision-records.md',
        '20240516132303-use-markdown-any-decision-records',
        'accepted*',
        'Use Markdown Any Decision Records',
      ],
      [
        '20240603162604-msw-pour-mocker-l-api-dans-les-tests-front.md',
        '20240603162604-msw-pour-mocker-l-api-dans-les-tests-front',
        'proposed',
        'Mocker l’API pour tester le front',
      ],
      [
        '20260805142324-millesime-inclus-provenance-d-import-et-non-presence-lovac.md',
        '20260805142324-millesime-inclus-provenance-d-import-et-non-presence-lovac',
        'accepted',
        "« Millésime inclus » désigne une provenance d'import, pas une présence dans le fichier LOVAC",
      ],
    ],
    skipped: [
      ['README.md', /^a README/],
      ['TEMPLATE.md', TEMPLATE_BY_NAME],
    ],
  },
};

let root = '';

async function load(folder: string, unstatused?: Unstatused): Promise<Rulebook> {
  const book = await loadDecisions({
    gate: workspaceGate(root),
    folder: `fx/${folder}`,
    ...(unstatused ? { unstatused } : {}),
  });
  assert.ok(book.ok, JSON.stringify(book));
  return book;
}

const inFolder = (folder: string, p: string): string => p.slice(`fx/${folder}/`.length);

describe('record folders of public repositories', () => {
  before(async () => {
    root = path.join(await mkdtemp(path.join(tmpdir(), 'rt-fx-')), 'repo');
    await mkdir(root);
    await cp(FIXTURES, path.join(root, 'fx'), { recursive: true });
    gitIn(root, 'init', '-q');
    gitIn(root, 'add', '-A');
    gitIn(root, 'commit', '-qm', 'fixtures');
  });

  for (const [folder, want] of Object.entries(EXPECTED))
    it(`${folder}: every record with its id, status and title; every other file left out with why`, async () => {
      const book = await load(folder);
      const ids = recordIds(book.records);
      assert.deepEqual(
        book.records.map((r): Row => [
          inFolder(folder, r.path),
          ids.get(r) ?? '',
          `${r.state}${r.unstatused ? '*' : ''}`,
          r.title,
        ]),
        want.records,
      );
      assert.deepEqual(
        book.skipped.map((s) => inFolder(folder, s.path)),
        want.skipped.map(([f]) => f),
      );
      for (const [i, [, why]] of want.skipped.entries()) assert.match(book.skipped[i]?.reason ?? '', why);
      assert.deepEqual(book.refused, []);
    });

  it('resolves what superseded what as the records write it: a slug link, "accepted; supersedes ADR-0045", "Superseded. [13. …](../013-….md) is newer."', async () => {
    const paths = (book: Rulebook, folder: string, file: string) => {
      const r = book.records.find((x) => x.path === `fx/${folder}/${file}`);
      assert.ok(r, file);
      return [r.supersedes.map((p) => inFolder(folder, p)), r.supersededBy.map((p) => inFolder(folder, p))];
    };
    const tools = await load('adr-tools');
    assert.deepEqual(paths(tools, 'adr-tools', '0002-second-record.md'), [['0001-first-record.md'], []]);
    assert.deepEqual(paths(tools, 'adr-tools', '0001-first-record.md'), [[], ['0002-second-record.md']]);
    const k8s = await load('compliantkubernetes');
    assert.deepEqual(paths(k8s, 'compliantkubernetes', '0003-push-metrics-via-influxdb.md'), [
      [],
      ['0019-push-metrics-via-thanos.md'],
    ]);
    // Hugo's `{{< ref "0003-external-user-management.md" >}}` link resolves to the file it names.
    const ocis = await load('ocis');
    assert.deepEqual(paths(ocis, 'ocis', '0001-introduce-accounts-service.md'), [
      [],
      ['0003-external-user-management.md'],
    ]);
    const gsp = await load('gsp');
    assert.match(gsp.notes.join('\n'), /ADR015-aws-iam-authentication\.md: "superseded by ADR023" names no record/);
    const l4b = await load('log4brains');
    assert.deepEqual(paths(l4b, 'log4brains', '20200926-use-the-adr-number-as-its-unique-id.md'), [
      [],
      ['20201016-use-the-adr-slug-as-its-unique-id.md'],
    ]);
    const jabref = await load('jabref');
    assert.deepEqual(paths(jabref, 'jabref', '0057-allow-positional-input-file-argument.md'), [
      ['0045-use-input-flag-always-for-input-files.md'],
      [],
    ]);
    const ops = await load('opre-ops');
    assert.deepEqual(paths(ops, 'opre-ops', 'deprecated/006-start-off-with-server-side-rendering.md'), [
      [],
      ['013-react-for-frontend.md'],
    ]);
    assert.deepEqual(paths(ops, 'opre-ops', '013-react-for-frontend.md'), [
      ['deprecated/006-start-off-with-server-side-rendering.md'],
      [],
    ]);
    assert.deepEqual(ops.notes, [], 'every link names a record');
    const german = await load('meldestelle');
    assert.match(
      german.notes.join('\n'),
      /000-PENDING-backend-infrastructure-decisions\.md: status "RESOLVED" is not one Roundtable reads/,
    );
  });

  it('reads records with no status as rules by default and, with unstatused "ignore", not: the review then says why in one line', async () => {
    const states = (book: Rulebook): DecisionStatus[] => book.records.map((r) => r.state);
    const madr = await load('madr4');
    assert.deepEqual(states(madr), ['accepted', 'proposed', 'accepted', 'accepted', 'accepted']);
    assert.equal(noRuleLine(madr.records, 'docs/decisions', 'accepted'), undefined);
    assert.ok(chooseRules(madr.records, ['README.md'], 'placeholders in curly braces').rules.length > 0);
    const ignored = await load('madr4', 'ignore');
    assert.deepEqual(states(ignored), ['unknown', 'proposed', 'unknown', 'unknown', 'unknown']);
    assert.deepEqual(chooseRules(ignored.records, ['README.md'], 'placeholders in curly braces').rules, []);
    assert.equal(
      noRuleLine(ignored.records, 'docs/decisions', 'ignore'),
      'docs/decisions holds 5 decision record(s) but none is a rule (4 with no status (decisions.unstatused is ignore), 1 proposed): review with --unstatused accepted (VS Code: roundtable.decisions.unstatused), or mark the records in force "Status: accepted"',
    );
  });

  it('finds "placeholder" in MADR\'s "Use Curly Braces to Denote Placeholders", its title match first', async () => {
    const madr = await load('madr4');
    const found = searchRecords(madr.records, 'placeholder');
    assert.equal(found[0]?.title, 'Use Curly Braces to Denote Placeholders');
  });
});
