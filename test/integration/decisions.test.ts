/**
 * The rulebook on real folders: decision records in temporary git repositories, read through the
 * workspace gate (secrets, ignored files, symlinks, sizes), linked both ways, matched to files by
 * their scope, and shown by the real `roundtable decisions` command (text, --json, exit codes).
 */
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { currentOf, governingDecisions, loadDecisions, type Rulebook } from '../../daemon/src/decisions/rulebook';
import { relevantDecisions } from '../../daemon/src/decisions/index';
import { workspaceGate } from '../../daemon/src/gate';
import { cli, ensureBuilt } from '../fakes/cli';
import { gitIn } from '../fakes/workspace';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'decisions');

/** A git repository in a temp dir with `files` written (paths relative to it) and committed. */
async function repo(files: Record<string, string>): Promise<{ base: string; root: string }> {
  const base = await mkdtemp(path.join(tmpdir(), 'rt-dec-'));
  const root = path.join(base, 'repo');
  await mkdir(root);
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  gitIn(root, 'init', '-q');
  gitIn(root, 'add', '-A');
  gitIn(root, 'commit', '-qm', 'records', '--allow-empty');
  return { base, root };
}

async function load(root: string, folder = 'docs/decisions'): Promise<Rulebook> {
  const book = await loadDecisions({ gate: workspaceGate(root), folder });
  assert.ok(book.ok, JSON.stringify(book));
  return book;
}

const byName = (book: Rulebook, name: string) => {
  const r = book.records.find((x) => x.path.endsWith(`/${name}`));
  assert.ok(r, `${name} among ${book.records.map((x) => x.path).join(', ')}`);
  return r;
};

const POSTGRES =
  '---\nstatus: accepted\ndate: 2025-01-10\nscope:\n  - "services/**/db/**"\n  - "migrations"\n---\n\n# Use Postgres for every service\n\nNo MySQL, no SQLite in services.\n';
const SQL_STYLE = '---\nstatus: accepted\ndate: 2025-03-01\nscope: "**/*.sql"\n---\n\n# Lower-case SQL keywords\n';
const OLD_CACHE =
  '# Cache sessions in Memcached\n\n* Status: superseded by [ADR-0004](0004-cache-in-redis.md)\n* Date: 2023-01-01\n* Scope: services/api/cache/**\n';
const REDIS = '# Cache sessions in Redis\n\n* Status: accepted\n* Date: 2024-06-01\n\nRedis for sessions.\n';
const GRAPHQL =
  '# 5. Expose a GraphQL API\n\nDate: 2024-07-01\n\n## Status\n\nRejected\n\n## Context\n\nREST is enough.\n';

