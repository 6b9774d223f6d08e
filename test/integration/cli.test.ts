import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { cli, ensureBuilt } from '../fakes/cli';

const fast = ['--script', path.join(__dirname, '..', 'fixtures', 'fast-script.json')];

async function tmp(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'rt-cli-'));
}

describe('roundtable run (CLI)', () => {
  before(ensureBuilt);

  it('runs the demo meeting with no keys and no server, streams the room and writes minutes', async () => {
    const out = await tmp();
    const r = await cli(['run', '--topic', 'Should we adopt a monorepo?', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /── Round 1 of 10/);
    assert.match(r.stdout, /ada \(worker\)/);
    assert.match(r.stdout, /→ grace: DISAGREE/);
    assert.match(r.stdout, /■ Meeting closed: consensus_full/);
    assert.match(r.stdout, /DIGEST\nTOPIC: Should we adopt a monorepo\?\nCONSENSUS: FULL/);
    const minutes = /Minutes: (.+\.md)/.exec(r.stdout)?.[1];
    assert.ok(minutes && existsSync(minutes), 'minutes file exists');
    assert.ok(minutes.startsWith(out));
    assert.match(await readFile(minutes, 'utf8'), /## Stance matrix/);
  });

  it('prints one JSON object with --json, and keeps stdout clean of the room', async () => {
    const out = await tmp();
    const r = await cli([
      'run',
      '--topic',
      'Pick a queue',
      '--json',
      '--out',
      out,
      '--max-rounds',
      '2',
      '--budget',
      '9000',
      '--order',
      'sequential',
      ...fast,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 1);
    const j = JSON.parse(lines[0] ?? '') as Record<string, unknown> & { tokens: Record<string, number> };
    for (const key of ['meetingId', 'terminatedBy', 'consensus', 'rounds', 'tokens', 'minutesPath', 'digest'])
      assert.ok(key in j, key);
    assert.equal(j.terminatedBy, 'max_rounds');
    assert.equal(j.rounds, 2);
    assert.equal(j.tokens.budget, 9000);
    assert.ok((j.tokens.spoken ?? 0) > 0 && (j.tokens.prompt ?? 0) > 0 && (j.tokens.completion ?? 0) > 0);
    assert.ok(['FULL', 'MAJORITY', 'NONE'].includes(j.consensus as string));
    assert.match(r.stderr, /Round 2 of 2 \(final\)/, 'the room goes to stderr with --json');
  });

  const bad: [string, string[], RegExp][] = [
    ['an unknown flag', ['run', '--topic', 'x', '--frobnicate'], /Unknown option '--frobnicate'/],
    ['an empty topic', ['run', '--topic', '   '], /--topic is required and must not be empty/],
    ['a missing topic', ['run'], /--topic is required/],
    [
      'a budget that is not a number',
      ['run', '--topic', 'x', '--budget', 'lots'],
      /--budget must be a positive integer, got "lots"/,
    ],
    ['a zero budget', ['run', '--topic', 'x', '--budget', '0'], /--budget must be a positive integer/],
    ['a negative budget', ['run', '--topic', 'x', '--budget=-5'], /--budget must be a positive integer/],
    [
      'a fractional max rounds',
      ['run', '--topic', 'x', '--max-rounds', '2.5'],
      /--max-rounds must be a positive integer/,
    ],
    [
      'an unknown order',
      ['run', '--topic', 'x', '--order', 'random'],
      /--order must be parallel, sequential or shuffle/,
    ],
    [
      'an unreadable participants file',
      ['run', '--topic', 'x', '--participants', '/nonexistent/panel.json'],
      /cannot read participants file \/nonexistent\/panel\.json: ENOENT/,
    ],
    [
      'an unreadable script',
      ['run', '--topic', 'x', '--script', '/nonexistent/s.json'],
      /cannot read script \/nonexistent\/s\.json: ENOENT/,
    ],
    ['an unknown command', ['debate'], /unknown command "debate"/],
    ['a flag given twice', ['run', '--topic', 'a', '--topic', 'b'], /--topic is given twice: give it once/],
    ['a budget given twice', ['run', '--topic', 'x', '--budget', '10', '--budget', '20000'], /--budget is given twice/],
    [
      'a negative budget after a space',
      ['run', '--topic', 'x', '--budget', '-5'],
      /--budget must be a positive integer, got "-5"/,
    ],
    [
      'a negative time limit',
      ['run', '--topic', 'x', '--time-limit', '-0.5'],
      /--time-limit must be a positive integer, got "-0\.5"/,
    ],
    [
      'the same option twice (case and spaces aside)',
      ['run', '--topic', 'x', '--mode', 'consensus', '--option', 'Postgres', '--option', ' postgres '],
      /--option "postgres" is given twice: every option must differ/,
    ],
    [
      'a data dir that is a file',
      ['run', '--topic', 'x', '--data-dir', __filename],
      /the data dir .* is a file, not a folder/,
    ],
    [
      'a data dir inside a file',
      ['minutes', 'm-x', '--data-dir', path.join(__filename, 'd')],
      /the data dir .* is inside a file/,
    ],
    [
      // Without --model the server's model list builds the panel: a server that is down says so.
      'openai without a model on a server that is down',
      ['run', '--topic', 'x', '--provider', 'openai', '--base-url', 'http://127.0.0.1:9/v1'],
      /http:\/\/127\.0\.0\.1:9\/v1 is unreachable .* — start it/,
    ],
  ];
  for (const [what, args, message] of bad) {
    it(`exits 2 with one clear line on ${what}`, async () => {
      const r = await cli(args);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line, got: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    });
  }

  it('exits 2 on a panel with fewer than 2 workers or bad JSON', async () => {
    const dir = await tmp();
    const one = path.join(dir, 'one.json');
    await writeFile(
      one,
      JSON.stringify([
        { name: 'sam', role: 'assistant', provider: 'scripted', model: 's' },
        { name: 'ada', role: 'worker', provider: 'scripted', model: 's' },
      ]),
    );
    let r = await cli(['run', '--topic', 'x', '--participants', one]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /needs at least 2 workers, got 1/);
    const broken = path.join(dir, 'broken.json');
    await writeFile(broken, '{ "participants": [');
    r = await cli(['run', '--topic', 'x', '--participants', broken]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /is not valid JSON/);
    const unreadable = path.join(dir, 'secret.json');
    await writeFile(unreadable, '[]');
    await chmod(unreadable, 0o000);
    if (process.getuid?.() !== 0) {
      r = await cli(['run', '--topic', 'x', '--participants', unreadable]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /EACCES/);
    }
  });

  it('exits 2 with a clear line when the model server is unreachable', async () => {
    const r = await cli([
      'run',
      '--topic',
      'x',
      '--provider',
      'openai',
      '--model',
      'm',
      '--base-url',
      'http://127.0.0.1:9/v1',
    ]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /the model server http:\/\/127\.0\.0\.1:9\/v1 is unreachable/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  it('a minutes folder that cannot be written is bad usage, said before the meeting starts (exit 2, one line)', async () => {
    const home = await tmp();
    const blocker = path.join(await tmp(), 'a-file');
    await writeFile(blocker, 'not a folder');
    const r = await cli(
      ['run', '--topic', 'Where do minutes go?', '--out', path.join(blocker, 'minutes'), '--max-rounds', '1', ...fast],
      { env: { ROUNDTABLE_HOME: home } },
    );
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /^roundtable: --out: cannot write .*a-file\/minutes: a part of that path is a file, not a folder \(ENOTDIR\)\n$/,
    );
    assert.doesNotMatch(r.stdout, /Round 1/, 'no meeting ran');
    assert.equal(existsSync(path.join(home, 'runs')), false, 'no run was logged');
    const unknown = await cli(['minutes', 'm-nope'], { env: { ROUNDTABLE_HOME: home } });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no meeting m-nope/);
  });

  it('on a full disk keeps the meeting and renders the minutes later (exit 4); a read-only folder is bad usage', async (t) => {
    const mnt = await tmp();
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', mnt], { stdio: 'pipe' });
    } catch {
      t.skip('mounting a small tmpfs needs root (CI runs as root)');
      return;
    }
    try {
      await writeFile(path.join(mnt, 'filler'), Buffer.alloc(16 * 1024)).catch(() => undefined);
      const home = await tmp();
      const full = await cli(['run', '--topic', 'Full disk', '--out', mnt, '--max-rounds', '1', ...fast], {
        env: { ROUNDTABLE_HOME: home },
      });
      assert.equal(full.code, 4, full.stderr);
      assert.match(full.stderr, /could not write the minutes to .*: the disk is full \(ENOSPC\)\. Nothing is lost/);
      const id = /roundtable minutes (\S+) --out/.exec(full.stderr)?.[1] ?? '';
      const again = await cli(['minutes', id, '--out', await tmp()], { env: { ROUNDTABLE_HOME: home } });
      assert.equal(again.code, 0, again.stderr);
      const file = /Minutes: (.+\.md)/.exec(again.stdout)?.[1] ?? '';
      assert.match(await readFile(file, 'utf8'), /# Roundtable minutes: Full disk[\s\S]*## Digest/);
      execFileSync('mount', ['-o', 'remount,ro', mnt], { stdio: 'pipe' });
      const ro = await cli(['run', '--topic', 'Read-only', '--out', mnt, '--max-rounds', '1', ...fast], {
        env: { ROUNDTABLE_HOME: home },
      });
      assert.equal(ro.code, 2, ro.stderr);
      assert.match(ro.stderr, /^roundtable: --out: cannot write .*: the folder is not writable \(EROFS\)\n$/);
    } finally {
      execFileSync('umount', [mnt], { stdio: 'pipe' });
    }
  });

  it('does not hang on an output folder under /proc: bad usage in one line before the meeting (exit 2)', async (t) => {
    if (!existsSync('/proc/self')) {
      t.skip('no /proc on this system');
      return;
    }
    const home = await tmp();
    const r = await cli(['run', '--topic', 'Proc', '--out', '/proc/self/x', '--max-rounds', '1', ...fast], {
      env: { ROUNDTABLE_HOME: home },
      timeoutMs: 30_000,
    });
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /^roundtable: --out: cannot write \/proc\/self\/x: a folder cannot be created there \(ENOENT\)\n$/,
    );
  });

  it('prints model text without its terminal escape sequences', async () => {
    const dir = await tmp();
    const script = path.join(dir, 'escapes.json');
    const evil = 'Clear\u001b[2J title\u001b]0;PWNED\u0007 clip\u001b]52;c;cHduZWQ=\u0007 bell\u0007 c1\u009b31m done';
    await writeFile(
      script,
      JSON.stringify({
        replies: {
          ada: [`${evil} [STANCE: AGREE]`],
          grace: [`${evil} [STANCE: AGREE]`],
          linus: [`${evil} [STANCE: AGREE]`],
        },
      }),
    );
    const r = await cli(['run', '--topic', 'Escapes', '--out', dir, '--max-rounds', '1', '--script', script]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Clear title clip bell c1 done/, 'the words are printed');
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(r.stdout + r.stderr, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    // Where the sequences were printed whole (the room), their payloads go with them.
    assert.match(r.stdout, /\n {4}Clear title clip bell c1 done \[STANCE: AGREE\]\n/);
  });

  it('prints help with exit 0', async () => {
    const r = await cli(['run', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /--participants FILE/);
  });
});
