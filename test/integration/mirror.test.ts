/**
 * The client-side meeting mirror and `convene` against a real daemon over a real WebSocket: the
 * events are the ones a scripted meeting really logs, applied one at a time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DaemonEvents, MeetingEvent, StartMeetingParams } from '@roundtable/protocol';
import { fold } from '@roundtable/protocol';
import {
  LogFollower,
  MeetingMirror,
  connectDaemon,
  convene,
  readMeeting,
  type DaemonConnection,
  type RoundProgress,
} from '@roundtable/client';
import { providerFactory, startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { MeetingManager } from '../../daemon/src/daemon/manager';
import { systemClock } from '../../daemon/src/meeting/clock';
import { MemoryStore } from '../../daemon/src/store/memoryStore';
import { tempDataDir } from '../fakes/daemon';
import { panel, turns } from '../fakes/meetings';

const quiet = (): void => undefined;
const params = (script: unknown, topic = 'Adopt a monorepo?'): StartMeetingParams => ({
  topic,
  mode: 'roundtable',
  participants: panel(),
  providers: { script },
  config: { maxRounds: 2 },
});
const twoRounds = {
  replies: { ada: turns(2, 'AGREE'), grace: turns(2, 'DISAGREE'), linus: turns(2, 'NEUTRAL') },
};

describe('client: the meeting mirror', () => {
  let d: DaemonHandle;
  let conn: DaemonConnection;
  let log: MeetingEvent[] = [];
  before(async () => {
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: quiet });
    conn = await connectDaemon(d.port, d.token);
    log = (await readMeeting(conn, (await convene(conn.meetings, params(twoRounds))).meetingId)).events;
  });
  after(async () => {
    await conn.close();
    await d.stop();
  });

  it('applies a real log in order to the state a whole fold gives, telling listeners each event', () => {
    const mirror = new MeetingMirror(log[0]!.meetingId);
    const heard: number[] = [];
    mirror.onEvent((e, s) => heard.push(s.lastSeq === e.seq ? e.seq : -1));
    for (const e of log) assert.equal(mirror.apply(e), true);
    assert.deepEqual(mirror.state, fold(log));
    assert.deepEqual(
      heard,
      log.map((e) => e.seq),
    );
    assert.equal(mirror.lastSeq, log.length);
    assert.deepEqual(new MeetingMirror(log[0]!.meetingId, { events: log }).state, fold(log), 'init events');
  });

  it('ignores a duplicate and another meeting’s event; reports a gap and does not apply it', () => {
    const mirror = new MeetingMirror(log[0]!.meetingId, { events: log.slice(0, 3) });
    const gaps: [number, number][] = [];
    mirror.onGap((expected, got) => gaps.push([expected, got.seq]));
    assert.equal(mirror.apply(log[1]!), false, 'a duplicate');
    assert.equal(mirror.apply({ ...log[3]!, meetingId: 'someone-else' }), false, 'another meeting');
    assert.equal(mirror.apply(log[5]!), false, 'after a gap');
    assert.deepEqual(gaps, [[4, 6]]);
    assert.equal(mirror.lastSeq, 3);
    assert.deepEqual(mirror.events, log.slice(0, 3));
  });

  it('waitFor resolves on the event that makes it true, and at once when it already holds', async () => {
    const mirror = new MeetingMirror(log[0]!.meetingId);
    const closedAt = log.find((e) => e.type === 'meeting_closed')!.seq;
    const waiting = mirror.waitFor((s) => s.status === 'closed');
    let resolvedAt = 0;
    void waiting.then((s) => (resolvedAt = s.lastSeq));
    for (const e of log.slice(0, closedAt)) mirror.apply(e);
    assert.equal((await waiting).status, 'closed');
    assert.equal(resolvedAt, closedAt, 'resolved with the state at the closing event');
    assert.equal((await mirror.waitFor((s) => s.status === 'closed')).lastSeq, closedAt);
  });

  it('waitFor rejects with one line on abort, on timeout, and when the mirror ends', async () => {
    const mirror = new MeetingMirror('m-wait');
    const never = (): boolean => false;
    const ctl = new AbortController();
    const aborted = mirror.waitFor(never, { signal: ctl.signal });
    ctl.abort();
    await assert.rejects(aborted, /^Error: stopped waiting for meeting m-wait: cancelled$/);
    await assert.rejects(mirror.waitFor(never, { timeoutMs: 20 }), /meeting m-wait did not get there within 20 ms/);
    const pending = mirror.waitFor(never);
    mirror.end('the daemon closed the connection before the meeting ended');
    await assert.rejects(pending, /the daemon closed the connection before the meeting ended/);
    await assert.rejects(mirror.waitFor(never), /before the meeting ended/, 'later waits fail too');
  });

  it('a lost frame makes the follower resubscribe once; the mirror ends with the whole log', async () => {
    const route: { to?: LogFollower } = {};
    let frames = 0;
    const lossy = await connectDaemon(d.port, d.token, {
      onEvent: <K extends keyof DaemonEvents>(method: K, p: DaemonEvents[K]) => {
        if (method !== 'room/event') return;
        if (++frames === 5) return; // lost on the way, as a dropped frame would be
        route.to?.receive((p as DaemonEvents['room/event']).event);
      },
    });
    const script = { defaultDelayMs: 10, ...twoRounds };
    const { meetingId } = await lossy.rpc.request('meeting/start', params(script));
    const follower = new LogFollower({ meetingId });
    route.to = follower;
    await follower.attach(lossy.rpc);
    const state = await follower.mirror.waitFor((s) => s.digest !== undefined, { timeoutMs: 60_000 });
    assert.equal(follower.resyncs, 1, 'one gap, one resubscription');
    assert.deepEqual(follower.mirror.events, (await readMeeting(lossy, meetingId)).events);
    assert.deepEqual(state, fold(follower.mirror.events));
    await follower.stop();
    await lossy.close();
  });
});

/** The methods a connection sends from now on, read off the WebSocket itself. */
function methodsSent(conn: DaemonConnection): string[] {
  const out: string[] = [];
  const send = conn.ws.send.bind(conn.ws);
  conn.ws.send = ((data: string, ...rest: unknown[]) => {
    out.push((JSON.parse(data) as { method?: string }).method ?? '');
    return (send as (...a: unknown[]) => void)(data, ...rest);
  }) as typeof conn.ws.send;
  return out;
}

