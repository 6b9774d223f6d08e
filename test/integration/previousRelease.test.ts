/**
 * A data folder written by the previous release (test/fixtures/previousRelease, made by its
 * generate.ts with that release's own daemon) opens in this daemon with nothing lost: every
 * meeting lists as it did, its whole log reads back, its minutes and digest render exactly as
 * that release rendered them, and a decision and an escalation can still be answered.
 *
 * A meeting left waiting for the human is resumed at start-up, which logs `meeting_interrupted`
 * after it (the previous release does the same at each start): that is the only addition.
 */
import assert from 'node:assert/strict';
import { cp, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fold, type MeetingEvent } from '@roundtable/protocol';
import { digestMarkdown, reviewMarkdown } from '@roundtable/protocol/digestMarkdown';
import { readMeeting } from '@roundtable/client';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { Follower, tempDataDir } from '../fakes/daemon';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'previousRelease');

/**
 * Text without the escapes that keep model text from becoming a link or an entity (issue 32:
 * `https\://`, `demo-evidence\.md`, `a\@b`, `\&#x202E;`) or a mention or an issue reference on
 * GitHub (issue 41: `@&#8203;grace`, `#&#8203;12`), which render as nothing: the rest of the
 * document must be what the previous release wrote, byte for byte.
 */
const inert = (markdown: string): string => markdown.replace(/\\([.:@&])/g, '$1').replace(/&#8203;/g, '');

interface Rendered {
  meetingId: string;
  summary: Record<string, unknown>;
  events: number;
  lastSeq: number;
  minutes: string;
  digest?: string;
  review?: string;
}

describe('a data folder written by the previous release', () => {
  let expected: Record<string, Rendered>;
  let d: DaemonHandle;
  let f: Follower;
  before(async () => {
    expected = JSON.parse(await readFile(path.join(FIXTURE, 'expected.json'), 'utf8')) as Record<string, Rendered>;
    const dataDir = await tempDataDir();
    await cp(path.join(FIXTURE, 'data'), dataDir, { recursive: true });
    d = await startDaemon({ dataDir, port: 0, log: () => undefined });
    f = await Follower.connect(d.port, d.token);
  });
  after(async () => {
    await f.conn.close();
    await d.stop();
  });

  it('holds every way a meeting ends', () => {
    const ends = Object.values(expected).map((m) => m.summary.terminatedBy ?? m.summary.status);
    assert.deepEqual(ends, ['consensus_full', 'consensus_full', 'verdict_reached', 'awaiting_human', 'cut', 'error']);
    assert.equal(expected.decided?.summary.decision, 'accepted');
  });

  /** The log as the previous release left it, and what this daemon added on opening it. */
  async function logOf(m: Rendered): Promise<{ kept: MeetingEvent[]; added: MeetingEvent[] }> {
    const { events } = await readMeeting(f.conn, m.meetingId);
    return { kept: events.slice(0, m.events), added: events.slice(m.events) };
  }

  it('reads every log whole, adding nothing but the resumption of a waiting meeting', async () => {
    for (const [name, m] of Object.entries(expected)) {
      const { kept, added } = await logOf(m);
      const seqs = Array.from({ length: m.lastSeq }, (_, i) => i + 1);
      assert.deepEqual(
        kept.map((e) => e.seq),
        seqs,
        `${name}: every event, no gap`,
      );
      const waiting = m.summary.status === 'awaiting_human';
      assert.deepEqual(
        added.map((e) => e.type),
        waiting ? ['meeting_interrupted'] : [],
        name,
      );
    }
  });

  it('lists every meeting with everything the previous release listed', async () => {
    const { meetings } = await f.conn.rpc.request('meeting/list', {});
    for (const [name, m] of Object.entries(expected)) {
      const now = meetings.find((x) => x.meetingId === m.meetingId);
      assert.ok(now, `${name} is listed`);
      const { added } = await logOf(m);
      const was = { ...m.summary, lastSeq: m.lastSeq + added.length };
      for (const [key, value] of Object.entries(was))
        assert.deepEqual(now[key as keyof typeof now], value, `${name}.${key}`);
    }
  });

  it("renders every meeting's minutes and digest exactly as the previous release did", async () => {
    for (const [name, m] of Object.entries(expected)) {
      const { kept, added } = await logOf(m);
      // A closed meeting's minutes as served; a waiting one's by the same renderer over the kept log.
      const minutes =
        added.length === 0
          ? (await f.conn.rpc.request('meeting/render', { meetingId: m.meetingId })).minutes
          : renderMinutes(fold(kept));
      assert.equal(inert(minutes), inert(m.minutes), `${name}: minutes`);
      const s = fold(kept);
      assert.equal(s.digest ? inert(digestMarkdown(s)) : undefined, m.digest && inert(m.digest), `${name}: digest`);
      assert.equal(
        s.digest ? inert(reviewMarkdown(s)) : undefined,
        m.review && inert(m.review),
        `${name}: digest review`,
      );
    }
  });

  it('records a decision on a meeting the previous release closed', async () => {
    const { meetingId } = expected.roundtable as Rendered;
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.conn.rpc.request('meeting/decide', { meetingId, decision: 'accepted' });
    await f.until((ev) => ev.some((e) => e.meetingId === meetingId && e.type === 'decision_recorded'));
    const { meetings } = await f.conn.rpc.request('meeting/list', {});
    assert.equal(meetings.find((x) => x.meetingId === meetingId)?.decision, 'accepted');
  });

  it('resumes the escalation the previous release left waiting: a pick closes it with a digest', async () => {
    const { meetingId } = expected.escalated as Rendered;
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.conn.rpc.request('meeting/resolve', { meetingId, action: 'pick', option: 'O1' });
    await f.until((ev) => ev.some((e) => e.meetingId === meetingId && e.type === 'digest_ready'));
    const s = fold((await readMeeting(f.conn, meetingId)).events);
    assert.equal(s.closed?.reason, 'human_decided');
    assert.match(s.digest?.text ?? '', /\S/);
  });
});
