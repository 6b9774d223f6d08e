/**
 * The change as the gate reads it, on real temporary git repositories: one git process for the
 * whole change; every file under its exact name, whatever it holds (a newline, a carriage return,
 * U+2028, a zero-width space, a soft hyphen, a bidi override, a quote), its patch's path lines
 * written with the name as reviewers are shown it; taken as text whatever the change's
 * `.gitattributes` say, and without the repository's diff drivers and textconv; a truly binary
 * or oversized file left out with its reason; secret scanning that leaves no performance mark.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { existsSync } from 'node:fs';
import { shownPath } from '@roundtable/protocol';
import { MAX_FILE_BYTES, workspaceGate } from '../../daemon/src/gate';
import { screenContent } from '../../daemon/src/gate/content';
import { gitIn } from '../fakes/workspace';

const temps: string[] = [];
after(async () => {
  for (const t of temps) await rm(t, { recursive: true, force: true });
});

/** A repository with `base` committed on main, then `change` written on top (committed too). */
async function repo(base: Record<string, string | Buffer>, change: Record<string, string | Buffer>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rt-gatediff-'));
  temps.push(dir);
  const root = path.join(dir, 'repo');
  const put = async (files: Record<string, string | Buffer>) => {
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await writeFile(path.join(root, rel), text);
    }
  };
  await put(base);
  gitIn(root, 'init', '-q', '-b', 'main');
  gitIn(root, 'add', '.');
  gitIn(root, 'commit', '-qm', 'base');
  await put(change);
  gitIn(root, 'add', '.');
  gitIn(root, 'commit', '-qm', 'change');
  return root;
}

const passedOf = async (root: string) => {
  const d = await workspaceGate(root).diff(['main~1']);
  if ('error' in d) throw new Error(d.error);
  return d;
};

/** Names a hostile contributor gives files: each breaks a tool that treats a path as a line or as syntax. */
const HOSTILE_NAMES = [
  'src/new\nline.ts',
  'src/carriage\rreturn.ts',
  'src/line\u2028separator.ts',
  'src/db\u200b.ts',
  'src/soft\u00adhyphen.ts',
  'src/evil\u202etxt.ts',
  'src/with "quotes" and \\ backslash.ts',
  'src/a b/ b/c.ts',
  'src/ünïcödé.ts',
];

describe('the change through the gate', () => {
  it('reads a change of many files in one git diff process, not one per file', async () => {
    const files = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`src/f${i}.ts`, `export const v${i} = 2;\n`]),
    );
    const root = await repo({ 'README.md': 'base\n' }, files);
    // A git on PATH that logs each command line, then runs the real git.
    const bin = path.join(path.dirname(root), 'bin');
    await mkdir(bin);
    const log = path.join(bin, 'log');
    const realGit = execFileSync('sh', ['-c', 'command -v git']).toString().trim();
    await writeFile(path.join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realGit}' "$@"\n`);
    await chmod(path.join(bin, 'git'), 0o755);
    const before = process.env.PATH;
    process.env.PATH = `${bin}${path.delimiter}${before ?? ''}`;
    try {
      const d = await passedOf(root);
      assert.equal(d.files.length, 40);
    } finally {
      process.env.PATH = before;
    }
    const diffs = (await readFile(log, 'utf8')).split('\n').filter((l) => / diff /.test(` ${l} `));
    assert.equal(diffs.length, 1, diffs.join('\n'));
  });

  it('reads every file under its exact name, and shows names with invisible characters escaped', async () => {
    const change = Object.fromEntries(HOSTILE_NAMES.map((n, i) => [n, `export const line${i} = ${i};\n`]));
    const root = await repo({ 'README.md': 'base\n', 'src/edited.ts': 'a\n' }, { ...change, 'src/edited.ts': 'b\n' });
    const d = await passedOf(root);
    assert.deepEqual(d.refused, []);
    assert.deepEqual(d.files.map((f) => f.rel).sort(), [...HOSTILE_NAMES, 'src/edited.ts'].sort());
    for (const [i, name] of HOSTILE_NAMES.entries()) {
      const f = d.files.find((x) => x.rel === name);
      assert.ok(f, name);
      const shown = shownPath(name) ?? name;
      assert.ok(f.text.startsWith(`diff --git a/${shown} b/${shown}\n`), JSON.stringify(f.text));
      assert.match(f.text, new RegExp(`^\\+export const line${i} = ${i};$`, 'm'));
      assert.ok(f.text.includes(`\n+++ b/${shown}\n`), JSON.stringify(f.text));
    }
    // The name as shown is one line of visible characters.
    assert.equal(shownPath('src/new\nline.ts'), 'src/new\\nline.ts');
    assert.equal(shownPath('src/db\u200b.ts'), 'src/db\\u200b.ts');
    const edited = d.files.find((f) => f.rel === 'src/edited.ts');
    assert.match(edited?.text ?? '', /^-a\n\+b\n$/m);
  });

  it('takes the change as text: its own .gitattributes cannot hide a file, and no diff driver or textconv of the repository runs', async () => {
    const root = await repo(
      { 'README.md': 'base\n', 'src/hidden.ts': 'old\n' },
      {
        '.gitattributes': 'src/hidden.ts -diff\nsrc/conv.ts diff=evil\n',
        'src/hidden.ts': 'export const HIDDEN_LINE = 1;\n',
        'src/conv.ts': 'export const CONVERTED_LINE = 1;\n',
      },
    );
    const pwned = path.join(path.dirname(root), 'PWNED');
    gitIn(root, 'config', 'diff.evil.textconv', `sh -c 'touch ${pwned}; echo CONVERTED_BY_DRIVER'`);
    gitIn(root, 'config', 'diff.external', `sh -c 'touch ${pwned}'`);
    const d = await passedOf(root);
    const text = (rel: string) => d.files.find((f) => f.rel === rel)?.text ?? '';
    assert.match(text('src/hidden.ts'), /^\+export const HIDDEN_LINE = 1;$/m);
    assert.doesNotMatch(text('src/hidden.ts'), /Binary files/);
    assert.match(text('src/conv.ts'), /^\+export const CONVERTED_LINE = 1;$/m);
    assert.doesNotMatch(d.text, /CONVERTED_BY_DRIVER/);
    assert.equal(existsSync(pwned), false, 'no program of the repository ran');
  });

  it('leaves a truly binary file and an oversized diff out, each with its reason', async () => {
    const root = await repo(
      { 'README.md': 'base\n' },
      {
        'assets/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48]),
        'data/huge.sql': `${'INSERT INTO t VALUES (1);\n'.repeat(Math.ceil(MAX_FILE_BYTES / 26) + 10)}`,
        'src/ok.ts': 'export const ok = 1;\n',
      },
    );
    const d = await passedOf(root);
    assert.deepEqual(
      d.files.map((f) => f.rel),
      ['src/ok.ts'],
    );
    const why = Object.fromEntries(d.refused.map((r) => [r.path, r.reason]));
    assert.equal(why['assets/logo.png'], 'is a binary file; left out of the git diff');
    assert.equal(why['data/huge.sql'], `has a diff larger than ${MAX_FILE_BYTES} bytes; left out of the git diff`);
  });

  it('scans for secrets without leaving a performance mark: nothing grows with what the process scanned', async () => {
    const marks = () => performance.getEntriesByType('mark').length;
    const before = marks();
    for (let i = 0; i < 20; i++) {
      const r = await screenContent(`const token = "ghp_${'A1b2C3d4E5'.repeat(3)}abcdef";\nline ${i}\n`);
      assert.ok(r.ok && r.redacted.length === 1);
    }
    assert.equal(marks(), before);
  });
});
