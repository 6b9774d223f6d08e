/**
 * The Start trip, as the extension takes it (extension/src/estimate.ts, then the client session's
 * start): the estimate the person sees, then Start. The topic crosses the socket once and the file
 * the person attached is read from disk once — counted at the real boundaries: the request frames
 * written to the WebSocket, and the reads of that file through node:fs. A start token is good on
 * its own connection only; one the daemon no longer holds starts the meeting the full way.
 */
import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import type { MeetingEvent, Participant, StartMeetingParams } from '@roundtable/protocol';
import { RpcError, formatEstimateShort } from '@roundtable/protocol';
import { DaemonSession, connectDaemon } from '@roundtable/client';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { estimateLine } from '../../extension/src/estimate';
import { tempDataDir } from '../fakes/daemon';
import { makeWorkspace, type FakeWorkspace } from '../fakes/workspace';
import { panel } from '../fakes/meetings';
import { MYSQL_POOL, makeReviewRepo } from '../fakes/reviewRepo';

const PANEL: Participant[] = [
  { name: 'sam', role: 'assistant', provider: 'scripted', model: 'scripted' },
  { name: 'ada', role: 'worker', provider: 'scripted', model: 'scripted' },
  { name: 'grace', role: 'worker', provider: 'scripted', model: 'scripted' },
];
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Counts, at the boundaries, what one test does: reads of one file, request frames carrying a text. */
function countBoundaries(file: string, text: string) {
  const counts = { fileReads: 0, topicFrames: 0 };
  const readFile = fsp.readFile;
  fsp.readFile = ((p: Parameters<typeof readFile>[0], ...rest: unknown[]) => {
    if (typeof p === 'string' && p === file) counts.fileReads++;
    return (readFile as (...a: unknown[]) => unknown)(p, ...rest);
  }) as typeof readFile;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, on the prototype
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (this: WebSocket, data: unknown, ...rest: unknown[]) {
    if (typeof data === 'string' && data.includes(text) && (JSON.parse(data) as { kind?: string }).kind === 'request')
      counts.topicFrames++;
    return (send as (...a: unknown[]) => void).call(this, data, ...rest);
  } as typeof send;
  return {
    counts,
    restore: () => {
      fsp.readFile = readFile;
      WebSocket.prototype.send = send;
    },
  };
}

