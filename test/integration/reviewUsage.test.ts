/**
 * `roundtable review` says bad usage first (issues 39 and 41): a base that is not in the
 * repository, a ref holding a newline, an output file or folder that cannot be written, a data dir
 * that is a file: each is exit 2 in one line, found before any server is asked (the loopback
 * server sees no request; an unreachable server is never reached first). No output path hangs the
 * command, and an output file that cannot be written at the end does not turn a PROVEN finding
 * into "could not review": the exit still follows the findings, with one line about the file.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { cli } from '../fakes/cli';
import { closedPort } from '../fakes/openaiServer';
import { commitMysqlPool, reviewResponder, reviewSuite, type ReviewRepo } from '../fakes/reviewRepo';

/** Exactly one line on stderr, and nothing more. */
function oneLine(stderr: string): string {
  assert.equal(stderr.endsWith('\n'), true, JSON.stringify(stderr));
  assert.equal(stderr.split('\n').length, 2, `more than one line: ${JSON.stringify(stderr)}`);
  return stderr;
}

describe('roundtable review: usage is found before any server is asked', () => {
  const s = reviewSuite();

  const poolChange = async (): Promise<ReviewRepo> => commitMysqlPool(await s.repo());

  it('a base that is not in the repository is exit 2 even when the server is unreachable', async () => {
    const r = await poolChange();
    const down = `http://127.0.0.1:${await closedPort()}/v1`;
    const res = await cli(['review', '--no-daemon', '--base-url', down, '--model', 'rev-a', '--base', 'no-such-ref'], {
      cwd: r.root,
      env: { ROUNDTABLE_HOME: path.join(r.root, '..', 'home') },
    });
    assert.equal(res.code, 2, res.stderr);
    assert.match(
      oneLine(res.stderr),
      /^roundtable: review: the base "no-such-ref" is not a commit in this repository\n$/,
    );
  });

  it('a setting out of range is exit 2 before the server is asked for its models', async () => {
    const r = await poolChange();
    const down = `http://127.0.0.1:${await closedPort()}/v1`;
    for (const [flag, value, line] of [
      ['--budget', '99999999999', /^roundtable: config\.tokenBudget must be between 1 and /],
      ['--time-limit', '999999999', /^roundtable: config\.timeLimitMs must be between 1 and /],
    ] as const) {
      // No --model: the panel would be built from the server's model list.
      const res = await cli(['review', '--no-daemon', '--base-url', down, flag, value], {
        cwd: r.root,
        env: { ROUNDTABLE_HOME: path.join(r.root, '..', 'home') },
      });
      assert.equal(res.code, 2, res.stderr);
      assert.match(oneLine(res.stderr), line);
    }
  });

  it('a ref holding a newline, a carriage return or a line separator is one line', async () => {
    const r = await poolChange();
    const down = `http://127.0.0.1:${await closedPort()}/v1`;
    for (const ref of ['main\nforged line', 'main\r\nx', 'main\u2028x']) {
      const res = await cli(['review', '--no-daemon', '--base-url', down, '--base', ref], {
        cwd: r.root,
        env: { ROUNDTABLE_HOME: path.join(r.root, '..', 'home') },
      });
      assert.equal(res.code, 2, res.stderr);
      assert.match(oneLine(res.stderr), /^roundtable: --base must name a branch, tag or commit, got "main/);
    }
  });

  it('an output that cannot be written is exit 2 in one line, and no model is asked', async () => {
    const r = await poolChange();
    const blocker = path.join(r.root, '..', 'a-file');
    await writeFile(blocker, 'not a folder');
    const cases: [string[], RegExp][] = [
      // Node's recursive mkdir never settles here: the command used to finish its review, then hang.
      [['--sarif', '/proc/self/nope/x.sarif'], /^roundtable: --sarif: cannot write \/proc\/self\/nope\/x\.sarif: /],
      [['--sarif', '/proc/self/x.sarif'], /^roundtable: --sarif: cannot write \/proc\/self\/x\.sarif: /],
      [
        ['--markdown', path.join(blocker, 'review.md')],
        /^roundtable: --markdown: cannot write .*a-file\/review\.md: a part of that path is a file/,
      ],
      [['--markdown', r.root], /^roundtable: --markdown: cannot write .*: it is a folder, not a file/],
      [
        ['--out', path.join(blocker, 'minutes')],
        /^roundtable: --out: cannot write .*a-file\/minutes: a part of that path is a file/,
      ],
      [['--out', '/proc/self/nope'], /^roundtable: --out: cannot write \/proc\/self\/nope: /],
      [['--data-dir', blocker], /^roundtable: the data dir .*a-file is a file, not a folder/],
    ];
    const asked = s.fake().requests.length;
    const results = await Promise.all(cases.map(([args]) => s.review(r, args)));
    results.forEach((res, i) => {
      const [args, line] = cases[i] as [string[], RegExp];
      assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
      assert.match(oneLine(res.stderr), line, args.join(' '));
    });
    assert.equal(s.fake().requests.length, asked, 'the server was asked nothing');
  });

  it('an output file that cannot be written at the end leaves the verdict alone: exit 1 for a PROVEN finding, one line about the file', async () => {
    const r = await poolChange();
    const out = path.join(r.root, '..', 'out');
    const sarif = path.join(out, 'review.sarif');
    // The place is writable when the review starts; by its end a folder stands where the file goes.
    s.fake().setResponder(async (body) => {
      await mkdir(sarif, { recursive: true });
      return reviewResponder(body);
    });
    try {
      const res = await s.review(r, ['--sarif', sarif, '--markdown', path.join(out, 'review.md')]);
      assert.equal(res.code, 1, res.stderr);
      assert.match(res.stdout, /^PROVEN blocking services\/orders\/db\.ts:2/m);
      assert.match(
        oneLine(res.stderr),
        /^roundtable: --sarif: could not write .*review\.sarif: it is a folder, not a file \(EISDIR\)\n$/,
      );
      assert.match(await readFile(path.join(out, 'review.md'), 'utf8'), /services\/orders\/db\.ts:2/);
      assert.ok(existsSync(sarif));
    } finally {
      s.fake().setResponder(reviewResponder);
    }
  });
});
