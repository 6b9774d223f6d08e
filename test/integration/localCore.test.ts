/**
 * The meetings a front door runs in its own process (`--no-daemon`, `resolve` of a local run,
 * `eval`) go through the same meeting handle as a daemon's: a core private to the process, on
 * loopback with a token that is never written. One fold per meeting: the room is printed from the
 * handle's, and a resumed run prints its past once.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { connectDaemon } from '@roundtable/client';
import { settles } from '@roundtable/protocol';
import { providerFactory } from '../../daemon/src/daemon/daemon';
import { startLocalCore } from '../../daemon/src/daemon/localCore';
import { MemoryStore } from '../../daemon/src/store/memoryStore';
import { EXIT_AWAITING_HUMAN } from '../../cli/src/escalation';
import { resolveMeeting, runDirCore, runMeeting, type RunIO } from '../../cli/src/follow';
import { RoomPrinter } from '../../cli/src/printer';
import { parseRunArgs, preflight } from '../../cli/src/runCommand';
import { tempDataDir } from '../fakes/daemon';
import { panel, turns } from '../fakes/meetings';

const ROOT = path.resolve(__dirname, '..', '..');

function capture(): { io: RunIO; out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let o = '';
  let e = '';
  stdout.on('data', (d: Buffer) => (o += d.toString()));
  stderr.on('data', (d: Buffer) => (e += d.toString()));
  return {
    io: { stdout, stderr, env: {}, isTTY: false, stdinTTY: false },
    out: () => o,
    err: () => e,
  };
}

describe('the core of this process', () => {
  it('runs a meeting through the meeting handle and answers no one without its unwritten token', async () => {
    const core = await startLocalCore({ store: new MemoryStore(), providers: providerFactory({}) });
    const watch = await core.conn.meetings.open({
      topic: 'Tabs or spaces?',
      mode: 'roundtable',
      participants: panel(['ada', 'grace'], false),
      config: { maxRounds: 1 },
      providers: { script: { replies: { ada: turns(1, 'AGREE'), grace: turns(1, 'AGREE') } } },
    });
    const state = await watch.untilEvent(settles, 0);
    assert.equal(state.status, 'closed');
    assert.deepEqual(
      watch.events.map((e) => e.seq),
      watch.events.map((_, i) => i + 1),
      'the whole log, in order, from the one fold',
    );
    // Another process on this machine that guesses a token is refused: the core is this process's.
    await assert.rejects(connectDaemon(core.conn.port, 'a'.repeat(64), { handshakeTimeoutMs: 5_000 }));
    const port = core.conn.port;
    await core.close();
    await assert.rejects(connectDaemon(port, 'a'.repeat(64), { handshakeTimeoutMs: 5_000 }));
  });

  it('a local run that escalates is resolved from its run dir through the handle, its past printed once', async () => {
    const home = await tempDataDir();
    const out = await tempDataDir();
    const opts = await parseRunArgs(
      [
        ...['--mode', 'consensus', '--topic', 'Which database?', '--option', 'Keep MySQL'],
        ...['--option', 'Move to PostgreSQL', '--provider', 'scripted', '--no-daemon'],
        ...['--script', path.join(ROOT, 'examples', 'demo-split-script.json'), '--out', out, '--data-dir', home],
      ],
      {},
    );
    assert.notEqual(opts, 'help');
    if (opts === 'help') return;
    const { script } = await preflight(opts);
    const run = capture();
    const meetingId = 'local-run-1';
    const core = await runDirCore(home, meetingId, run.io);
    const code = await runMeeting(opts, core, script, new RoomPrinter(run.io.stdout, false), run.io, run.io.stdout);
    assert.equal(code, EXIT_AWAITING_HUMAN, run.err());
    assert.match(run.err(), new RegExp(`resume with: roundtable resolve ${meetingId}`));
    assert.deepEqual(await readdir(home), ['runs'], 'no daemon.json, no lock, no token: nobody else finds it');
    assert.ok(existsSync(path.join(home, 'runs', meetingId)), 'the log is kept in its run dir');

    const again = capture();
    const resumed = await runDirCore(home, meetingId, again.io, { kept: true });
    const answer = { action: 'pick' as const, option: 'O2' };
    const done = await resolveMeeting(
      resumed,
      { meetingId, answer, outDir: out, json: false },
      new RoomPrinter(again.io.stdout, false),
      again.io,
      again.io.stdout,
      (e) => e,
    );
    assert.equal(done, 0, again.err());
    const printed = again.out();
    assert.equal(
      printed.match(/Roundtable · Which database\?/g)?.length,
      1,
      `the opening is printed once:\n${printed}`,
    );
    assert.equal(printed.match(/▲ Escalated to the human/g)?.length, 1, 'the past, from the same fold, once');
    assert.match(printed, /Human: pick O2/);
    const minutes = (await readdir(out)).filter((f) => f.endsWith('.md'));
    assert.equal(minutes.length, 1, 'the report of the escalation is updated in place');
  });
});
