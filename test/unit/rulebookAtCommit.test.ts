/**
 * The rulebook read at a commit (a review's base) on real temporary repositories: what the commit
 * holds, whatever the work tree now says; through the gate's rules at that commit (secret names
 * and content, the commit's own ignore rules, no symlink followed, no binary, never `.git`); paths
 * taken as data (a newline, quotes, a glob character, a leading dash); a workspace that is a
 * subfolder of the repository. And the bounds: a folder of 600 records is read whole (the first
 * 500 by name used to be all), and records past the bytes bound are listed as unread.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { workspaceGate } from '../../daemon/src/gate';
import { loadDecisions, type Rulebook } from '../../daemon/src/decisions/rulebook';
import { gitIn } from '../fakes/workspace';

const record = (title: string, status = 'accepted', scope?: string) =>
  `---\nstatus: ${status}\n${scope ? `scope:\n  - "${scope}"\n` : ''}---\n\n# ${title}\n\nWhy: because.\n`;

const token = `ghp_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'a').slice(0, 36)}`;
const PEM = `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA${'x'.repeat(48)}\n-----END RSA PRIVATE KEY-----\n`;

const dirs: string[] = [];
async function repo(files: Record<string, string>): Promise<{ root: string; git: (...a: string[]) => string }> {
  const base = await mkdtemp(path.join(tmpdir(), 'rt-rules-at-'));
  dirs.push(base);
  const root = path.join(base, 'repo');
  await mkdir(root);
  const git = (...a: string[]) => gitIn(root, ...a).toString();
  git('init', '-q', '-b', 'main');
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  git('add', '-f', '.');
  git('commit', '-qm', 'base');
  return { root, git };
}

const at = async (root: string, folder = 'docs/decisions', maxBytes?: number): Promise<Rulebook> => {
  const commit = gitIn(root, 'rev-parse', 'HEAD').toString().trim();
  const book = await loadDecisions({
    gate: workspaceGate(root),
    folder,
    at: commit,
    ...(maxBytes ? { maxBytes } : {}),
  });
  assert.ok(book.ok, JSON.stringify(book));
  return book;
};

describe('the rulebook at a commit', () => {
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('is what the commit holds, not what the work tree says now (an edit, a new record, a deletion, a new .gitignore)', async () => {
    const r = await repo({
      'docs/decisions/0001-postgres.md': record('Postgres for every service', 'accepted', 'services/**'),
      'docs/decisions/0002-queue.md': record('One queue'),
    });
    await writeFile(path.join(r.root, 'docs/decisions/0001-postgres.md'), record('Postgres', 'superseded'));
    await writeFile(path.join(r.root, 'docs/decisions/0003-mysql.md'), record('MySQL'));
    await rm(path.join(r.root, 'docs/decisions/0002-queue.md'));
    await writeFile(path.join(r.root, '.gitignore'), 'docs/decisions/\n');
    const book = await at(r.root);
    assert.equal(book.from, `commit ${r.git('rev-parse', 'HEAD').slice(0, 7)}`);
    assert.deepEqual(
      book.records.map((x) => [x.path, x.state, x.scope]),
      [
        ['docs/decisions/0001-postgres.md', 'accepted', ['services/**']],
        ['docs/decisions/0002-queue.md', 'accepted', []],
      ],
    );
    assert.deepEqual([book.refused, book.unread], [[], []]);
  });

  it("through the gate's rules at that commit: names, content, the commit's ignore rules, links, binaries", async () => {
    const r = await repo({
      'docs/decisions/0001-postgres.md': record('Postgres'),
      'docs/decisions/0002-token.md': `${record('Tokens')}\nexample: ${token}\n`,
      'docs/decisions/0003-key.md': `${record('Keys')}\n${PEM}`,
      'docs/decisions/secrets.md': record('Secrets'),
      'docs/decisions/0004-binary.md': `# Binary\n\0\0\0`,
      'docs/decisions/.gitignore': 'private-*.md\n',
      'docs/decisions/private-0005.md': record('Private'),
      'docs/.gitignore': 'decisions/drafts/\n',
      'docs/decisions/drafts/0006-draft.md': record('Draft'),
    });
    await symlink('0001-postgres.md', path.join(r.root, 'docs/decisions/0007-link.md'));
    r.git('add', 'docs/decisions/0007-link.md');
    r.git('commit', '-qm', 'a link');
    const book = await at(r.root);
    const commit = `commit ${r.git('rev-parse', 'HEAD').slice(0, 7)}`;
    assert.deepEqual(
      book.records.map((x) => x.path),
      ['docs/decisions/0001-postgres.md', 'docs/decisions/0002-token.md'],
    );
    const token2 = book.records[1]?.text ?? '';
    assert.ok(!token2.includes(token), 'the token reached the record text');
    assert.match(token2, /\[redacted by Roundtable: /);
    const refused = Object.fromEntries(book.refused.map((x) => [x.path, x.reason]));
    assert.deepEqual(Object.keys(refused).sort(), [
      'docs/decisions/0003-key.md',
      'docs/decisions/0004-binary.md',
      'docs/decisions/0007-link.md',
      'docs/decisions/drafts/0006-draft.md',
      'docs/decisions/private-0005.md',
      'docs/decisions/secrets.md',
    ]);
    assert.match(refused['docs/decisions/secrets.md'] ?? '', /secret-looking name/);
    assert.match(refused['docs/decisions/0003-key.md'] ?? '', /private key/);
    assert.equal(refused['docs/decisions/0004-binary.md'], 'is a binary file');
    assert.equal(refused['docs/decisions/0007-link.md'], `is a symbolic link in ${commit}: not followed`);
    assert.equal(refused['docs/decisions/private-0005.md'], `is ignored by git in ${commit}`);
    assert.equal(refused['docs/decisions/drafts/0006-draft.md'], `is ignored by git in ${commit}`);
  });

  it('never reads version control internals, and says when the folder is not there', async () => {
    const r = await repo({ 'docs/decisions/0001-postgres.md': record('Postgres') });
    const commit = r.git('rev-parse', 'HEAD').trim();
    const gate = workspaceGate(r.root);
    const dotGit = await loadDecisions({ gate, folder: '.git', at: commit });
    assert.deepEqual(dotGit, {
      ok: false,
      folder: '.git',
      missing: false,
      reason: 'is inside .git (version control internals)',
    });
    const none = await loadDecisions({ gate, folder: 'adr', at: commit });
    assert.deepEqual(none, {
      ok: false,
      folder: 'adr',
      missing: true,
      reason: `does not exist in commit ${commit.slice(0, 7)}`,
    });
    const file = await loadDecisions({ gate, folder: 'docs/decisions/0001-postgres.md', at: commit });
    assert.equal(file.ok, false);
    assert.match((file as { reason: string }).reason, /^is not a folder in commit /);
  });

  it('takes paths as data: a newline, quotes, a glob character, a colon and a leading dash in names', async () => {
    const names = ['0001-a\nb.md', '0002-"quoted" it\'s.md', '0003-*star?.md', '0004-colon:x.md', '-0005-dash.md'];
    const r = await repo(Object.fromEntries(names.map((n, i) => [`docs/decisions/${n}`, record(`Record ${i + 1}`)])));
    const book = await at(r.root);
    assert.deepEqual(book.records.map((x) => x.title).sort(), [
      'Record 1',
      'Record 2',
      'Record 3',
      'Record 4',
      'Record 5',
    ]);
    assert.deepEqual(book.refused, []);
  });

  it('in a workspace that is a subfolder of the repository, reads that subfolder at the commit', async () => {
    const r = await repo({
      'app/docs/decisions/0001-postgres.md': record('Postgres'),
      'app/docs/decisions/0002-hidden.md': record('Hidden'),
      '.gitignore': 'app/docs/decisions/0002-*\n',
      'docs/decisions/0009-top.md': record('Top level'),
    });
    const commit = r.git('rev-parse', 'HEAD').trim();
    const book = await loadDecisions({
      gate: workspaceGate(path.join(r.root, 'app')),
      folder: 'docs/decisions',
      at: commit,
    });
    assert.ok(book.ok);
    assert.deepEqual(
      book.records.map((x) => x.path),
      ['docs/decisions/0001-postgres.md'],
    );
    assert.deepEqual(
      book.refused.map((x) => x.path),
      ['docs/decisions/0002-hidden.md'],
    );
  });

  it('reads a folder of 600 records whole, the one sorting last included, in the work tree and at the commit', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 599; i++)
      files[`docs/decisions/0000-filler-${String(i).padStart(3, '0')}.md`] = `# Filler ${i}\n`;
    files['docs/decisions/9999-postgres.md'] = record('Postgres for every service', 'accepted', 'services/**');
    const r = await repo(files);
    const worktree = await loadDecisions({ gate: workspaceGate(r.root), folder: 'docs/decisions' });
    for (const book of [worktree, await at(r.root)]) {
      assert.ok(book.ok);
      assert.equal(book.records.length, 600);
      assert.deepEqual(book.records.at(-1)?.scope, ['services/**']);
      assert.deepEqual(book.unread, []);
    }
  });

  it('lists the records past the bytes bound as unread, and says so in a note', async () => {
    const r = await repo({
      'docs/decisions/0001-a.md': record('A'),
      'docs/decisions/0002-b.md': record('B'),
      'docs/decisions/0003-c.md': record('C'),
    });
    const size = Buffer.byteLength(record('A'));
    for (const book of [
      await at(r.root, 'docs/decisions', size * 2),
      await loadDecisions({ gate: workspaceGate(r.root), folder: 'docs/decisions', maxBytes: size * 2 }),
    ]) {
      assert.ok(book.ok);
      assert.deepEqual(
        book.records.map((x) => x.title),
        ['A', 'B'],
      );
      assert.deepEqual(
        book.unread.map((u) => u.path),
        ['docs/decisions/0003-c.md'],
      );
      assert.match(book.unread[0]?.reason ?? '', /^was not read: past the \d+ bytes of records read in all$/);
      assert.ok(book.notes.some((n) => /1 record\(s\) past the \d+ bytes .* were not read/.test(n)));
    }
  });
});
