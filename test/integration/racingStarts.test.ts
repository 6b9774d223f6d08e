/**
 * Clients that start the daemon at the same time all reach the one that won (issue 41): three
 * `roundtable run --daemon` started at once on a loaded machine each spawned a daemon, two of those
 * lost the data dir's lock and exited, and their clients gave up ("the Roundtable daemon did not
 * start") instead of waiting for the winner's daemon.json. Real processes: the winner is held
 * between taking the lock and writing daemon.json until every loser has exited (read from the
 * daemon log the clients append to), so the race goes the same way on any machine.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT, cli, ensureBuilt } from '../fakes/cli';
import { tempDataDir } from '../fakes/daemon';

const fast = ['--script', path.join(ROOT, 'test', 'fixtures', 'fast-script.json')];

/** Resolves once `read()` satisfies `done`, checking again at each change of `file`'s folder. */
async function whenFile(file: string, done: (text: string) => boolean, timeoutMs: number): Promise<void> {
  const read = () => readFile(file, 'utf8').catch(() => '');
  await new Promise<void>((resolve, reject) => {
    const watcher = watch(path.dirname(file), () => void check());
    const timer = setTimeout(() => {
      watcher.close();
      void read().then((t) => reject(new Error(`${file} never said it; it holds:\n${t}`)));
    }, timeoutMs);
    const check = async () => {
      if (!done(await read())) return;
      clearTimeout(timer);
      watcher.close();
      resolve();
    };
    void check();
  });
}

/** The next line of a child's stdout that matches. */
function lineOf(child: ChildProcessWithoutNullStreams, re: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = re.exec(out);
      if (m) {
        child.stdout.off('data', onData);
        resolve(m);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited ${code} before ${re}: ${out}`)));
  });
}

describe('daemon starts that race', () => {
  let winner: ChildProcessWithoutNullStreams | undefined;
  after(() => {
    winner?.kill('SIGTERM');
  });

  it('three `roundtable run --daemon` started at once all run in the one daemon that won', async () => {
    ensureBuilt();
    const dataDir = await tempDataDir();
    const out = await tempDataDir();
    winner = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'test', 'fixtures', 'startingDaemon.ts'), dataDir],
      {
        cwd: ROOT,
      },
    );
    await lineOf(winner, /^locked$/m);
    const runs = [1, 2, 3].map((i) =>
      cli(['run', '--daemon', '--topic', `Race ${i}`, '--max-rounds', '1', '--out', out, ...fast], {
        env: { ROUNDTABLE_HOME: dataDir },
        timeoutMs: 180_000,
      }),
    );
    // Each client's own daemon lost the lock and said so in the log the clients append to.
    await whenFile(
      path.join(dataDir, 'daemon.log'),
      (t) => (t.match(/a Roundtable daemon is already running for/g) ?? []).length >= 3,
      120_000,
    );
    const listening = lineOf(winner, /^listening (\d+)$/m);
    winner.stdin.write('go\n');
    const port = (await listening)[1];
    const results = await Promise.all(runs);
    for (const r of results) {
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`\\(running in the daemon on port ${port}, meeting m-`));
    }
  });
});
