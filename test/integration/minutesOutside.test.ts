/**
 * Minutes never leave the workspace through a symbolic link (issue 32): a symlinked `docs`,
 * `docs/roundtable`, a link that leads nowhere, or a symlinked MANIFEST.jsonl, in real temp
 * folders with real links, through the writer the CLI and `deliberate` share, and through the
 * built CLI. A link that stays inside the workspace, a workspace reached through a link and a
 * folder the person names outside it (`--out /tmp/x`) are written as before.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { link, mkdir, mkdtemp, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { before, describe, it } from 'node:test';
import { fold } from '@roundtable/protocol';
import { outputRefusal } from '@roundtable/client';
import { writeMinutesOrExplain } from '@roundtable/client/minutesOutput';
import { cli, ensureBuilt } from '../fakes/cli';
import { logOf, opened } from '../fakes/given';

const tmp = (): Promise<string> => mkdtemp(path.join(tmpdir(), 'rt-out-'));

const EVENTS = logOf([...opened(), { type: 'meeting_closed', reason: 'cut' }]);

/** A workspace and a folder outside it, each real. */
async function places(): Promise<{ ws: string; outside: string }> {
  const ws = await tmp();
  const outside = await tmp();
  return { ws, outside };
}

async function write(ws: string, dir: string): Promise<{ file: string | undefined; said: string }> {
  const err = new PassThrough();
  let said = '';
  err.on('data', (d: Buffer) => (said += d.toString()));
  const file = await writeMinutesOrExplain(dir, fold(EVENTS), err, { workspace: ws });
  return { file, said };
}

const oneLine = (said: string): void => assert.equal(said.trim().split('\n').length, 1, said);

describe('minutes never leave the workspace through a symbolic link', () => {
  it('a symlinked docs/roundtable to a folder outside: refused in one line, nothing written outside', async () => {
    const { ws, outside } = await places();
    await mkdir(path.join(ws, 'docs'));
    await symlink(outside, path.join(ws, 'docs', 'roundtable'));
    const { file, said } = await write(ws, path.join(ws, 'docs', 'roundtable'));
    assert.equal(file, undefined);
    oneLine(said);
    assert.match(
      said,
      /docs\/roundtable is a symbolic link to .*, outside the workspace: nothing is written through it/,
    );
    assert.deepEqual(await readdir(outside), []);
  });

  it('a symlinked docs (a component above the folder): refused, and no roundtable folder is made outside', async () => {
    const { ws, outside } = await places();
    await symlink(outside, path.join(ws, 'docs'));
    const { file, said } = await write(ws, path.join(ws, 'docs', 'roundtable'));
    assert.equal(file, undefined);
    assert.match(said, /\bdocs is a symbolic link to /);
    assert.deepEqual(await readdir(outside), [], 'not even an empty roundtable folder');
  });

  it('a link that leads nowhere (yet): refused, nothing created where it points', async () => {
    const { ws, outside } = await places();
    await mkdir(path.join(ws, 'docs'));
    await symlink(path.join(outside, 'later'), path.join(ws, 'docs', 'roundtable'));
    const { file, said } = await write(ws, path.join(ws, 'docs', 'roundtable'));
    assert.equal(file, undefined);
    assert.match(said, /is a symbolic link that leads nowhere/);
    assert.equal(existsSync(path.join(outside, 'later')), false);
  });

  it('a link out placed two levels down (docs/x → outside, minutes in docs/x/y): refused', async () => {
    const { ws, outside } = await places();
    await mkdir(path.join(ws, 'docs'));
    await symlink(outside, path.join(ws, 'docs', 'x'));
    const { file } = await write(ws, path.join(ws, 'docs', 'x', 'y'));
    assert.equal(file, undefined);
    assert.deepEqual(await readdir(outside), []);
  });

  it('a symlinked MANIFEST.jsonl: refused before it is read, so nothing outside is copied in or changed', async () => {
    const { ws, outside } = await places();
    const dir = path.join(ws, 'docs', 'roundtable');
    await mkdir(dir, { recursive: true });
    const secret = path.join(outside, 'secret.txt');
    await writeFile(secret, 'PRIVATE\n');
    await symlink(secret, path.join(dir, 'MANIFEST.jsonl'));
    assert.match((await outputRefusal(ws, dir, ['MANIFEST.jsonl'])) ?? '', /MANIFEST\.jsonl is a symbolic link/);
    const { file } = await write(ws, dir);
    assert.equal(file, undefined);
    assert.equal(await readFile(secret, 'utf8'), 'PRIVATE\n');
  });

  it('a link that stays inside the workspace is followed: the minutes land in the real folder', async () => {
    const { ws } = await places();
    await mkdir(path.join(ws, 'notes'));
    await mkdir(path.join(ws, 'docs'));
    await symlink(path.join(ws, 'notes'), path.join(ws, 'docs', 'roundtable'));
    const { file, said } = await write(ws, path.join(ws, 'docs', 'roundtable'));
    assert.ok(file, said);
    assert.equal((await readdir(path.join(ws, 'notes'))).filter((f) => f.endsWith('.md')).length, 1);
  });

  it('a workspace reached through a link is still the workspace', async () => {
    const { ws } = await places();
    const viaLink = path.join(await tmp(), 'ws-link');
    await symlink(ws, viaLink);
    const { file, said } = await write(viaLink, path.join(viaLink, 'docs', 'roundtable'));
    assert.ok(file, said);
  });

  it('a folder the person names outside the workspace is theirs to choose', async () => {
    const { ws, outside } = await places();
    const { file, said } = await write(ws, path.join(outside, 'minutes'));
    assert.ok(file?.startsWith(outside), said);
  });

  it('a hard-linked minutes name is never written through: a second meeting gets its own file', async () => {
    const { ws, outside } = await places();
    const dir = path.join(ws, 'docs', 'roundtable');
    await mkdir(dir, { recursive: true });
    const victim = path.join(outside, 'victim.md');
    await writeFile(victim, 'KEEP\n');
    const first = await write(ws, dir);
    assert.ok(first.file);
    // The name the next meeting would take, hard-linked to a file outside.
    await link(victim, first.file.replace(/\.md$/, '-2.md'));
    const second = await write(ws, dir);
    assert.ok(second.file && !second.file.endsWith('-2.md'), second.file);
    assert.equal(await readFile(victim, 'utf8'), 'KEEP\n');
  });
});

describe('roundtable minutes (the built CLI) refuses a symlinked docs/roundtable', () => {
  before(ensureBuilt);

  it('exits 4 with one line, and the folder outside stays empty', async () => {
    const { ws, outside } = await places();
    const home = await tmp();
    const run = await cli(['run', '--topic', 'Where do minutes go?', '--out', path.join(home, 'first')], {
      env: { ROUNDTABLE_HOME: home },
      cwd: ws,
    });
    assert.equal(run.code, 0, run.stderr);
    const id = /`(m-[^`]+)`/.exec(await readFile(/Minutes: (.+\.md)/.exec(run.stdout)?.[1] ?? '', 'utf8'))?.[1];
    assert.ok(id);
    await mkdir(path.join(ws, 'docs'));
    await symlink(outside, path.join(ws, 'docs', 'roundtable'));
    const r = await cli(['minutes', id], { env: { ROUNDTABLE_HOME: home }, cwd: ws });
    assert.equal(r.code, 4, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /docs\/roundtable is a symbolic link to .*outside the workspace/);
    assert.deepEqual(await readdir(outside), []);
  });
});