describe('client: convene', () => {
  let d: DaemonHandle;
  let conn: DaemonConnection;
  before(async () => {
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: quiet });
    conn = await connectDaemon(d.port, d.token);
  });
  after(async () => {
    await conn.close();
    await d.stop();
  });

  it('resolves with the digest, reporting each finished round once with stances and gists', async () => {
    const rounds: RoundProgress[] = [];
    let events = 0;
    const sent = methodsSent(conn);
    const r = await convene(conn.meetings, params(twoRounds), {
      onRound: (p) => rounds.push(p),
      onEvent: () => events++,
    });
    assert.deepEqual(sent, ['meeting/start', 'room/unsubscribe'], 'followed without a second read');
    assert.equal(r.cut, false);
    assert.ok(r.digest, 'a digest');
    assert.equal(r.state.digest?.digest, r.digest);
    assert.equal(events, r.state.lastSeq, 'every event once');
    assert.match(r.outcome, /^Round limit reached: \S/);
    assert.deepEqual(
      rounds.map((p) => p.round),
      [1, 2],
    );
    const first = rounds[0]!;
    assert.deepEqual(
      first.posts.map((p) => [p.speaker, p.model, p.stance]),
      [
        ['ada', 'scripted', 'AGREE'],
        ['grace', 'scripted', 'DISAGREE'],
        ['linus', 'scripted', 'NEUTRAL'],
      ],
    );
    assert.match(first.posts[0]!.gist, /^My point number 1, with evidence\. \[STANCE: AGREE\]$/);
    const listed = (await conn.rpc.request('meeting/list', {})).meetings.find((m) => m.meetingId === r.meetingId);
    assert.equal(listed?.digestReady, true, 'the meeting is in the list like any other');
    assert.equal(listed?.decision, undefined, 'and nobody decided for the person');
  });

  it('an abort cuts the meeting and still resolves with the digest', async () => {
    const slow = { text: 'still thinking [STANCE: AGREE]', delayMs: 600_000 };
    const script = { replies: { ada: [slow], grace: [slow], linus: [slow] } };
    const ctl = new AbortController();
    const r = await convene(conn.meetings, params(script), {
      signal: ctl.signal,
      onEvent: (e) => {
        if (e.type === 'round_started') ctl.abort();
      },
    });
    assert.equal(r.cut, true);
    assert.equal(r.state.closed?.reason, 'cut');
    assert.ok(r.digest, 'the digest is written after the cut');
    assert.equal(r.digest.terminatedBy, 'cut');
  });

  it('a meeting that fails resolves with its reason', async () => {
    // One turn each, then every worker's second turn errors.
    const script = {
      onExhausted: 'error',
      replies: { ada: turns(1, 'AGREE'), grace: turns(1, 'NO'), linus: turns(1, 'NO') },
    };
    const r = await convene(conn.meetings, params(script));
    assert.equal(r.cut, false);
    assert.equal(r.state.closed?.reason, 'error');
    assert.match(r.outcome, /^Failed: every worker's turn failed in round 2/);
  });

  it('refuses to start when already cancelled, and bad params reject with the daemon’s line', async () => {
    const ctl = new AbortController();
    ctl.abort();
    await assert.rejects(
      convene(conn.meetings, params(twoRounds), { signal: ctl.signal }),
      /cancelled before the meeting started/,
    );
    await assert.rejects(convene(conn.meetings, params(twoRounds, '')), /topic/);
  });
});