describe('rulebook: supersession and scope', () => {
  it('makes a record superseded when an accepted record says it supersedes it, not when a proposal does', async () => {
    const { root } = await repo({
      'docs/decisions/0001-use-mysql.md': '---\nstatus: accepted\n---\n# Use MySQL\n',
      'docs/decisions/0002-use-postgres.md':
        '---\nstatus: accepted\nsupersedes: 0001-use-mysql.md\n---\n# Use Postgres\n',
      'docs/decisions/0003-use-rest.md': '# Use REST\n\n* Status: accepted\n',
      'docs/decisions/0004-use-grpc.md':
        '# Use gRPC\n\n* Status: proposed\n* Supersedes [Use REST](0003-use-rest.md)\n',
    });
    const book = await load(root);
    assert.deepEqual(
      book.records.map((r) => [path.basename(r.path), r.state, r.supersededBy.map((p) => path.basename(p))]),
      [
        ['0001-use-mysql.md', 'superseded', ['0002-use-postgres.md']],
        ['0002-use-postgres.md', 'accepted', []],
        ['0003-use-rest.md', 'accepted', []],
        ['0004-use-grpc.md', 'proposed', []],
      ],
    );
  });

  it('follows a chain of supersessions to the record in force, and stops on a cycle', async () => {
    const { root } = await repo({
      'docs/decisions/0001-a.md': '# A\n\n* Status: superseded by [B](0002-b.md)\n',
      'docs/decisions/0002-b.md': '# B\n\n* Status: superseded by ADR-0003\n',
      'docs/decisions/0003-c.md': '# C\n\n* Status: accepted\n',
      'docs/decisions/0004-x.md': '# X\n\n* Status: superseded by [Y](0005-y.md)\n',
      'docs/decisions/0005-y.md': '# Y\n\n* Status: superseded by [X](0004-x.md)\n',
    });
    const book = await load(root);
    assert.equal(currentOf(byName(book, '0001-a.md'), book.records), 'docs/decisions/0003-c.md');
    assert.equal(currentOf(byName(book, '0003-c.md'), book.records), undefined);
    assert.equal(currentOf(byName(book, '0004-x.md'), book.records), 'docs/decisions/0005-y.md');
    assert.deepEqual(byName(book, '0003-c.md').supersedes, ['docs/decisions/0002-b.md']);
  });

  it('makes no guess when two records share the number a link names (adr-tools has two 0007s), and says so', async () => {
    const { root } = await repo({
      'docs/decisions/0007-iso-dates.md': '# 7. Use ISO 8601 dates\n\n## Status\n\nAccepted\n',
      'docs/decisions/0007-adr-config.md': '# 7. Invoke adr-config\n\n## Status\n\nAccepted\n',
      'docs/decisions/0002-old.md': '# 2. Old\n\n## Status\n\nSuperseded by 7. Use ISO 8601 dates\n',
      'docs/decisions/0003-older.md':
        '# 3. Older\n\n## Status\n\nSuperseded by [7. Invoke adr-config](0007-adr-config.md)\n',
    });
    const book = await load(root);
    assert.deepEqual(byName(book, '0002-old.md').supersededBy, [], 'by number alone: ambiguous');
    assert.equal(byName(book, '0002-old.md').state, 'superseded', 'still superseded: it says so');
    assert.match(book.notes.join('\n'), /0002-old\.md: "superseded by 7\. Use ISO 8601 dates" names no record/);
    assert.deepEqual(
      byName(book, '0003-older.md').supersededBy,
      ['docs/decisions/0007-adr-config.md'],
      'by file name: exact',
    );
  });

  it('finds the decisions that govern a file by their scope globs (through the workspace matcher) and plain folders', async () => {
    const { root } = await repo({
      'docs/decisions/0001-postgres.md': POSTGRES,
      'docs/decisions/0002-sql-style.md': SQL_STYLE,
      'docs/decisions/0003-memcached.md': OLD_CACHE,
      'docs/decisions/0004-cache-in-redis.md': REDIS,
    });
    const book = await load(root);
    const governs = (file: string) =>
      governingDecisions(book.records, file).map((g) => [path.basename(g.record.path), g.glob]);
    assert.deepEqual(governs('services/api/db/pool.ts'), [['0001-postgres.md', 'services/**/db/**']]);
    assert.deepEqual(governs('migrations/0007_users.sql'), [
      ['0001-postgres.md', 'migrations'],
      ['0002-sql-style.md', '**/*.sql'],
    ]);
    assert.deepEqual(governs('services/api/cache/session.ts'), [['0003-memcached.md', 'services/api/cache/**']]);
    assert.deepEqual(governs('services/api/handlers.ts'), []);
    assert.deepEqual(governs('migrationsX/a.ts'), [], 'a folder scope is that folder, not a prefix of a name');
  });
});

