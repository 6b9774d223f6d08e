/**
 * kill -9 of the daemon at 20 seeded points of a running meeting. After each restart the meeting
 * goes on; at the end its log equals the log of an uninterrupted run of the same meeting, except
 * for the recorded interruptions (and timestamps). A failing seed can be replayed with
 * ROUNDTABLE_CRASH_SEED.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { MeetingEvent, StartMeetingParams } from '@roundtable/protocol';
import { fold } from '@roundtable/protocol';
import { rng } from '@roundtable/protocol/random';
import { ensureBuilt } from '../fakes/cli';
import { Follower, spawnDaemonProcess, tempDataDir } from '../fakes/daemon';
import { panel } from '../fakes/meetings';

const SEED = Number(process.env.ROUNDTABLE_CRASH_SEED ?? 20261122);
const KILLS = 20;

function params(): StartMeetingParams {
  const say = (w: string, stance: string) =>
    Array.from({ length: 10 }, (_, i) => `${w} round ${i + 1}: an argument with evidence. [STANCE: ${stance}]`);
  return {
    topic: 'Crash me',
    mode: 'roundtable',
    participants: panel(['ada', 'grace', 'linus'], false),
    // A low compaction threshold: a summary call after most rounds, so kills land in compactions too
    // (and the meeting lasts long enough for every kill: its stances never move, so it must not
    // stop when stable).
    config: { maxRounds: 10, timeLimitMs: 3_600_000, compactAtTokens: 100, stopWhenStable: false },
    providers: {
      script: {
        defaultDelayMs: 150,
        replies: { ada: say('ada', 'AGREE'), grace: say('grace', 'DISAGREE'), linus: say('linus', 'NEUTRAL') },
      },
    },
  };
}

/** What must be equal between runs: every event but the interruptions, without time or meeting id. */
function comparable(events: MeetingEvent[]): unknown[] {
  return events
    .filter((e) => e.type !== 'meeting_interrupted')
    .map((e) => {
      const { at: _at, seq: _seq, meetingId: _id, ...rest } = e;
      return rest;
    });
}

async function runToEnd(
  dataDir: string,
  meetingId: string | undefined,
  kills: number[],
): Promise<{ meetingId: string; events: MeetingEvent[]; killed: number }> {
  let daemon = await spawnDaemonProcess(dataDir);
  let f = await Follower.connect(daemon.port, daemon.token);
  const id = meetingId ?? (await f.conn.rpc.request('meeting/start', params())).meetingId;
  let killed = 0;
  for (const delay of kills) {
    await f.conn.rpc.request('room/subscribe', { meetingId: id, sinceSeq: 0 });
    await new Promise((r) => setTimeout(r, delay));
    const { summary } = await f.conn.rpc.request('meeting/get', { meetingId: id });
    if (summary.status === 'closed') break;
    await daemon.kill9();
    killed++;
    await f.conn.close().catch(() => undefined);
    daemon = await spawnDaemonProcess(dataDir);
    f = await Follower.connect(daemon.port, daemon.token);
  }
  await f.conn.rpc.request('room/subscribe', { meetingId: id, sinceSeq: 0 });
  await f.until((ev) => ev.some((e) => e.type === 'digest_ready'), 60_000);
  const { events } = await f.conn.rpc.request('meeting/get', { meetingId: id });
  await f.conn.close();
  await daemon.stop();
  return { meetingId: id, events, killed };
}

describe('kill -9 at seeded points of a running meeting', () => {
  before(ensureBuilt);

  // Twenty real daemon processes started and killed: more than the suite's per-test two minutes
  // on a busy machine.
  it(
    `finishes with the same log as an uninterrupted run (seed ${SEED}, ${KILLS} kills)`,
    { timeout: 360_000 },
    async () => {
      const next = rng(SEED);
      const kills = Array.from({ length: KILLS }, () => 30 + Math.floor(next() * 170));
      const clean = await runToEnd(await tempDataDir(), undefined, []);
      const crashed = await runToEnd(await tempDataDir(), undefined, kills);
      assert.equal(crashed.killed, KILLS, `the meeting was killed ${crashed.killed} times before it ended`);
      const s = fold(crashed.events);
      assert.equal(s.interruptions.length, crashed.killed, 'every interruption is in the log');
      assert.deepEqual(
        crashed.events.map((e) => e.seq),
        crashed.events.map((_, i) => i + 1),
        'no gap in the log',
      );
      assert.deepEqual(
        comparable(crashed.events),
        comparable(clean.events),
        `replay with ROUNDTABLE_CRASH_SEED=${SEED}`,
      );
    },
  );
});