describe('daemon: meeting/list', () => {
  it('reads summaries kept as events are appended: each stored log is folded once, not per list', async () => {
    const store = new MemoryStore();
    let loads = 0;
    const load = store.load.bind(store);
    store.load = (id, since) => {
      loads++;
      return load(id, since);
    };
    let n = 0;
    const managerOn = (): MeetingManager =>
      new MeetingManager({
        store,
        clock: systemClock,
        providers: providerFactory({}),
        log: quiet,
        newId: () => `m-list-${++n}`,
      });
    const first = managerOn();
    const ids = [await first.start(params(twoRounds)), await first.start(params(twoRounds))];
    await Promise.all(ids.map((id) => waitUntilDigest(first, id)));
    await first.shutdown();

    // A restarted daemon: the meetings are only in the store.
    const manager = managerOn();
    const rows = async (): Promise<string[]> =>
      (await manager.list()).map((m) => `${m.meetingId} ${m.status} ${m.lastSeq} ${m.decision ?? 'open'}`);
    loads = 0;
    const listed = await rows();
    assert.equal(loads, 2, 'the first list folds each stored log once');
    const folded = await Promise.all(ids.map(async (id) => fold(await load(id, 0))));
    assert.deepEqual(
      listed,
      folded.map((s) => `${s.meetingId} closed ${s.lastSeq} open`),
    );
    await manager.decide(ids[0]!, 'accepted', {});
    loads = 0;
    const after = await rows();
    assert.equal(loads, 0, 'later lists load no log');
    assert.deepEqual(after, [`${ids[0]} closed ${folded[0]!.lastSeq + 1} accepted`, listed[1]]);
    await manager.shutdown();
  });
});

/** Resolves once the manager has appended the meeting's digest (checked at each event, no polling). */
function waitUntilDigest(manager: MeetingManager, meetingId: string): Promise<void> {
  return new Promise((resolve) => {
    const off = manager.onEvent((e) => {
      if (e.meetingId === meetingId && e.type === 'digest_ready') {
        off();
        resolve();
      }
    });
  });
}
