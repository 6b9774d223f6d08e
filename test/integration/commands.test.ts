/**
 * Commands over the real daemon socket: acknowledged only once logged, ids that never collide,
 * and a close that survives kill -9.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MeetingEvent, StartMeetingParams } from '@roundtable/protocol';
import { fold } from '@roundtable/protocol';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { ensureBuilt } from '../fakes/cli';
import { Follower, spawnDaemonProcess, tempDataDir } from '../fakes/daemon';
import { heldTurns, panel, turns } from '../fakes/meetings';

function params(script: unknown): StartMeetingParams {
  return {
    topic: 'Adopt a monorepo?',
    mode: 'roundtable',
    participants: panel(),
    config: { maxRounds: 5, timeLimitMs: 3_600_000 },
    providers: { script },
  };
}

const slow = (delayMs: number) => ({
  defaultDelayMs: delayMs,
  replies: { ada: turns(5, 'AGREE'), grace: turns(5, 'DISAGREE'), linus: turns(5, 'NEUTRAL') },
});

describe('commands over the daemon socket', () => {
  let d: DaemonHandle;
  before(async () => {
    ensureBuilt();
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: () => undefined });
  });
  after(() => d.stop());

  it('gives five concurrent human posts five distinct ids, each in the log when acknowledged', async () => {
    const f = await Follower.connect(d.port, d.token);
    const { meetingId } = await f.conn.rpc.request(
      'meeting/start',
      params({ replies: heldTurns(['ada', 'grace', 'linus']) }),
    );
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => ev.some((e) => e.type === 'round_started'));
    const acks = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => f.conn.rpc.request('room/post', { meetingId, text: `point ${i}` })),
    );
    const ids = acks.map((a) => a.messageId);
    assert.equal(new Set(ids).size, 5, `ids: ${ids.join(', ')}`);
    // Acknowledged means logged: the store already holds every post.
    const { events } = await f.conn.rpc.request('meeting/get', { meetingId });
    const posted = events.filter(
      (e): e is Extract<MeetingEvent, { type: 'human_posted' }> => e.type === 'human_posted',
    );
    assert.deepEqual(posted.map((e) => e.messageId).sort(), [...ids].sort());
    await f.conn.rpc.request('meeting/cut', { meetingId });
    await f.until((ev) => ev.some((e) => e.type === 'digest_ready'));
    await f.conn.close();
  });
});

describe('a close requested before kill -9', () => {
  before(ensureBuilt);

  it('is honoured after the restart, with its own reason, once the round in progress is done', async () => {
    const dataDir = await tempDataDir();
    let daemon = await spawnDaemonProcess(dataDir);
    let f = await Follower.connect(daemon.port, daemon.token);
    const { meetingId } = await f.conn.rpc.request('meeting/start', params(slow(1500)));
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => ev.some((e) => e.type === 'round_started'));
    await f.conn.rpc.request('meeting/close', { meetingId });
    await daemon.kill9();
    await f.conn.close().catch(() => undefined);

    daemon = await spawnDaemonProcess(dataDir);
    try {
      f = await Follower.connect(daemon.port, daemon.token);
      await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
      await f.until((ev) => ev.some((e) => e.type === 'digest_ready'), 60_000);
      const s = fold(f.events);
      assert.equal(s.interruptions.length, 1, 'the daemon was killed once');
      assert.deepEqual(s.closed, { reason: 'cut', detail: 'closed by the human' });
      assert.equal(s.rounds.length, 1, 'no round started after the close');
      assert.equal(Object.keys(s.rounds[0]?.contributions ?? {}).length, 3, 'the round in progress was finished');
      await f.conn.close();
    } finally {
      await daemon.stop();
    }
  });
});
