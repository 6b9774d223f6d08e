/**
 * An error nobody awaited or caught fails the work it belongs to and nothing else
 * (daemon/src/daemon/faults.ts), in a real process: a rejection deep in one meeting's work fails
 * that meeting, an exception thrown in a request's callback fails that request, another meeting
 * finishes, a fault under no owner is logged, and the process goes on to its end (exit 0).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../fakes/cli';

describe('faults nobody awaited or caught', () => {
  it('fail the one owner they belong to, and the process keeps going', () => {
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'test', 'fixtures', 'faultOwners.ts')],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    assert.equal(child.status, 0, child.stderr);
    const lines = child.stdout.trim().split('\n');
    const at = (line: string) => {
      const i = lines.indexOf(line);
      assert.ok(i >= 0, `missing: ${line}\n${child.stdout}`);
      return i;
    };
    assert.deepEqual([...lines].sort(), [
      'B finished',
      'failed meeting A: boom in A',
      'failed request C: thrown in C',
      'log: an unexpected error in meeting A: boom in A',
      'log: an unexpected error in no meeting or request: again in A',
      'log: an unexpected error in no meeting or request: nobody’s',
      'log: an unexpected error in request C: thrown in C',
      'still serving',
    ]);
    assert.ok(at('log: an unexpected error in meeting A: boom in A') < at('failed meeting A: boom in A'));
    assert.ok(at('failed request C: thrown in C') < at('B finished'), 'B went on past the faults');
    assert.equal(lines.at(-1), 'still serving');
  });
});