describe('rulebook: hostile folders', () => {
  it('redacts a token inside a record as the gate does, in its text and title', async () => {
    const token = `ghp_${'A1b2C3d4E5f6G7h8I9j0'.repeat(2).slice(0, 36)}`;
    const { root } = await repo({
      'docs/decisions/0001-rotate.md': `# Rotate ${token}\n\n* Status: accepted\n\nThe old token: ${token}\n`,
    });
    const book = await load(root);
    const r = byName(book, '0001-rotate.md');
    assert.ok(!JSON.stringify(book).includes(token), 'the token is nowhere in the rulebook');
    assert.match(r.title, /\[redacted by Roundtable: /);
    assert.ok((r.redacted ?? []).length >= 1);
    const out = await cli(['decisions', '--json'], { cwd: root });
    assert.ok(!out.stdout.includes(token));
  });

  it('refuses a symlinked record that points outside the workspace, and reads one that points inside', async () => {
    const { base, root } = await repo({
      'docs/decisions/0001-real.md': '# Real\n\n* Status: accepted\n',
      'archive/0002-moved.md': '# Moved\n\n* Status: accepted\n',
    });
    await writeFile(path.join(base, 'outside.md'), '# OUTSIDE SECRET\n\n* Status: accepted\n');
    await symlink(path.join(base, 'outside.md'), path.join(root, 'docs/decisions/0003-escape.md'));
    await symlink(path.join(root, 'archive/0002-moved.md'), path.join(root, 'docs/decisions/0002-moved.md'));
    const book = await load(root);
    // A link inside the workspace is read at its real path.
    assert.deepEqual(
      book.records.map((r) => [r.title, r.path]),
      [
        ['Moved', 'archive/0002-moved.md'],
        ['Real', 'docs/decisions/0001-real.md'],
      ],
    );
    assert.deepEqual(book.refused, [{ path: 'docs/decisions/0003-escape.md', reason: 'is outside the workspace' }]);
    assert.ok(!JSON.stringify(book).includes('OUTSIDE SECRET'));
  });

  it('refuses a decisions folder that is a symlink out of the workspace (exit 2, one line)', async () => {
    const { base, root } = await repo({ 'README.md': '# r\n' });
    await mkdir(path.join(base, 'elsewhere'));
    await writeFile(path.join(base, 'elsewhere', '0001-x.md'), '# OUTSIDE\n\n* Status: accepted\n');
    await mkdir(path.join(root, 'docs'));
    await symlink(path.join(base, 'elsewhere'), path.join(root, 'docs', 'decisions'));
    const r = await cli(['decisions'], { cwd: root });
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'roundtable: the decisions folder docs/decisions is outside the workspace\n');
    assert.ok(!r.stdout.includes('OUTSIDE'));
  });

  it('refuses a 5 MB record with its reason and reads the others', async () => {
    const { root } = await repo({
      'docs/decisions/0001-small.md': '# Small\n\n* Status: accepted\n',
      'docs/decisions/0002-huge.md': `# Huge\n\n* Status: accepted\n\n${'All services use Postgres. '.repeat(200_000)}\n`,
    });
    const book = await load(root);
    assert.deepEqual(
      book.records.map((r) => r.title),
      ['Small'],
    );
    assert.deepEqual(book.refused, [{ path: 'docs/decisions/0002-huge.md', reason: 'is larger than 2000000 bytes' }]);
  });

  it('bounds a folder of 10,001 records by names listed and bytes read, never by a count, and says what was not read', async () => {
    const { root } = await repo({});
    const dir = path.join(root, 'docs', 'decisions');
    await mkdir(dir, { recursive: true });
    for (let i = 0; i < 10_001; i += 500)
      await Promise.all(
        Array.from({ length: Math.min(500, 10_001 - i) }, (_, j) =>
          writeFile(
            path.join(dir, `${String(i + j + 1).padStart(5, '0')}-r.md`),
            `# R${i + j + 1}\n\n* Status: accepted\n`,
          ),
        ),
      );
    // A small bytes bound (the real one is 32 MB) keeps the test short: 12 records fit.
    const maxBytes = 12 * Buffer.byteLength('# R10000\n\n* Status: accepted\n');
    const book = await loadDecisions({ gate: workspaceGate(root), folder: 'docs/decisions', maxBytes });
    assert.ok(book.ok);
    assert.ok(book.records.length >= 12, `${book.records.length} records read`);
    assert.equal(book.records.length + book.unread.length - 1, 10_000, 'every listed record read or listed unread');
    assert.deepEqual(book.unread[0], {
      path: 'docs/decisions',
      reason: 'holds more than 10000 Markdown files: the rest were not listed',
    });
    assert.equal(book.unread.at(-1)?.path, 'docs/decisions/10000-r.md');
    assert.match(book.notes.join('\n'), /more than 10000 files in docs\/decisions: the rest were not listed/);
    assert.match(book.notes.join('\n'), /record\(s\) past the \d+ bytes of records read in all were not read/);
  });

  it('leaves out git-ignored records silently and refuses a secret-named one with its reason', async () => {
    const { root } = await repo({
      '.gitignore': 'docs/decisions/drafts/\n',
      'docs/decisions/0001-ok.md': '# Ok\n\n* Status: accepted\n',
      'docs/decisions/drafts/0002-draft.md': '# DRAFT IGNORED\n\n* Status: accepted\n',
      'docs/decisions/secrets.md': '# Secrets\n\n* Status: accepted\n',
    });
    const book = await load(root);
    assert.deepEqual(
      book.records.map((r) => r.title),
      ['Ok'],
    );
    assert.deepEqual(book.refused, [
      { path: 'docs/decisions/secrets.md', reason: 'has a secret-looking name (a secrets file)' },
    ]);
  });

  it("briefs a meeting with the same records (one parser): MADR 3's template comment is no longer the title", async () => {
    const { root } = await repo({});
    await cp(path.join(FIXTURES, 'madr3'), path.join(root, 'docs', 'decisions'), { recursive: true });
    const found = await relevantDecisions({
      gate: workspaceGate(root),
      folder: 'docs/decisions',
      topic: 'decision records format',
    });
    assert.deepEqual(
      found.items.map((i) => [i.title, i.status]),
      [['Use Markdown Any Decision Records V3', 'accepted']],
    );
  });
});

