/**
 * The front doors that run meetings in their own process (the CLI, eval) reach them through the
 * one meeting handle, as they reach the daemon's: none drives the engine itself or keeps a fold of
 * its own beside the handle's (issue 34: no second follower, no second fold of a log in one process).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * What, in one source file, drives a meeting or follows its log outside the handle. (`roundtable
 * minutes` folds a log it read once: that is the one fold of its process.)
 */
function secondFolds(text: string): string[] {
  const found: string[] = [];
  if (/from\s+['"][^'"]*daemon\/src\/meeting\/engine['"]/.test(text)) found.push('imports the meeting engine');
  for (const m of text.matchAll(/new\s+(MeetingMirror|LogFollower)\b/g)) found.push(`makes a ${m[1]}`);
  return found;
}

describe('one fold per process', () => {
  it('the CLI and eval never drive the engine nor fold a log beside the meeting handle', () => {
    const offences = ['cli/src', 'eval/src'].flatMap((dir) =>
      readdirSync(path.join(ROOT, dir))
        .filter((f) => f.endsWith('.ts'))
        .flatMap((f) => secondFolds(readFileSync(path.join(ROOT, dir, f), 'utf8')).map((why) => `${dir}/${f} ${why}`)),
    );
    assert.deepEqual(offences, []);
  });

  it('the check sees each way a second fold comes in', () => {
    assert.deepEqual(secondFolds(`import { Meeting } from '../../daemon/src/meeting/engine';`), [
      'imports the meeting engine',
    ]);
    assert.deepEqual(secondFolds('const past = new MeetingMirror(id);'), ['makes a MeetingMirror']);
    assert.deepEqual(secondFolds(`import { connectDaemon } from '@roundtable/client';`), []);
  });
});
