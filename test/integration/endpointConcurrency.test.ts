/**
 * How many calls an endpoint takes at once through the daemon, counted on what a real loopback
 * OpenAI-compatible server saw (each request's arrival and end in the server's own order):
 * - a six-worker meeting runs the six turns of a round at once (the limit is the largest round);
 * - a server that reports fewer slots (llama.cpp's `/props` `total_slots`) gets no more than that;
 * - a meeting sharing the endpoint with a meeting whose six workers' model hangs finishes while
 *   the hanging calls are still open: its share never waits for them;
 * - a `/props` figure that is no whole number of slots is not believed.
 * No timing is asserted: a held call is released by the arrival it waits for, never by a clock.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Participant, StartMeetingParams } from '@roundtable/protocol';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { Follower, tempDataDir } from '../fakes/daemon';
import { readServerSlots } from '@roundtable/client/models';
import {
  closedPort,
  seatOf,
  startFakeOpenAI,
  type ChatBody,
  type FakeOpenAI,
  type RecordedRequest,
} from '../fakes/openaiServer';

const SIX = ['ada', 'grace', 'linus', 'ken', 'barbara', 'edsger'];

function panel(workers: string[], model: string): Participant[] {
  return [
    { name: 'sam', role: 'assistant', provider: 'openai', model: 'fake-model' },
    { name: 'jude', role: 'judge', provider: 'openai', model: 'fake-model' },
    ...workers.map((name) => ({ name, role: 'worker' as const, provider: 'openai' as const, model })),
  ];
}

/** Every seat answers at once: workers agree (one round), the assistant writes a digest. */
function answer(body: ChatBody): string {
  const { me, system } = seatOf(body);
  if (/closing digest/.test(system)) return 'CONSENSUS_STATEMENT: agreed\nCONTRIBUTORS: everyone\nDISSENT: none';
  if (me === 'sam') return 'Welcome.';
  if (me === 'jude') return 'CLEAN';
  return `${me}: the queue holds. [STANCE: AGREE]`;
}

/** The most of `calls` the server had under way at once, in its own order of arrivals and ends. */
function peak(calls: RecordedRequest[]): number {
  const marks = calls.flatMap((r): [number, number][] => [
    [r.arrivedStep, 1],
    [r.endedStep ?? Infinity, -1],
  ]);
  marks.sort((a, b) => a[0] - b[0]);
  let now = 0;
  let most = 0;
  for (const [, d] of marks) most = Math.max(most, (now += d));
  return most;
}

const turnsOf = (fake: FakeOpenAI, workers: string[]) =>
  fake.requests.filter((r) => r.path.startsWith('/v1/chat/completions') && workers.includes(seatOf(r.body).me));

function meeting(
  topic: string,
  participants: Participant[],
  baseURL: string,
  config = {},
): StartMeetingParams & { follow: boolean } {
  return {
    follow: true,
    topic,
    mode: 'roundtable',
    participants,
    providers: { baseURL },
    // One round: the workers agree; a slow machine only makes it slower, never shorter.
    config: { maxRounds: 1, turnTimeoutMs: 30_000, ...config },
  };
}

