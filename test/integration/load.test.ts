/**
 * Load on loopback: 1,000 concurrent WebSocket clients subscribe to 10 running meetings and post
 * into them for a bounded time. The daemon stays responsive (request latency is reported, not
 * asserted), every client sees its meeting's log without a gap, and every acknowledged post is in
 * the log. The meetings' workers think until the cut, so the meetings run however slow the machine.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DaemonEvents, MeetingEvent } from '@roundtable/protocol';
import { connectDaemon, type DaemonConnection } from '@roundtable/client';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { tempDataDir } from '../fakes/daemon';
import { heldTurns, panel } from '../fakes/meetings';

const CLIENTS = 1_000;
const MEETINGS = 10;
const DURATION_MS = 4_000;

describe('load: 1,000 concurrent clients', () => {
  let d: DaemonHandle;
  before(async () => {
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: () => undefined });
  });
  after(() => d.stop());

  it('stays responsive and loses nothing', async () => {
    const host = await connectDaemon(d.port, d.token);
    const meetings: string[] = [];
    for (let i = 0; i < MEETINGS; i++) {
      const { meetingId } = await host.rpc.request('meeting/start', {
        topic: `load ${i}`,
        mode: 'roundtable',
        participants: panel(['ada', 'grace'], false),
        config: { maxRounds: 100, tokenBudget: 10_000_000, timeLimitMs: 3_600_000, stopWhenStable: false },
        // The workers think until the cut: the meetings run however long 1,000 clients take to connect.
        providers: { script: { usage: 'approximate', replies: heldTurns(['ada', 'grace']) } },
      });
      meetings.push(meetingId);
    }
    const seen: MeetingEvent[][] = [];
    const clients: DaemonConnection[] = [];
    for (let i = 0; i < CLIENTS; i += 100) {
      clients.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(100, CLIENTS - i) }, (_, k) => {
            const index = i + k;
            seen[index] = [];
            return connectDaemon(d.port, d.token, {
              client: `load-${index}`,
              onEvent: <K extends keyof DaemonEvents>(method: K, p: DaemonEvents[K]) => {
                if (method === 'room/event') seen[index]?.push((p as DaemonEvents['room/event']).event);
              },
            });
          }),
        )),
      );
    }
    await Promise.all(
      clients.map((c, i) =>
        c.rpc.request('room/subscribe', { meetingId: meetings[i % MEETINGS] as string, sinceSeq: 0 }),
      ),
    );
    const latencies: number[] = [];
    const posted = new Map<string, string[]>();
    const deadline = Date.now() + DURATION_MS;
    let errors = 0;
    await Promise.all(
      clients.map(async (c, i) => {
        const meetingId = meetings[i % MEETINGS] as string;
        let n = 0;
        while (Date.now() < deadline) {
          const t = performance.now();
          try {
            const { messageId } = await c.rpc.request('room/post', { meetingId, text: `client ${i} post ${n++}` });
            latencies.push(performance.now() - t);
            const list = posted.get(meetingId) ?? [];
            list.push(messageId);
            posted.set(meetingId, list);
          } catch {
            errors++;
          }
          await new Promise((r) => setTimeout(r, 200 + (i % 7) * 50));
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    const p = (q: number) =>
      Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
    console.log(
      `  load: ${latencies.length} posts by ${CLIENTS} clients in ${DURATION_MS} ms; request latency p50 ${p(0.5)} ms, p99 ${p(0.99)} ms, max ${p(1)} ms; ${errors} errors`,
    );
    assert.equal(errors, 0, 'every post was accepted');
    // An acknowledged post is already in the log: nothing to wait for before the cut.
    for (const meetingId of meetings) await host.rpc.request('meeting/cut', { meetingId });
    for (const meetingId of meetings) {
      const { events } = await host.rpc.request('meeting/get', { meetingId });
      const ids = new Set(events.filter((e) => e.type === 'human_posted').map((e) => e.messageId));
      for (const id of posted.get(meetingId) ?? []) assert.ok(ids.has(id), `acknowledged post ${id} is in the log`);
    }
    for (const [i, events] of seen.entries()) {
      const seqs = events.map((e) => e.seq);
      assert.deepEqual(
        seqs,
        seqs.map((_, k) => k + 1),
        `client ${i} saw its meeting without a gap`,
      );
    }
    await Promise.all([...clients, host].map((c) => c.close()));
  });
});
