import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { slugify, fold } from '@roundtable/protocol';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { writeMinutes, writeNewFile } from '@roundtable/client/minutesFile';
import { runMeeting, turns } from '../fakes/meetings';

async function demoEvents() {
  const { events } = await runMeeting({
    topic: 'Adopt a monorepo? (for 3 services)',
    // Three rounds and a low compaction threshold, so round 1 is folded into a rolling summary.
    config: { maxRounds: 3, compactAtTokens: 100 },
    script: {
      replies: {
        ada: turns(3, 'AGREE'),
        grace: turns(3, 'DISAGREE'),
        linus: turns(3, 'NEUTRAL'),
        jude: ['@grace: no evidence given — cite a case'],
      },
    },
  });
  return events;
}

describe('minutes', () => {
  it('render every section a reviewer needs, from the log alone', async () => {
    const md = renderMinutes(fold(await demoEvents()));
    for (const heading of [
      '# Roundtable minutes: Adopt a monorepo?',
      '## Topic',
      '## Participants',
      '## Briefing',
      '## Round 1',
      '## Round 2',
      '## Round 3 (final)',
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
    // The judge addresses a worker as `@name`: made plain, so the minutes on GitHub ping no user of that name.
    assert.match(md, /\*\*Judge notes:\*\*\n\n> @&#8203;grace: no evidence given/);
    assert.match(md, /Rolling summary/);
    assert.match(md, /\| ada \| AGREE \| AGREE \|/);
    // Both figures, named: spoken against the budget and what the calls billed.
    assert.match(
      md,
      /TOKEN COST: spoken \d+ \/ 15,000 budget · billed [\d,]+ tokens \([\d,]+ prompt, [\d,]+ completion, 0 cached\) in 14 calls/,
    );
  });

  it('bill every call per participant and role, and the totals are the usage the log recorded', async () => {
    const events = await demoEvents();
    const md = renderMinutes(fold(events));
    let prompt = 0;
    let completion = 0;
    for (const e of events) {
      if (e.type !== 'usage_recorded') continue;
      prompt += e.usage.promptTokens;
      completion += e.usage.completionTokens;
    }
    const n = (v: number) => v.toLocaleString('en-US');
    assert.ok(prompt > 0 && completion > 0);
    assert.ok(
      md.includes(`| **total** | | 14 | ${n(prompt)} | ${n(completion)} | 0 | ${n(prompt + completion)} | — | 14 |`),
      md.slice(md.indexOf('## Token accounting')),
    );
    assert.match(md, /\| Role \| Calls \| Prompt \| Completion \| Cached \| Total \| Cost \|/);
    assert.match(md, /\| worker \| 9 \| [\d,]+ \| [\d,]+ \| 0 \| [\d,]+ \| — \|/);
    assert.ok(md.includes(`Billed (prompt + completion of every call): ${n(prompt + completion)}.`));
  });

  it('render the same bytes from the same events', async () => {
    const events = await demoEvents();
    assert.equal(renderMinutes(fold(events)), renderMinutes(fold(structuredClone(events))));
  });

  it('are written as YYYY-MM-DD-<slug>.md and never overwrite an existing file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rt-minutes-'));
    const events = await demoEvents();
    const first = await writeMinutes(dir, fold(events));
    const second = await writeMinutes(dir, fold(events));
    assert.match(path.basename(first), /^\d{4}-\d\d-\d\d-adopt-a-monorepo-for-3-services\.md$/);
    assert.equal(path.basename(second), path.basename(first).replace('.md', '-2.md'));
    assert.equal(await readFile(first, 'utf8'), renderMinutes(fold(events)));
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