describe('calls at once per endpoint through the daemon', () => {
  let d: DaemonHandle | undefined;
  let f: Follower | undefined;
  let fake: FakeOpenAI | undefined;
  const cleanups: (() => void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) c();
    await f?.conn.close();
    await d?.stop();
    await fake?.close();
  });

  async function daemon(): Promise<Follower> {
    // No ROUNDTABLE_ENDPOINT_CONCURRENCY: the default is under test.
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: () => undefined, env: {} });
    return (f = await Follower.connect(d.port, d.token));
  }

  const closed = (meetingId: string) => (ev: { meetingId: string; type: string }[]) =>
    ev.some((e) => e.meetingId === meetingId && e.type === 'digest_ready');

  it('a six-worker meeting runs the six turns of a round at once', async () => {
    let arrived = 0;
    let all: () => void = () => undefined;
    const together = new Promise<void>((resolve) => (all = resolve));
    // Each turn of round 1 is held until all six have arrived: with fewer slots the held turns
    // only end at their turn timeout, and the count below says how many were under way at once.
    fake = await startFakeOpenAI(async (body) => {
      if (SIX.includes(seatOf(body).me) && ++arrived >= SIX.length) all();
      if (SIX.includes(seatOf(body).me)) await together;
      return answer(body);
    });
    const host = await daemon();
    const { meetingId } = await host.conn.rpc.request(
      'meeting/start',
      meeting('Which queue?', panel(SIX, 'fake-model'), fake.baseURL),
    );
    await host.until(closed(meetingId), 120_000);
    const turns = turnsOf(fake, SIX);
    assert.equal(turns.length, 6);
    assert.equal(peak(turns), 6, 'every worker of the round was asked at once');
  });

  it('a server that reports fewer slots (llama.cpp /props total_slots) gets no more calls at once', async () => {
    // The first turns are held until the daemon holds the other four back for the two slots
    // (its limiter says so) or a third turn arrives (then it did not): then all go on.
    let arrived = 0;
    let go: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (go = resolve));
    fake = await startFakeOpenAI(
      async (body) => {
        if (!SIX.includes(seatOf(body).me)) return answer(body);
        if (++arrived > 2) go();
        await released;
        return answer(body);
      },
      // What llama-server answers (README's sample, trimmed to the fields around the figure).
      {
        props: {
          default_generation_settings: { id: 0, id_task: -1, n_ctx: 8192, speculative: false, is_processing: false },
          total_slots: 2,
          model_path: '../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf',
          chat_template: '...',
          modalities: { vision: false },
          build_info: 'b6000-abcdef0',
          is_sleeping: false,
        },
      },
    );
    const host = await daemon();
    const key = `openai@${fake.baseURL}`;
    const { meetingId } = await host.conn.rpc.request(
      'meeting/start',
      meeting('Which queue?', panel(SIX, 'fake-model'), fake.baseURL),
    );
    while (arrived <= 2 && !(arrived === 2 && (d as DaemonHandle).limiter.waiting(key) === 4)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    go();
    await host.until(closed(meetingId), 120_000);
    const turns = turnsOf(fake, SIX);
    assert.equal(turns.length, 6);
    assert.equal(peak(turns), 2, 'two at a time, as the server said');
    assert.equal(fake.requests.filter((r) => r.path === '/props').length, 1, 'asked once');
  });

  it("a meeting beside one whose six workers' model hangs finishes while those calls are still open", async () => {
    let hung = 0;
    let enough: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => (enough = resolve));
    let unhang: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (unhang = resolve));
    cleanups.push(unhang);
    fake = await startFakeOpenAI(async (body) => {
      if (body.model === 'hang') {
        // Four arrive under any limit the daemon ever had; then the other meeting starts.
        if (++hung === 4) enough();
        await released;
      }
      return answer(body);
    });
    const host = await daemon();
    // Its turns hang far past the test: only a cut ends them.
    const hog = await host.conn.rpc.request(
      'meeting/start',
      meeting('Which queue?', panel(SIX, 'hang'), fake.baseURL, { turnTimeoutMs: 600_000, timeLimitMs: 3_600_000 }),
    );
    await hanging;
    const healthy = await host.conn.rpc.request(
      'meeting/start',
      meeting('Which cache?', panel(['ada', 'grace', 'linus'], 'fake-model'), fake.baseURL),
    );
    await host.until(closed(healthy.meetingId), 120_000);
    const stuck = fake.requests.filter((r) => r.body.model === 'hang');
    assert.ok(stuck.length >= 4, `${stuck.length} hanging calls`);
    assert.ok(
      stuck.every((r) => r.endedAt === undefined),
      'the healthy meeting closed while every hanging call was still open',
    );
    await host.conn.rpc.request('meeting/cut', { meetingId: hog.meetingId });
  });
});

describe("a server's reported slots are checked where they enter", () => {
  it('believes only a whole number of slots from 1 to 4,096 in an answer that is an object', async () => {
    const answers: [unknown, number | undefined][] = [
      [{ total_slots: 3 }, 3],
      [{ total_slots: 1e9 }, undefined],
      [{ total_slots: -1 }, undefined],
      [{ total_slots: 0 }, undefined],
      [{ total_slots: 2.5 }, undefined],
      [{ total_slots: '4' }, undefined],
      [{ default_generation_settings: { n_ctx: 4096 } }, undefined],
      [[{ total_slots: 4 }], undefined],
      [JSON.parse(`${'['.repeat(100)}${']'.repeat(100)}`) as unknown, undefined],
    ];
    for (const [props, slots] of answers) {
      const server = await startFakeOpenAI(() => 'ok', { props });
      try {
        assert.equal(await readServerSlots(server.baseURL), slots, JSON.stringify(props).slice(0, 60));
      } finally {
        await server.close();
      }
    }
    // A server without /props (a 404), and one that is down.
    const plain = await startFakeOpenAI(() => 'ok');
    assert.equal(await readServerSlots(plain.baseURL), undefined);
    await plain.close();
    assert.equal(await readServerSlots(`http://127.0.0.1:${await closedPort()}/v1`), undefined);
  });
});
