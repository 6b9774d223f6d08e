/**
 * `decisions/list` through a real daemon (issue 33): the Decisions view's records, read by the one
 * rulebook loader through the workspace gate — the same records `roundtable decisions --json`
 * prints — narrowed by words, status and file, with bad params refused in one line. And the
 * context paths a meeting logs, from which Accept proposes the record's scope.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { RpcError } from '@roundtable/protocol';
import { readContext } from '../../daemon/src/context/readContext';
import { cli, ensureBuilt } from '../fakes/cli';
import { suiteDaemon } from '../fakes/daemon';
import { gitIn } from '../fakes/workspace';

const RECORDS: Record<string, string> = {
  'docs/decisions/0001-use-mysql.md': '---\nstatus: accepted\ndate: 2024-01-10\n---\n# Use MySQL for orders\n',
  'docs/decisions/0002-use-postgres.md':
    '---\nstatus: accepted\ndate: 2025-03-02\nsupersedes: 0001-use-mysql.md\nscope:\n  - "src/db/**"\n  - migrations\n---\n# Postgres for every service\n\nAll services use Postgres.\n',
  'docs/decisions/0003-graphql.md': '# 3. Use GraphQL\n\n## Status\n\nRejected\n\n## Context\n\nREST is enough.\n',
  'docs/decisions/0004-keys.md':
    '---\nstatus: proposed\nscope: [src/auth/*.ts]\n---\n# Rotate keys\n\nkey = AKIAIOSFODNN7EXAMPLE\n',
  'docs/decisions/0005-ignored.md': '---\nstatus: accepted\n---\n# Ignored draft\n',
  '.gitignore': 'docs/decisions/0005-ignored.md\n',
  'src/db/pool.ts': 'export const pool = 1;\n',
  'src/api/users.ts': 'a\nb\nc\nd\n',
  '.env': 'TOKEN=secret\n',
};

async function repo(files: Record<string, string>): Promise<{ base: string; root: string }> {
  const base = await mkdtemp(path.join(tmpdir(), 'rt-declist-'));
  const root = path.join(base, 'repo');
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  gitIn(root, 'init', '-q');
  return { base, root };
}

describe('decisions/list through a real daemon', () => {
  const daemon = suiteDaemon();
  let root = '';
  let base = '';
  const list = (p: Record<string, unknown> = {}) =>
    daemon.host().conn.rpc.request('decisions/list', { workspace: root, ...p });
  before(async () => {
    ({ root, base } = await repo(RECORDS));
    await writeFile(path.join(base, 'outside.md'), '---\nstatus: accepted\n---\n# OUTSIDE SECRET\n');
    await symlink(path.join(base, 'outside.md'), path.join(root, 'docs/decisions/0006-escape.md'));
  });

  it('lists every record with id, status, date, scope and what superseded what; the gate’s refusals said', async () => {
    const r = await list();
    assert.equal(r.folder, 'docs/decisions');
    assert.deepEqual(
      r.records.map((e) => [e.id, e.status, e.title, e.date ?? '', e.scope.join(' ')]),
      [
        ['0001', 'superseded', 'Use MySQL for orders', '2024-01-10', ''],
        ['0002', 'accepted', 'Postgres for every service', '2025-03-02', 'src/db/** migrations'],
        ['0003', 'rejected', '3. Use GraphQL', '', ''],
        ['0004', 'proposed', 'Rotate keys', '', 'src/auth/*.ts'],
      ],
    );
    const [mysql, postgres] = r.records;
    assert.deepEqual(mysql?.supersededBy, ['docs/decisions/0002-use-postgres.md']);
    assert.equal(mysql?.current, 'docs/decisions/0002-use-postgres.md');
    assert.deepEqual(postgres?.supersedes, ['docs/decisions/0001-use-mysql.md']);
    assert.deepEqual(r.refused, [{ path: 'docs/decisions/0006-escape.md', reason: 'is outside the workspace' }]);
    const wire = JSON.stringify(r);
    assert.ok(!wire.includes('OUTSIDE SECRET') && !wire.includes('Ignored draft'), 'nothing the gate keeps back');
  });

  it('gives the records `roundtable decisions --json` prints: one loader for the CLI and the view', async () => {
    ensureBuilt();
    const printed = await cli(['decisions', '--json'], { cwd: root });
    assert.equal(printed.code, 0, printed.stderr);
    const json = JSON.parse(printed.stdout) as {
      records: { id: string; path: string; status: string; scope: string[] }[];
    };
    const r = await list();
    // One id in both: the view shows what the JSON prints and what a review cites.
    assert.deepEqual(
      r.records.map((e) => [e.id, e.path, e.status, e.scope]),
      json.records.map((e) => [e.id, e.path, e.status, e.scope]),
    );
  });

  it('narrows by words (best first), by status, and to the records governing a file', async () => {
    assert.deepEqual(
      (await list({ query: 'postgres services' })).records.map((e) => e.id),
      ['0002'],
    );
    assert.deepEqual(
      (await list({ status: ['accepted', 'rejected'] })).records.map((e) => e.id),
      ['0002', '0003'],
    );
    const governing = await list({ file: 'src/db/pool.ts' });
    assert.deepEqual(
      governing.records.map((e) => [e.id, e.matchedScope]),
      [['0002', 'src/db/**']],
    );
    assert.equal(governing.total, 4);
    assert.deepEqual((await list({ file: 'README.md' })).records, []);
  });

  it('an absent folder is no records; a file outside or a relative workspace is refused in one line', async () => {
    assert.deepEqual(await list({ folder: 'docs/adr' }), {
      folder: 'docs/adr',
      total: 0,
      records: [],
      refused: [],
      notes: [],
      skipped: [],
      unstatused: { count: 0, readAs: 'accepted' },
    });
    for (const [params, message] of [
      [{ file: '../outside.md' }, /^file \.\.\/outside\.md is not inside the workspace$/],
      [{ folder: '../..' }, /^the decisions folder \.\.\/\.\. is outside the workspace$/],
      [{ workspace: 'relative/dir' }, /workspace.*absolute folder path/],
      [{ status: ['maybe'] }, /status.*must be one of accepted/],
    ] as const)
      await assert.rejects(list(params), (e: unknown) => {
        assert.ok(e instanceof RpcError, String(e));
        assert.match(e.message, message);
        assert.doesNotMatch(e.message, /\n/);
        return true;
      });
  });
});

describe('the context paths a meeting logs (the scope Accept proposes)', () => {
  it('are the files, folders and globs asked and each selection’s file, workspace-relative; refused ones left out', async () => {
    const { root } = await repo(RECORDS);
    const attached = await readContext({
      workspace: root,
      topic: 'database',
      budget: 8000,
      request: {
        paths: ['src/db/**/*.ts', path.join(root, 'src', 'api'), '.env', 'nothing/**', 'src/db/pool.ts'],
        selections: [{ path: 'src/api/users.ts', startLine: 2, endLine: 3 }],
      },
    });
    // src/db/pool.ts was read through the glob already: the glob covers it.
    assert.deepEqual(attached.paths, ['src/db/**/*.ts', 'src/api', 'src/api/users.ts']);
    assert.ok(attached.refused.some((r) => r.path === '.env'));
  });

  it('are absent when the meeting attached no file', async () => {
    const { root } = await repo(RECORDS);
    const attached = await readContext({ workspace: root, topic: 't', budget: 8000, request: { note: 'just a note' } });
    assert.equal(attached.paths, undefined);
  });
});
