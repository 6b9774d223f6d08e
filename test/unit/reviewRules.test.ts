/**
 * Which records a review holds a change to, and the new-side lines it may cite: a record whose
 * `scope:` covers a changed path always applies, whatever words it shares with the diff; the other
 * accepted ones are ranked by relevance, at most a cap of them; superseded and rejected records are
 * never rules but are listed with their status; ids are the records' numbers, or their file names
 * when two records share a number.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRecord } from '../../daemon/src/decisions/record';
import { recordIds } from '../../daemon/src/decisions/ids';
import { chooseRules } from '../../daemon/src/review/rules';
import { hunkRanges } from '../../daemon/src/review/change';

const record = (file: string, status: string, title: string, body = '', scope?: string) =>
  parseRecord(
    `docs/decisions/${file}`,
    `---\nstatus: ${status}\n${scope ? `scope: "${scope}"\n` : ''}---\n\n# ${title}\n\n${body}\n`,
  );

describe('the rulebook of a review', () => {
  const scoped = record(
    '0001-one-engine.md',
    'accepted',
    'One engine',
    'Nothing in common with the diff.',
    'services/**',
  );
  const ranked = Array.from({ length: 8 }, (_, i) =>
    record(`00${10 + i}-cache-${i}.md`, 'accepted', `Cache rule ${i}`, 'The cache keeps redis connections.'),
  );
  const superseded = record('0002-redis-cache.md', 'superseded', 'Redis cache', 'The cache keeps redis connections.');
  const rejected = record('0003-memcached.md', 'rejected', 'Memcached cache', 'The cache keeps redis connections.');
  const all = [scoped, superseded, rejected, ...ranked];
  const diff = '+const cache = redis.createClient(); // the cache keeps redis connections\n';

  it('always applies a record scoped to a changed path, then at most the cap of ranked ones; never a superseded or rejected one', () => {
    const { rules, decisions } = chooseRules(all, ['services/orders/cache.ts'], diff, 3);
    assert.equal(rules[0], scoped);
    assert.equal(rules.length, 4);
    assert.ok(!rules.includes(superseded) && !rules.includes(rejected));
    assert.deepEqual(
      decisions.filter((d) => d.status !== 'accepted').map((d) => [d.id, d.status]),
      [
        ['0002', 'superseded'],
        ['0003', 'rejected'],
      ],
    );
  });

  it('a scoped record outside the changed paths is ranked like any other (here: shares no word, left out)', () => {
    const { rules } = chooseRules(all, ['web/cache.ts'], diff, 3);
    assert.ok(!rules.includes(scoped));
    assert.equal(rules.length, 3);
  });

  it('ids are four-digit numbers, or the file name when two records share a number', () => {
    const twin = record('0010-other.md', 'accepted', 'Other');
    const ids = recordIds([scoped, ranked[0]!, twin]);
    assert.deepEqual([ids.get(scoped), ids.get(ranked[0]!), ids.get(twin)], ['0001', '0010-cache-0', '0010-other']);
  });
});

describe('new-side hunk ranges', () => {
  it('reads each hunk header: counts, a one-line hunk, a deletion that names the line before it', () => {
    const diff = [
      'diff --git a/x b/x',
      '@@ -1,3 +1,4 @@',
      ' a',
      '+b',
      '@@ -10 +11 @@',
      '-c',
      '+d',
      '@@ -20,2 +21,0 @@ function f() {',
      '-e',
      '-f',
    ].join('\n');
    assert.deepEqual(hunkRanges(diff), [
      { start: 1, end: 4 },
      { start: 11, end: 11 },
      { start: 21, end: 21 },
    ]);
  });
});
