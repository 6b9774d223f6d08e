/**
 * The two packages a user installs, built as a release is: `npm pack` (whose prepack makes the
 * production build) and the .vsix from that same build. Checked from the archives themselves —
 * what ships, how big — and by installing the CLI's tarball offline into an empty machine-like
 * folder and running it there.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { tgzEntries, zipEntries, type Entry } from '../fakes/archives';
import { ROOT, cli } from '../fakes/cli';

/** What `vsce package` reports as 2.5 MB. */
const VSIX_LIMIT = 2.5 * 1024 * 1024;

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    timeout: 180_000,
    env: { ...process.env, npm_config_loglevel: 'error', npm_config_audit: 'false', npm_config_fund: 'false' },
  });
}

/** Files that are sources, tests or maps: none of them may ship. */
const notShipped = (e: Entry): boolean =>
  /\.map$|\.tsx?$|(^|\/)(test|src)\//.test(e.name.replace(/^(extension|package)\//, ''));

describe('the packages a user installs', () => {
  let tmp: string;
  let tarball: string;
  let vsix: string;

  before(
    async () => {
      tmp = await mkdtemp(path.join(tmpdir(), 'rt-packages-'));
      npm(['pack', '--pack-destination', tmp], ROOT);
      const packed = readdirSync(tmp).find((f) => /^roundtable-.*\.tgz$/.test(f));
      assert.ok(packed, `npm pack wrote no roundtable-*.tgz into ${tmp}`);
      tarball = path.join(tmp, packed);
      // The .vsix from the production build prepack just made, as `npm run package` does.
      npm(['run', 'vsix', '--silent'], ROOT);
      vsix = path.join(ROOT, 'roundtable.vsix');
    },
    { timeout: 300_000 },
  );

  it('the .vsix is at most 2.5 MB and holds no source maps, sources or tests', async () => {
    const size = (await stat(vsix)).size;
    assert.ok(size <= VSIX_LIMIT, `the .vsix is ${(size / 1024 / 1024).toFixed(2)} MB, over 2.5 MB`);
    const entries = zipEntries(await readFile(vsix));
    assert.deepEqual(entries.filter(notShipped), []);
    const dist = entries.map((e) => e.name).filter((n) => n.startsWith('extension/dist/'));
    assert.ok(!dist.some((n) => n.startsWith('extension/dist/test/')), 'the extension-host test suite ships');
    // The bundle that was packed: the suite and its runner are loaded only from dist/test, never inlined.
    const extension = await readFile(path.join(ROOT, 'dist', 'extension', 'extension.js'), 'utf8');
    assert.doesNotMatch(extension, /mocha/i, 'the test runner is bundled into the extension');
  });

  it('the .vsix carries what the extension loads: its main, the daemon with its sql.js engine, the webviews', async () => {
    const names = new Set(zipEntries(await readFile(vsix)).map((e) => e.name));
    const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { main: string };
    for (const file of [manifest.main, 'dist/daemon/cli.js', 'dist/daemon/sql-wasm.wasm', 'dist/webview/room.js'])
      assert.ok(names.has(path.posix.join('extension', file)), `${file} is missing from the .vsix`);
  });

  it('the npm tarball ships the built CLI and declares no dependencies to fetch', async () => {
    const entries = tgzEntries(await readFile(tarball));
    const names = entries.map((e) => e.name);
    for (const file of [
      'bin/roundtable.js',
      'dist/daemon/cli.js',
      'dist/daemon/sql-wasm.wasm',
      'examples/demo-script.json',
    ])
      assert.ok(names.includes(`package/${file}`), `${file} is missing from the tarball`);
    assert.deepEqual(entries.filter(notShipped), []);
    assert.ok(
      !names.some((n) => n.startsWith('package/dist/extension/')),
      'the extension bundle is in the CLI package',
    );
    const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(manifest.dependencies ?? {}, {}, 'the bundled CLI needs no installed dependency');
  });

  it('installs offline and runs the demo meeting in an empty folder outside any repository', async () => {
    const prefix = path.join(tmp, 'global');
    npm(['install', '--global', '--prefix', prefix, '--offline', tarball], tmp);
    const bin = path.join(prefix, 'bin', 'roundtable');
    assert.ok(existsSync(bin), 'npm install -g put no roundtable command on the PATH');
    const empty = path.join(tmp, 'empty');
    await mkdir(empty);
    const env = { HOME: path.join(tmp, 'home'), ROUNDTABLE_HOME: path.join(tmp, 'home', '.roundtable') };

    const help = await cli(['--help'], { bin, cwd: empty, env });
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: roundtable <command>/);

    const run = await cli(['run', '--topic', 'Should we adopt a monorepo?'], {
      bin,
      cwd: empty,
      env,
      timeoutMs: 120_000,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /ada \(worker\)/);
    assert.match(run.stdout, /■ Meeting closed: consensus_full/);
    const minutes = /Minutes: (.+\.md)/.exec(run.stdout)?.[1];
    assert.ok(minutes && minutes.startsWith(path.join(empty, 'docs', 'roundtable')), `minutes written to ${minutes}`);
    assert.match(await readFile(minutes, 'utf8'), /## Stance matrix/);
  });
});
