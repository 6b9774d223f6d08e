/**
 * A model's thinking in the minutes: one line saying how long it thought, without the text,
 * unless asked (`roundtable minutes --thinking`), then an escaped, labelled quote; and the bill
 * says how much of the output was thinking where the servers said.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { MeetingEvent } from '@roundtable/protocol';
import { fold, formatBill } from '@roundtable/protocol';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { minutesCommand } from '../../cli/src/minutesCommand';
import { SqliteStore } from '../../daemon/src/store/sqliteStore';
import { runMeeting, turns } from '../fakes/meetings';

const THINKING = 'Hmm.\n## Not a heading\n<img src=x onerror=alert(1)>\n> [link](javascript:alert(1))';

async function meeting(): Promise<MeetingEvent[]> {
  const { events } = await runMeeting({
    topic: 'Adopt a monorepo?',
    config: { maxRounds: 1 },
    script: { replies: { ada: turns(1, 'AGREE'), grace: turns(1, 'AGREE'), linus: turns(1, 'AGREE') } },
  });
  return events.map((e) => {
    if (e.type === 'message_posted' && e.messageId === 'r1-ada')
      return { ...e, thinking: THINKING, thinkingTokens: 1234 };
    if (e.type === 'usage_recorded' && e.participant === 'ada' && e.purpose === 'turn')
      return { ...e, usage: { ...e.usage, completionTokens: e.usage.completionTokens + 1234, reasoningTokens: 1234 } };
    return e;
  });
}

describe('thinking in the minutes', () => {
  it('says how long a model thought, without the thinking', async () => {
    const md = renderMinutes(fold(await meeting()));
    assert.ok(md.includes('_(thought for 1,234 tokens; not included)_'));
    assert.equal(md.match(/thought for/g)?.length, 1, 'only the message that thought');
    assert.doesNotMatch(md, /Not a heading|onerror/);
  });

  it('with `thinking: true`, quotes it, escaped and labelled', async () => {
    const md = renderMinutes(fold(await meeting()), { thinking: true });
    assert.ok(md.includes('**Thinking of ada** (1,234 tokens, never spoken in the room):'));
    const quoted = md.split('\n').filter((l) => l.startsWith('> ') && /Not a heading|img|link/.test(l));
    assert.equal(quoted.length, 3, 'every line inside the quote');
    assert.doesNotMatch(md, /^> ## Not a heading$/m, 'no heading opens inside the quote');
    assert.doesNotMatch(md, /<img/, 'no raw HTML');
    assert.ok(md.includes('\\[link\\](javascript:alert(1))'), 'the link is escaped into text');
  });

  it('says so, uncounted, when a log holds thinking without its tokens (the engine always logs them)', async () => {
    const events = (await meeting()).map((e) =>
      e.type === 'message_posted' && e.messageId === 'r1-ada' ? { ...e, thinkingTokens: undefined } : e,
    );
    const md = renderMinutes(fold(events));
    assert.ok(md.includes('_(thought for an unrecorded number of tokens; not included)_'));
  });

  it('the bill says how much of the output was thinking', async () => {
    const events = await meeting();
    assert.match(formatBill(fold(events)), /[\d,]+ completion of which 1,234 thinking/);
    assert.match(
      renderMinutes(fold(events)),
      /Thinking: 1,234 of the [\d,]+ completion tokens \(billed, never spoken\)\./,
    );
  });

  it('`roundtable minutes --thinking` writes the thinking; without the flag only the line', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'rt-minutes-'));
    const events = await meeting();
    const id = events[0]!.meetingId;
    const store = await SqliteStore.open(path.join(dataDir, 'runs', id));
    for (const { meetingId: _m, seq: _s, at: _a, ...body } of events) await store.append(id, body);
    await store.close();
    const run = async (...flags: string[]): Promise<string> => {
      let out = '';
      const io = {
        stdout: { write: (s: string) => ((out += s), true) },
        stderr: { write: () => true },
        env: {},
      } as unknown as Parameters<typeof minutesCommand>[1];
      const out_ = path.join(dataDir, `out${flags.length}`);
      assert.equal(await minutesCommand([id, '--data-dir', dataDir, '--out', out_, ...flags], io), 0);
      return readFile(/^Minutes: (.*)$/m.exec(out)?.[1] ?? '', 'utf8');
    };
    assert.match(await run('--thinking'), /\*\*Thinking of ada\*\*/);
    const plain = await run();
    assert.doesNotMatch(plain, /Thinking of ada/);
    assert.match(plain, /thought for 1,234 tokens; not included/);
  });
});
