import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { slugify } from '../../protocol/src';
import { renderMinutes, writeMinutes, writeNewFile } from '../../daemon/src/meeting/minutes';
import { runMeeting, turns } from '../fakes/meetings';

async function demoEvents() {
  const { events } = await runMeeting({
    topic: 'Adopt a monorepo? (for 3 services)',
    config: { maxRounds: 2 },
    script: {
      replies: {
        ada: turns(2, 'AGREE'),
        grace: turns(2, 'DISAGREE'),
        linus: turns(2, 'NEUTRAL'),
        jude: ['@grace: no evidence given — cite a case'],
      },
    },
  });
  return events;
}

describe('minutes', () => {
  it('render every section a reviewer needs, from the log alone', async () => {
    const md = renderMinutes(await demoEvents());
    for (const heading of [
      '# Roundtable minutes: Adopt a monorepo?',
      '## Topic',
      '## Participants',
      '## Briefing',
      '## Round 1',
      '## Round 2 (final)',
      '## Stance matrix',
      '## Digest',
      '## Token accounting',
    ]) {
      assert.ok(md.includes(heading), `missing ${heading}`);
    }
    assert.match(md, /\| ada \| worker \| scripted \| scripted \|/);
    assert.match(md, /- \*\*Terminated by:\*\* `max_rounds`/);
    assert.match(md, /- \*\*Started:\*\* \d{4}-\d\d-\d\dT/);
    assert.match(md, /\| grace \| DISAGREE \|/);
    assert.match(md, /\*\*Judge notes:\*\*\n\n> @grace: no evidence given/);
    assert.match(md, /Rolling summary/);
    assert.match(md, /\| ada \| AGREE \| AGREE \|/);
    assert.match(md, /TOKEN COST: \d+ \/ 15,000/);
  });

  it('render the same bytes from the same events', async () => {
    const events = await demoEvents();
    assert.equal(renderMinutes(events), renderMinutes(structuredClone(events)));
  });

  it('are written as YYYY-MM-DD-<slug>.md and never overwrite an existing file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rt-minutes-'));
    const events = await demoEvents();
    const first = await writeMinutes(dir, events);
    const second = await writeMinutes(dir, events);
    assert.match(path.basename(first), /^\d{4}-\d\d-\d\d-adopt-a-monorepo-for-3-services\.md$/);
    assert.equal(path.basename(second), path.basename(first).replace('.md', '-2.md'));
    assert.equal(await readFile(first, 'utf8'), renderMinutes(events));
    assert.deepEqual(
      (await readdir(dir)).filter((f) => f.endsWith('.tmp')),
      [],
      'no temp file left behind',
    );
  });

  it('leave a file someone else wrote untouched', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rt-minutes-'));
    await writeFile(path.join(dir, 'notes.md'), 'mine');
    const written = await writeNewFile(dir, 'notes', 'theirs');
    assert.equal(await readFile(path.join(dir, 'notes.md'), 'utf8'), 'mine');
    assert.equal(path.basename(written), 'notes-2.md');
  });

  it('slugify topics into safe file names', () => {
    assert.equal(slugify('Should we adopt a Monorepo?!'), 'should-we-adopt-a-monorepo');
    assert.equal(slugify('Überprüfung — café'), 'uberprufung-cafe');
    assert.equal(slugify('../../etc/passwd'), 'etc-passwd');
    assert.equal(slugify('???'), 'meeting');
  });
});
