/**
 * A meeting's lifecycle through a real daemon, as the extension drives it: another round after a
 * digest leads back to a decision on a new digest (both modes), a closed meeting can be deleted
 * from history for good, and a daemon nobody uses stops on its own.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MeetingEvent, StartMeetingParams } from '@roundtable/protocol';
import { RpcError, fold } from '@roundtable/protocol';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { ensureBuilt } from '../fakes/cli';
import { FakeClock } from '../fakes/clock';
import { Follower, spawnDaemonProcess, tempDataDir } from '../fakes/daemon';
import { ballot, heldTurns, panel, turns } from '../fakes/meetings';

const quiet = (): void => undefined;
const digests = (ev: MeetingEvent[]) => ev.filter((e) => e.type === 'digest_ready');

function roundtable(): StartMeetingParams {
  return {
    topic: 'Adopt a monorepo?',
    mode: 'roundtable',
    participants: panel(),
    config: { maxRounds: 2 },
    providers: {
      script: { replies: { ada: turns(4, 'AGREE'), grace: turns(4, 'DISAGREE'), linus: turns(4, 'NEUTRAL') } },
    },
  };
}

/** A consensus meeting whose votes split, so it escalates to the human. */
function splitConsensus(): StartMeetingParams {
  const n = 6;
  return {
    topic: 'Which database?',
    mode: 'consensus',
    options: ['PostgreSQL', 'SQLite'],
    participants: panel(['ada', 'grace'], false),
    config: { challengeRounds: 0 },
    providers: {
      script: {
        replies: {
          ada: Array<string>(n).fill(ballot(['O1', 'accept', 0.7, ['package.json']], ['O2', 'reject', 0.7])),
          grace: Array<string>(n).fill(ballot(['O1', 'reject', 0.7], ['O2', 'accept', 0.7, ['package.json']])),
        },
      },
    },
    workspace: process.cwd(),
  };
}

describe('lifecycle: another round, delete from history', () => {
  let d: DaemonHandle;
  before(async () => {
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: quiet });
  });
  after(() => d.stop());

  it('another round reopens the meeting: a new digest, no decision left, and Accept is taken again', async () => {
    const f = await Follower.connect(d.port, d.token);
    const { meetingId } = await f.conn.rpc.request('meeting/start', roundtable());
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => digests(ev).length === 1);
    const first = fold(f.events);
    await f.conn.rpc.request('meeting/decide', {
      meetingId,
      decision: 'another_round',
      instruction: 'Cost the CI migration.',
      digestText: first.digest?.text ?? '',
    });
    await f.until((ev) => ev.some((e) => e.type === 'round_started' && e.round === first.rounds.length + 1));
    const reopened = fold(f.events);
    assert.equal(reopened.status, 'running');
    assert.equal(reopened.decision, undefined, 'the decision on the old digest is cleared');
    assert.equal(reopened.digest, undefined, 'the old digest is not offered for review');

    await f.until((ev) => digests(ev).length === 2);
    const second = fold(f.events);
    assert.equal(second.status, 'closed');
    assert.equal(second.decision, undefined, 'the new digest waits for a decision');
    assert.equal(second.rounds.length, first.rounds.length + 1, 'exactly one more round ran');
    await f.conn.rpc.request('meeting/decide', {
      meetingId,
      decision: 'accepted',
      digestText: second.digest?.text ?? '',
    });
    await f.until((ev) => ev.some((e) => e.type === 'decision_recorded' && e.decision === 'accepted'));
    assert.equal(fold(f.events).decision?.decision, 'accepted');
    await f.conn.close();
  });

  it('consensus: another round after the human picked an option runs a round and writes a new digest', async () => {
    const f = await Follower.connect(d.port, d.token);
    const { meetingId } = await f.conn.rpc.request('meeting/start', splitConsensus());
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => ev.some((e) => e.type === 'escalated'));
    await f.conn.rpc.request('meeting/resolve', { meetingId, action: 'pick', option: 'O2' });
    await f.until((ev) => digests(ev).length === 1);
    const picked = fold(f.events);
    assert.equal(picked.closed?.reason, 'human_decided');
    const roundsBefore = picked.rounds.length;

    await f.conn.rpc.request('meeting/decide', {
      meetingId,
      decision: 'another_round',
      instruction: 'Weigh the operational cost.',
    });
    await f.until((ev) => ev.some((e) => e.type === 'round_started' && e.round === roundsBefore + 1));
    await f.until((ev) => fold(ev).rounds.at(-1)?.verdict !== undefined);
    const s = fold(f.events);
    const extra = s.rounds.at(-1);
    assert.equal(extra?.round, roundsBefore + 1);
    assert.deepEqual(Object.keys(extra?.ballots ?? {}).sort(), ['ada', 'grace'], 'every worker voted again');
    assert.ok(s.rounds[roundsBefore - 1]?.humanPosts.some((h) => h.text === 'Weigh the operational cost.'));
    await f.conn.close();
  });

  it('a failed meeting (its server unreachable) is shown as failed and refuses Accept', async () => {
    const f = await Follower.connect(d.port, d.token);
    const { meetingId } = await f.conn.rpc.request('meeting/start', {
      topic: 'Adopt a monorepo?',
      mode: 'roundtable',
      participants: panel(['ada', 'grace'], false).map((p) =>
        p.role === 'worker' ? { ...p, provider: 'openai' as const, model: 'gpt-4o-mini' } : p,
      ),
      providers: { baseURL: 'http://127.0.0.1:9/v1' },
      config: { turnTimeoutMs: 5_000 },
    });
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => ev.some((e) => e.type === 'meeting_closed'), 60_000);
    const listed = (await f.conn.rpc.request('meeting/list', {})).meetings.find((m) => m.meetingId === meetingId);
    assert.equal(listed?.terminatedBy, 'error');
    await f.until((ev) => digests(ev).length === 1, 60_000);
    await assert.rejects(
      f.conn.rpc.request('meeting/decide', { meetingId, decision: 'accepted' }),
      (e: RpcError) => e.code === 'conflict' && /retry it or discard it/.test(e.message),
    );
    await f.conn.close();
  });

  it('deletes a closed meeting from history for good, and refuses one still running', async () => {
    const dataDir = await tempDataDir();
    let own = await startDaemon({ dataDir, port: 0, log: quiet });
    const f = await Follower.connect(own.port, own.token);
    const { meetingId } = await f.conn.rpc.request('meeting/start', roundtable());
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => digests(ev).length === 1);
    const slow = await f.conn.rpc.request('meeting/start', {
      ...roundtable(),
      providers: { script: { replies: heldTurns(['ada', 'grace', 'linus']) } },
    });
    await assert.rejects(
      f.conn.rpc.request('meeting/delete', { meetingId: slow.meetingId }),
      (e: RpcError) => e.code === 'conflict' && /cut it first/.test(e.message),
    );
    await f.conn.rpc.request('meeting/cut', { meetingId: slow.meetingId });

    await f.conn.rpc.request('meeting/delete', { meetingId });
    const listed = (await f.conn.rpc.request('meeting/list', {})).meetings.map((m) => m.meetingId);
    assert.ok(!listed.includes(meetingId), 'gone from the list');
    assert.ok(listed.includes(slow.meetingId), 'the other meeting stays');
    await assert.rejects(f.conn.rpc.request('meeting/get', { meetingId }), (e: RpcError) => e.code === 'not_found');
    await f.conn.close();

    // A restart reads the snapshot and the journals: neither brings it back.
    await own.stop();
    own = await startDaemon({ dataDir, port: 0, log: quiet });
    const g = await Follower.connect(own.port, own.token);
    const again = (await g.conn.rpc.request('meeting/list', {})).meetings.map((m) => m.meetingId);
    assert.ok(!again.includes(meetingId), 'still gone after a restart');
    assert.ok(again.includes(slow.meetingId));
    await g.conn.close();
    await own.stop();
  });
});

