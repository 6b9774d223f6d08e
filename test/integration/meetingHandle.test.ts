/**
 * The meeting handle against a real daemon over a real WebSocket: counted per meeting on one
 * connection (what goes on the wire is counted), released by one holder without stopping another,
 * waits that resolve on the event, and the person's requests reaching the daemon.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DaemonMethod, MeetingState, StartMeetingParams } from '@roundtable/protocol';
import {
  DaemonSession,
  connectDaemon,
  conveneAnswer,
  type DaemonConnection,
  type MeetingUpdate,
} from '@roundtable/client';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { tempDataDir } from '../fakes/daemon';
import { heldTurns, panel, turns } from '../fakes/meetings';

const quiet = (): void => undefined;
const params = (script: unknown): StartMeetingParams => ({
  topic: 'Adopt a monorepo?',
  mode: 'roundtable',
  participants: panel(),
  providers: { script },
  config: { maxRounds: 2 },
});
const twoRounds = { replies: { ada: turns(2, 'AGREE'), grace: turns(2, 'DISAGREE'), linus: turns(2, 'NEUTRAL') } };
/** Every reply held: the meeting runs until it is cut. */
const held = { replies: heldTurns(['ada', 'grace', 'linus']) };
const closed = (s: MeetingState): boolean => s.status === 'closed';
const digested = (s: MeetingState): boolean => s.digest !== undefined;
/** A wait that fails in one line instead of hanging the suite. */
const within = { timeoutMs: 20_000 };

/** Counts the requests this client sends, by method, as they leave on the socket. */
function wire(conn: DaemonConnection): (method: DaemonMethod) => number {
  const sent: string[] = [];
  const send = conn.ws.send.bind(conn.ws);
  conn.ws.send = ((data: string, ...rest: never[]) => {
    sent.push((JSON.parse(data) as { method?: string }).method ?? '');
    return send(data, ...rest);
  }) as typeof conn.ws.send;
  return (method) => sent.filter((m) => m === method).length;
}

describe('client: the meeting handle', () => {
  let d: DaemonHandle;
  let conn: DaemonConnection;
  let sent: (method: DaemonMethod) => number;
  before(async () => {
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: quiet });
    conn = await connectDaemon(d.port, d.token);
    sent = wire(conn);
  });
  after(async () => {
    await conn.close();
    await d.stop();
  });

  it('two attaches of one meeting share one subscription and one fold', async () => {
    const { meetingId } = await conn.rpc.request('meeting/start', params(twoRounds));
    const before = sent('room/subscribe');
    const [a, b] = await Promise.all([conn.meetings.attach(meetingId), conn.meetings.attach(meetingId)]);
    await a.until(digested, within);
    assert.equal(sent('room/subscribe') - before, 1, 'one room/subscribe on the wire for two holders');
    assert.equal(a.state, b.state, 'one fold: both read the same state');
    assert.equal(a.events, b.events, 'one log');
    assert.deepEqual(
      a.events.map((e) => e.seq),
      a.events.map((_e, i) => i + 1),
      'every seq once, in order',
    );
    await a.release();
    assert.equal(sent('room/unsubscribe'), 0, 'the meeting is still held by the other');
    await b.release();
    await b.release();
    assert.equal(sent('room/unsubscribe'), 1, 'the last holder unsubscribes, once');
  });

  it('a holder that releases does not stop another that still follows', async () => {
    const opened = await conn.meetings.open(params(held));
    const other = await conn.meetings.attach(opened.meetingId);
    await opened.release();
    await assert.rejects(opened.until(closed), /cancelled/, 'a released handle waits for nothing');
    // Cut through the one still held: it hears the meeting close, so it was still following.
    await other.cut('the person cut it');
    const state = await other.until(closed, within);
    assert.equal(state.closed?.reason, 'cut');
    assert.match(state.closed?.detail ?? '', /the person cut it/);
    await other.release();
  });

  it('until() resolves on the event, updates() yields each event with the state after it', async () => {
    const handle = await conn.meetings.open(params(twoRounds));
    const updates: MeetingUpdate[] = [];
    const read = (async () => {
      for await (const u of handle.updates()) {
        updates.push(u);
        if (u.event.type === 'digest_ready') break;
      }
    })();
    const state = await handle.untilEvent((e) => e.type === 'digest_ready', 0, within);
    assert.ok(state.digest, 'the state it resolves with holds what the event brought');
    await read;
    assert.ok(updates.length > 0, 'updates arrived');
    for (const u of updates) assert.equal(u.state.lastSeq >= u.event.seq, true, 'state after the event');
    assert.deepEqual(
      updates.map((u) => u.event.seq),
      handle.events.slice(handle.events.length - updates.length).map((e) => e.seq),
      'the updates are the log’s last events, in order',
    );
    await handle.release();
    const done = await handle.updates().next();
    assert.equal(done.done, true, 'a released handle yields nothing more');
  });

  it('decide reaches the daemon and the decision comes back as an event', async () => {
    const handle = await conn.meetings.open(params(twoRounds));
    const digestSeq = (await handle.untilEvent((e) => e.type === 'digest_ready', 0, within)).lastSeq;
    await handle.decide({ decision: 'rejected' });
    const state = await handle.untilEvent((e) => e.type === 'decision_recorded', digestSeq, within);
    assert.equal(state.decision?.decision, 'rejected');
    assert.equal((await d.manager.state(handle.meetingId)).decision?.decision, 'rejected', 'the daemon holds it');
    await handle.release();
  });
});

describe('client: convening on a link that follows the meeting', () => {
  it('uses the link’s one connection and handle: no second socket, and the link still follows after', async () => {
    const dataDir = await tempDataDir();
    const d = await startDaemon({ dataDir, port: 0, log: quiet });
    const session = new DaemonSession({
      dataDir: () => dataDir,
      spawn: false,
      client: 'test',
      log: { info: quiet, warn: quiet, error: quiet },
    });
    try {
      const window = await session.meetings.open(params(twoRounds));
      assert.equal(d.server.connections(), 1, 'the link is connected');
      const r = await conveneAnswer(window);
      assert.ok(r.digest, 'the convene got its digest');
      assert.equal(d.server.connections(), 1, 'convening opened no second connection');
      await window.decide({ decision: 'rejected' });
      const s = await window.untilEvent((e) => e.type === 'decision_recorded', r.state.lastSeq, within);
      assert.equal(s.decision?.decision, 'rejected', 'the link still follows the meeting once the convene is done');
      await window.release();
    } finally {
      session.dispose();
      await d.stop();
    }
  });

  it('the extension opens no connection of its own beside its DaemonSession', () => {
    const dir = path.join(__dirname, '..', '..', 'extension', 'src');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const opens = files.flatMap((f) => {
      const text = readFileSync(path.join(dir, f), 'utf8');
      return [...text.matchAll(/\b(connectDaemon|new DaemonSession|new WebSocket)\(/g)].map((m) => `${f}: ${m[1]}`);
    });
    assert.deepEqual(opens, ['daemonLink.ts: new DaemonSession'], 'one socket per window');
  });
});