describe('roundtable decisions (the command)', () => {
  let root = '';
  before(async () => {
    ensureBuilt();
    root = (
      await repo({
        'docs/decisions/0001-postgres.md': POSTGRES,
        'docs/decisions/0002-sql-style.md': SQL_STYLE,
        'docs/decisions/0003-memcached.md': OLD_CACHE,
        'docs/decisions/0004-cache-in-redis.md': REDIS,
        'docs/decisions/0005-graphql.md': GRAPHQL,
        'docs/decisions/README.md': '# Decisions\n\n* Status: accepted\n',
      })
    ).root;
  });

  it('lists every record with number, status, date, title, path, scope and what superseded what', async () => {
    const r = await cli(['decisions'], { cwd: root });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, 'note: docs/decisions/README.md: a README, not a record\n', 'what was left out, and why');
    assert.equal(
      r.stdout,
      [
        '5 decision records in docs/decisions:',
        '',
        '0001  accepted    2025-01-10  Use Postgres for every service',
        '      docs/decisions/0001-postgres.md',
        '      scope: services/**/db/**, migrations',
        '',
        '0002  accepted    2025-03-01  Lower-case SQL keywords',
        '      docs/decisions/0002-sql-style.md',
        '      scope: **/*.sql',
        '',
        '0003  superseded  2023-01-01  Cache sessions in Memcached',
        '      docs/decisions/0003-memcached.md',
        '      scope: services/api/cache/**',
        '      superseded by docs/decisions/0004-cache-in-redis.md',
        '',
        '0004  accepted    2024-06-01  Cache sessions in Redis',
        '      docs/decisions/0004-cache-in-redis.md',
        '      supersedes docs/decisions/0003-memcached.md',
        '',
        '0005  rejected    2024-07-01  5. Expose a GraphQL API',
        '      docs/decisions/0005-graphql.md',
        '',
      ].join('\n'),
    );
  });

  it('searches by words, best match first, and filters by status', async () => {
    const r = await cli(['decisions', 'sessions', 'cache', '--status', 'accepted'], { cwd: root });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^1 of 5 decision records in docs\/decisions with status accepted, matching "sessions cache":\n/,
    );
    assert.match(r.stdout, /Cache sessions in Redis/);
    assert.doesNotMatch(r.stdout, /Memcached|Postgres/);
    // Short words count when a person searches ("sql"); a title word counts thrice, a body word once.
    const ranked = await cli(['decisions', 'sql', 'postgres', 'services', '--json'], { cwd: root });
    const titles = (JSON.parse(ranked.stdout) as { records: { title: string }[] }).records.map((x) => x.title);
    assert.deepEqual(titles, [
      'Use Postgres for every service',
      'Lower-case SQL keywords',
      'Cache sessions in Memcached',
    ]);
  });

  it('finds word forms ("session" finds "sessions", "caching" finds "cache"), a title match before a body match', async () => {
    const r = await cli(['decisions', 'session', '--json'], { cwd: root });
    const titles = (JSON.parse(r.stdout) as { records: { title: string }[] }).records.map((x) => x.title);
    assert.deepEqual(titles, ['Cache sessions in Memcached', 'Cache sessions in Redis']);
    const caching = await cli(['decisions', 'caching', 'redis', '--json'], { cwd: root });
    // Redis is in one title and only in the other's body (its superseded-by link).
    assert.deepEqual(
      (JSON.parse(caching.stdout) as { records: { title: string }[] }).records.map((x) => x.title),
      ['Cache sessions in Redis', 'Cache sessions in Memcached'],
    );
  });

  it("reads a team's folder as it is kept: MADR's records with no status counted and read as accepted (or not, with --unstatused ignore), its template and index listed as skipped", async () => {
    const madr = await repo({});
    await cp(path.join(FIXTURES, 'madr4'), path.join(madr.root, 'docs', 'decisions'), { recursive: true });
    const r = await cli(['decisions'], { cwd: madr.root });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^5 decision records in docs\/decisions, 4 with no status \(read as accepted: --unstatused\):\n/,
    );
    assert.match(
      r.stdout,
      /^0012 {2}accepted {4}\s+Use Curly Braces to Denote Placeholders\n.*\n {6}no status written: read as accepted\n/m,
    );
    assert.equal(
      r.stderr,
      [
        'note: docs/decisions/adr-template.md: a template (by its name), not a record',
        'note: docs/decisions/index.md: an index of the records, not a record',
        '',
      ].join('\n'),
    );
    const ignored = await cli(['decisions', '--unstatused', 'ignore', '--json'], { cwd: madr.root });
    const j = JSON.parse(ignored.stdout) as {
      records: { id: string; status: string; unstatused: boolean }[];
      unstatused: unknown;
    };
    assert.deepEqual(
      j.records.map((x) => [x.id, x.status, x.unstatused]),
      [
        ['0000', 'unknown', true],
        ['0003', 'proposed', false],
        ['0008', 'unknown', true],
        ['0012', 'unknown', true],
        ['0013', 'unknown', true],
      ],
    );
    assert.deepEqual(j.unstatused, { count: 4, readAs: 'ignore' });
  });

  it('gives two records with one number their file names as ids, in the listing and the JSON', async () => {
    const twins = await repo({
      'docs/decisions/001-backend.md': '# ADR 001: Backend\n\n**Status:** ACCEPTED\n',
      'docs/decisions/0001-modular.md': '# ADR-0001: Modular\n\n## Status\n\nAkzeptiert\n',
      'docs/decisions/0002-other.md': '# ADR-0002: Other\n\n## Status: Accepted\n',
    });
    const r = await cli(['decisions'], { cwd: twins.root });
    assert.match(r.stdout, /^0001-modular {2}accepted {4}\s+ADR-0001: Modular$/m);
    assert.match(r.stdout, /^001-backend {2}accepted {4}\s+ADR 001: Backend$/m);
    assert.match(r.stdout, /^0002 {2}accepted {4}\s+ADR-0002: Other$/m, 'a status in its heading');
    const j = await cli(['decisions', '--json'], { cwd: twins.root });
    assert.deepEqual(
      (JSON.parse(j.stdout) as { records: { id: string; number: number }[] }).records.map((x) => [x.id, x.number]),
      [
        ['0001-modular', 1],
        ['001-backend', 1],
        ['0002', 2],
      ],
    );
  });

  it('answers --file with the records whose scope covers it, marking one not in force', async () => {
    const r = await cli(['decisions', '--file', 'services/api/cache/session.ts'], { cwd: root });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Decisions in docs\/decisions whose scope covers services\/api\/cache\/session\.ts:\n/);
    assert.match(
      r.stdout,
      /Cache sessions in Memcached\n.*\n {6}scope services\/api\/cache\/\*\* covers it, but the record is superseded: not in force\n/,
    );
    const db = await cli(['decisions', '--file', './migrations/0001.sql'], { cwd: root });
    assert.match(db.stdout, /governs it: scope migrations\n/);
    assert.match(db.stdout, /governs it: scope \*\*\/\*\.sql\n/);
    const none = await cli(['decisions', '--file', 'README.md'], { cwd: root });
    assert.equal(none.stdout, 'no decision record in docs/decisions has a scope that covers README.md\n');
  });

  it('prints one JSON object of a documented, stable shape', async () => {
    const r = await cli(['decisions', '--json', '--file', 'services/api/cache/x.ts'], { cwd: root });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').length, 1);
    const j = JSON.parse(r.stdout) as Record<string, unknown> & { records: Record<string, unknown>[] };
    assert.deepEqual(Object.keys(j), [
      'version',
      'folder',
      'file',
      'total',
      'records',
      'refused',
      'notes',
      'skipped',
      'unstatused',
    ]);
    assert.deepEqual([j.version, j.folder, j.file, j.total], [1, 'docs/decisions', 'services/api/cache/x.ts', 5]);
    assert.deepEqual(j.records, [
      {
        id: '0003',
        path: 'docs/decisions/0003-memcached.md',
        number: 3,
        title: 'Cache sessions in Memcached',
        status: 'superseded',
        statusText: 'superseded by [ADR-0004](0004-cache-in-redis.md)',
        unstatused: false,
        date: '2023-01-01',
        deciders: [],
        scope: ['services/api/cache/**'],
        supersedes: [],
        supersededBy: ['docs/decisions/0004-cache-in-redis.md'],
        current: 'docs/decisions/0004-cache-in-redis.md',
        governs: false,
        matchedScope: 'services/api/cache/**',
      },
    ]);
    assert.deepEqual(j.skipped, [{ path: 'docs/decisions/README.md', reason: 'a README, not a record' }]);
    assert.deepEqual(j.unstatused, { count: 0, readAs: 'accepted' });
  });

  it('says "no decision records in docs/decisions" and exits 0 when there are none, or no folder', async () => {
    const empty = await repo({ 'docs/decisions/README.md': '# Decisions\n' });
    const r = await cli(['decisions'], { cwd: empty.root });
    assert.deepEqual(
      [r.code, r.stdout, r.stderr],
      [0, 'no decision records in docs/decisions\n', 'note: docs/decisions/README.md: a README, not a record\n'],
    );
    const bare = await repo({ 'src/a.ts': 'x\n' });
    const none = await cli(['decisions'], { cwd: bare.root });
    assert.deepEqual([none.code, none.stdout], [0, 'no decision records in docs/decisions\n']);
    const json = await cli(['decisions', '--json', '--dir', 'adr'], { cwd: bare.root });
    assert.deepEqual(JSON.parse(json.stdout), {
      version: 1,
      folder: 'adr',
      total: 0,
      records: [],
      refused: [],
      notes: [],
      skipped: [],
      unstatused: { count: 0, readAs: 'accepted' },
    });
  });

  it('is listed in roundtable --help, and decisions --help prints its options (exit 0)', async () => {
    const all = await cli(['--help'], { cwd: root });
    assert.match(all.stdout, /^ {2}decisions list and search the decision records, and the ones that govern a file$/m);
    const own = await cli(['decisions', '--help'], { cwd: root });
    assert.equal(own.code, 0);
    assert.match(
      own.stdout,
      /^Usage: roundtable decisions \[WORDS\.\.\.\] \[--status STATUS\] \[--file PATH\] \[--dir DIR\] \[--unstatused HOW\] \[--json\]\n/,
    );
    for (const flag of ['--status', '--file', '--dir', '--unstatused', '--json'])
      assert.match(own.stdout, new RegExp(`^ {2}${flag} `, 'm'));
  });

  it('exits 2 with one line on bad usage', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['--status', 'done'],
        /^roundtable: --status "done" is not a status: give one of accepted, proposed, rejected, deprecated, superseded, unknown\n$/,
      ],
      [
        ['--file', '../outside.ts'],
        /^roundtable: --file \.\.\/outside\.ts is not a file inside the workspace \(.+\)\n$/,
      ],
      [['--dir', '.git'], /^roundtable: the decisions folder \.git is inside \.git \(version control internals\)\n$/],
      [
        ['--dir', 'docs/decisions/0001-postgres.md'],
        /^roundtable: the decisions folder docs\/decisions\/0001-postgres\.md is not a folder\n$/,
      ],
      [['--unstatused', 'rules'], /^roundtable: --unstatused must be accepted or ignore, got "rules"\n$/],
      [['--bogus'], /^roundtable: Unknown option '--bogus'.*\n$/],
      [['--json', '--json'], /^roundtable: --json is given twice: give it once\n$/],
    ];
    // In parallel: each is its own process, and the test stays short on a loaded machine.
    const runs = await Promise.all(cases.map(([args]) => cli(['decisions', ...args], { cwd: root })));
    for (const [i, [args, want]] of cases.entries()) {
      const r = runs[i] as Awaited<ReturnType<typeof cli>>;
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, want);
      assert.equal(r.stdout, '');
    }
  });

  it('prints titles, statuses and notes terminal-safe: no escape sequence or control character from a record reaches the terminal', async () => {
    const hostile = await repo({
      'docs/decisions/0001-x.md':
        '# Use \u001b[2J\u001b]52;c;cHduZWQ=\u0007Postgres \u009b31m\u202eLQSyM\n\n* Status: accepted \u001b[31m\n',
      'docs/decisions/0002-y.md': '# Y\n\n* Status: superseded by [\u001b[5mZ](0099-\u001b[1mz.md)\n',
    });
    const r = await cli(['decisions'], { cwd: hostile.root });
    assert.equal(r.code, 0, r.stderr);
    // eslint-disable-next-line no-control-regex -- the point: none of them printed
    assert.doesNotMatch(r.stdout + r.stderr, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    assert.match(r.stdout, /Use Postgres ⟨U\+202E⟩LQSyM\n/, 'sequences removed whole, bidi shown as an escape');
    assert.match(
      r.stderr,
      /^note: docs\/decisions\/0002-y\.md: "superseded by .*" names no record in docs\/decisions\n$/,
    );
    const j = await cli(['decisions', '--json'], { cwd: hostile.root });
    // eslint-disable-next-line no-control-regex -- escaped as \u sequences, never raw
    assert.doesNotMatch(j.stdout, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    assert.equal((JSON.parse(j.stdout) as { records: unknown[] }).records.length, 2);
  });
});