describe('lifecycle: the daemon stops when nobody needs it', () => {
  it('stays while a client is connected and stops once it has been idle for the configured time (fake clock)', async () => {
    const clock = new FakeClock();
    const d = await startDaemon({
      dataDir: await tempDataDir(),
      port: 0,
      log: quiet,
      idleExitMs: 60_000,
      idleClock: clock,
    });
    let exited = false;
    void d.idleExit.then(() => (exited = true));
    const f = await Follower.connect(d.port, d.token);
    clock.advance(10 * 60_000);
    await new Promise((r) => setImmediate(r));
    assert.equal(exited, false, 'a connected client keeps it');
    assert.equal(clock.pending, 0, 'no countdown while a client is connected');

    await f.conn.close();
    // The countdown is armed once the daemon has seen the client go.
    while (clock.pending === 0) await new Promise((r) => setImmediate(r));
    clock.advance(59_000);
    await new Promise((r) => setImmediate(r));
    assert.equal(exited, false, 'not before the idle time');
    clock.advance(1_000);
    await d.idleExit;
    assert.equal(existsSync(path.join(d.dataDir, 'daemon.json')), false, 'it left no daemon.json behind');
  });

  it('`roundtable daemon --idle-exit-ms` exits by itself after its meeting closed and its last client left', async () => {
    ensureBuilt();
    const dataDir = await tempDataDir();
    // The idle timer runs from the daemon's start: long enough for a loaded machine to connect first.
    const p = await spawnDaemonProcess(dataDir, {}, ['--idle-exit-ms', '5000']);
    const f = await Follower.connect(p.port, p.token);
    const { meetingId } = await f.conn.rpc.request('meeting/start', roundtable());
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => digests(ev).length === 1);
    assert.equal(p.proc.exitCode, null, 'running while the client is connected');
    await f.conn.close();
    assert.equal(await p.exited, 0);
    assert.match(p.output(), /idle for 5 s with no client and no running meeting: stopping/);
    assert.equal(existsSync(path.join(dataDir, 'daemon.json')), false);
  });
});