describe('the Start trip: estimate, then Start', () => {
  let ws: FakeWorkspace;
  let d: DaemonHandle;
  let notes: string;
  let session: DaemonSession;
  let restore = () => undefined as void;
  const topic = 'Should the cache be warmed at boot or on the first request?';
  const params = (): StartMeetingParams => ({
    topic,
    mode: 'roundtable',
    participants: PANEL,
    config: { maxRounds: 2 },
    workspace: ws.root,
    context: { paths: ['docs/notes.md'] },
  });

  before(async () => {
    ws = await makeWorkspace();
    notes = await fsp.realpath(path.join(ws.root, 'docs', 'notes.md'));
    const dataDir = await tempDataDir();
    d = await startDaemon({ dataDir, port: 0, log: () => undefined });
    session = new DaemonSession({ dataDir: () => dataDir, spawn: false, client: 'test', log: silent });
    // Loads the tokenizer and connects, so each test times only its own trip.
    const { context: _none, ...bare } = params();
    await session.request('meeting/estimate', bare);
  });
  afterEach(() => restore());
  after(async () => {
    session.dispose();
    await d.stop();
    await rm(path.dirname(ws.root), { recursive: true, force: true });
  });

  /** Starts as the start flow does and resolves with the meeting's events up to its context. */
  async function startAndRead(p: StartMeetingParams, startToken: string | undefined): Promise<MeetingEvent[]> {
    const seen: MeetingEvent[] = [];
    let attached: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (attached = resolve));
    const handle = await session.meetings.open(p, {
      deliver: (e: MeetingEvent) => {
        seen.push(e);
        if (e.type === 'context_attached') attached();
      },
      ...(startToken ? { startToken } : {}),
    });
    await done;
    await handle.release();
    return seen;
  }

  it('sends the topic once and reads the attached file once, and the room gets the file', async () => {
    await session.connection();
    const spy = countBoundaries(notes, topic);
    restore = spy.restore;
    const { line, startToken } = await estimateLine(session, params());
    const events = await startAndRead(params(), startToken);
    const counts = { ...spy.counts };
    spy.restore();
    assert.deepEqual(counts, { fileReads: 1, topicFrames: 1 }, 'the topic and the file, once each');
    const context = events.find((e) => e.type === 'context_attached');
    assert.ok(context?.type === 'context_attached');
    assert.deepEqual(
      context.items.map((i) => [i.path, i.text]),
      [['docs/notes.md', '# Notes\nThe cache is warmed at boot.\n']],
    );
    assert.equal(events[0]?.type, 'meeting_opened');
    // The person sees the same estimate as without a prepared start.
    const plain = await session.request('meeting/estimate', params());
    assert.equal(line, formatEstimateShort(plain));
  });

  it('keeps the rounds and budget the person changed after the estimate', async () => {
    const { startToken } = await estimateLine(session, params());
    assert.ok(startToken);
    const changed = { ...params(), config: { maxRounds: 1, tokenBudget: 9_000 } };
    const spy = countBoundaries(notes, topic);
    restore = spy.restore;
    const events = await startAndRead(changed, startToken);
    assert.deepEqual(spy.counts, { fileReads: 0, topicFrames: 0 }, 'nothing sent or read again');
    const opened = events[0];
    assert.ok(opened?.type === 'meeting_opened');
    assert.equal(opened.config.maxRounds, 1);
    assert.equal(opened.config.tokenBudget, 9_000);
  });

  it("refuses another connection's token in one line, and that connection's token is still good", async () => {
    const { startToken } = await estimateLine(session, params());
    assert.ok(startToken);
    const other = await connectDaemon(d.port, d.token);
    try {
      await assert.rejects(
        other.rpc.request('meeting/startPrepared', { startToken }),
        (e: unknown) =>
          e instanceof RpcError &&
          e.code === 'forbidden' &&
          e.message === 'this start was prepared on another connection: estimate it again on this one',
      );
    } finally {
      await other.close();
    }
    const events = await startAndRead(params(), startToken);
    assert.equal(events[0]?.type, 'meeting_opened');
  });

  it('a token the daemon no longer holds is not_found in one line, and the start goes the full way', async () => {
    const gone = 'a'.repeat(64);
    await assert.rejects(session.request('meeting/startPrepared', { startToken: gone }), (e: unknown) => {
      assert.ok(e instanceof RpcError && e.code === 'not_found', String(e));
      assert.doesNotMatch(e.message, /\n/);
      return true;
    });
    const spy = countBoundaries(notes, topic);
    restore = spy.restore;
    const events = await startAndRead(params(), gone);
    assert.deepEqual(spy.counts, { fileReads: 1, topicFrames: 1 }, 'the full start: topic sent, file read');
    assert.equal(events.find((e) => e.type === 'context_attached')?.type, 'context_attached');
  });

  it("a review's prepared start opens with the scope and context of a full start", async () => {
    const r = await makeReviewRepo();
    try {
      await r.write('services/orders/db.ts', MYSQL_POOL);
      r.git('add', '.');
      r.git('commit', '-qm', 'orders: a MySQL pool');
      const review: StartMeetingParams = {
        topic: 'Review the change',
        mode: 'consensus',
        participants: panel(['ada', 'grace'], false),
        providers: { script: { defaultDelayMs: 5_000, replies: {} } },
        config: { challengeRounds: 0 },
        workspace: r.root,
        review: {},
      };
      const opening = async (startToken?: string) => {
        const rpc = (await session.connection()).rpc;
        const { meetingId } = startToken
          ? await rpc.request('meeting/startPrepared', { startToken })
          : await rpc.request('meeting/start', review);
        const { events } = await rpc.request('meeting/get', { meetingId });
        await rpc.request('meeting/cut', { meetingId });
        return events
          .filter((e) => e.type === 'meeting_opened' || e.type === 'context_attached')
          .map((e) => (e.type === 'meeting_opened' ? e.config.review : e.items.map((i) => [i.kind, i.path, i.text])));
      };
      const { startToken } = await estimateLine(session, review);
      assert.ok(startToken);
      assert.deepEqual(await opening(startToken), await opening());
    } finally {
      await rm(path.dirname(r.root), { recursive: true, force: true });
    }
  });

  it('a token starts one meeting', async () => {
    const { startToken } = await estimateLine(session, params());
    assert.ok(startToken);
    await session.request('meeting/startPrepared', { startToken });
    await assert.rejects(
      session.request('meeting/startPrepared', { startToken }),
      (e: unknown) => e instanceof RpcError && e.code === 'not_found',
    );
  });
});
