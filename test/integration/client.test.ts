/**
 * The client library against a real daemon over a real WebSocket: a follower that loses a frame
 * catches up, a meeting larger than any frame is read whole, a silent server times out and an
 * answer too large for one frame is an explicit error.
 */
import assert from 'node:assert/strict';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocketServer } from 'ws';
import type { DaemonEvents, MeetingEvent, StartMeetingParams } from '@roundtable/protocol';
import { MAX_MESSAGE_BYTES, RpcClient, RpcError } from '@roundtable/protocol';
import { DaemonSession, LogFollower, connectDaemon, readMeeting } from '@roundtable/client';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { SqliteStore } from '../../daemon/src/store/sqliteStore';
import { cli, ensureBuilt } from '../fakes/cli';
import { spawnDaemonProcess, tempDataDir, type DaemonProcess } from '../fakes/daemon';
import { panel, turns } from '../fakes/meetings';

const quiet = (): void => undefined;

function meetingParams(script: unknown): StartMeetingParams {
  return { topic: 'Adopt a monorepo?', mode: 'roundtable', participants: panel(), providers: { script } };
}

/** Resolves when `pred` holds for what was delivered; checked at every delivery, no polling. */
function deliveredUntil(pred: (events: MeetingEvent[]) => boolean): {
  events: MeetingEvent[];
  deliver: (e: MeetingEvent) => void;
  done: Promise<void>;
} {
  const events: MeetingEvent[] = [];
  let resolve = (): void => undefined;
  const done = new Promise<void>((r) => (resolve = r));
  return {
    events,
    deliver: (e) => {
      events.push(e);
      if (pred(events)) resolve();
    },
    done,
  };
}

const seqs = (events: MeetingEvent[]): number[] => events.map((e) => e.seq);
const oneToN = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

describe('client: following a meeting', () => {
  let d: DaemonHandle;
  before(async () => {
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: quiet });
  });
  after(() => d.stop());

  it('a follower that misses an event resubscribes from its cursor: every seq once, no gap', async () => {
    const route: { to?: LogFollower } = {};
    let frames = 0;
    const lost: number[] = [];
    const conn = await connectDaemon(d.port, d.token, {
      onEvent: <K extends keyof DaemonEvents>(method: K, params: DaemonEvents[K]) => {
        if (method !== 'room/event') return;
        const { event } = params as DaemonEvents['room/event'];
        // The 4th and 9th frames are lost on the way, as a dropped frame would be.
        if (++frames === 4 || frames === 9) return void lost.push(event.seq);
        route.to?.receive(event);
      },
    });
    const script = {
      defaultDelayMs: 20,
      replies: { ada: turns(4, 'AGREE'), grace: turns(4, 'DISAGREE'), linus: turns(4, 'NEUTRAL') },
    };
    const { meetingId } = await conn.rpc.request('meeting/start', meetingParams(script));
    const seen = deliveredUntil((ev) => ev.some((e) => e.type === 'digest_ready'));
    const follower = new LogFollower({ meetingId, deliver: seen.deliver });
    route.to = follower;
    await follower.attach(conn.rpc);
    await seen.done;

    assert.equal(lost.length, 2, 'two frames were lost');
    assert.ok(follower.resyncs >= 1, 'the follower noticed the gap and resubscribed');
    assert.deepEqual(seqs(seen.events), oneToN(seen.events.length), 'every seq exactly once, in order');
    const stored = await readMeeting(conn, meetingId);
    assert.deepEqual(seen.events, stored.events, 'what was shown is the whole stored log');
    await conn.close();
  });
});

describe('client: a session across a daemon restart', () => {
  it('reconnects after kill -9 and resumes each followed meeting from its cursor', async () => {
    ensureBuilt();
    const dataDir = await tempDataDir();
    let daemon = await spawnDaemonProcess(dataDir);
    const states: string[] = [];
    const session = new DaemonSession({
      dataDir: () => dataDir,
      spawn: false,
      client: 'test',
      log: { info: quiet, warn: quiet, error: quiet },
      onState: (state) => states.push(state),
    });
    try {
      const script = {
        defaultDelayMs: 60,
        replies: { ada: turns(4, 'AGREE'), grace: turns(4, 'DISAGREE'), linus: turns(4, 'NEUTRAL') },
      };
      const { meetingId } = await session.request('meeting/start', meetingParams(script));
      const early = deliveredUntil((ev) => ev.length >= 8);
      const closed = deliveredUntil((ev) => ev.some((e) => e.type === 'digest_ready'));
      await session.meetings.attach(meetingId, {
        deliver: (e) => {
          early.deliver(e);
          closed.deliver(e);
        },
      });
      await early.done;
      await daemon.kill9();
      daemon = await spawnDaemonProcess(dataDir);
      await closed.done;

      assert.ok(states.filter((s) => s === 'connected').length >= 2, `reconnected: ${states.join(' ')}`);
      assert.deepEqual(seqs(closed.events), oneToN(closed.events.length), 'no gap and no duplicate');
      const conn = await connectDaemon(daemon.port, daemon.token);
      assert.deepEqual(closed.events, (await readMeeting(conn, meetingId)).events);
      await conn.close();
    } finally {
      session.dispose();
      await daemon.stop();
    }
  });
});

describe('client: the CLI in the daemon', () => {
  it('`run --daemon` follows the meeting to its escalation and `resolve` follows it to the end', async () => {
    ensureBuilt();
    const home = await tempDataDir();
    const out = await tempDataDir();
    const daemon = await spawnDaemonProcess(home);
    try {
      const vote = (o1: string, o2: string, file: string): string =>
        JSON.stringify({
          votes: [
            {
              option: 'O1',
              vote: o1,
              confidence: 0.7,
              rationale: `${o1} O1`,
              evidence: [{ file, section: 'top', type: 'code' }],
            },
            {
              option: 'O2',
              vote: o2,
              confidence: 0.7,
              rationale: `${o2} O2`,
              evidence: [{ file, section: 'top', type: 'code' }],
            },
          ],
        });
      const script = path.join(out, 'split.json');
      await writeFile(
        script,
        JSON.stringify({
          replies: {
            ada: Array<string>(3).fill(vote('accept', 'reject', 'package.json')),
            grace: Array<string>(3).fill(vote('reject', 'accept', 'README.md')),
            linus: Array<string>(3).fill(vote('abstain', 'abstain', 'README.md')),
          },
        }),
      );
      const env = { ROUNDTABLE_HOME: home };
      const run = await cli(
        [
          'run',
          '--daemon',
          '--mode',
          'consensus',
          '--topic',
          'Monorepo or polyrepo?',
          '--option',
          'Monorepo',
          '--option',
          'Polyrepo',
          '--script',
          script,
          '--out',
          out,
          '--participants',
          path.join(__dirname, '..', 'fixtures', 'consensus-panel.json'),
        ],
        { env },
      );
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stdout, /running in the daemon/);
      const id = /resume with: roundtable resolve (\S+)/.exec(run.stderr)?.[1];
      assert.ok(id, run.stderr);
      const resolved = await cli(['resolve', id, '--pick', 'O2', '--out', out, '--json'], { env });
      assert.equal(resolved.code, 0, resolved.stderr);
      const j = JSON.parse(resolved.stdout) as { terminatedBy: string; minutesPath: string };
      assert.equal(j.terminatedBy, 'human_decided');
      assert.match(await readFile(j.minutesPath, 'utf8'), /Decision: O2/);
    } finally {
      await daemon.stop();
    }
  });
});

describe('client: a meeting whose log is over 8 MiB', () => {
  let daemon: DaemonProcess;
  let meetingId = '';
  const posts = 230;
  const postChars = 40_000;
  const marker = (i: number): string => `post-${String(i).padStart(3, '0')}-`;

  before(async () => {
    ensureBuilt();
    const dataDir = await tempDataDir();
    // A real meeting first, then a log far larger than one frame appended straight into its store.
    const inProcess = await startDaemon({ dataDir, port: 0, log: quiet });
    const conn = await connectDaemon(inProcess.port, inProcess.token);
    const script = { replies: { ada: turns(4, 'AGREE'), grace: turns(4, 'DISAGREE'), linus: turns(4, 'NEUTRAL') } };
    meetingId = (await conn.rpc.request('meeting/start', meetingParams(script))).meetingId;
    const watch = deliveredUntil((ev) => ev.some((e) => e.type === 'digest_ready'));
    await conn.meetings.attach(meetingId, { deliver: watch.deliver });
    await watch.done;
    await conn.close();
    await inProcess.stop();
    const store = await SqliteStore.open(path.join(dataDir, 'store'));
    for (let i = 0; i < posts; i++) {
      const text = marker(i) + 'x'.repeat(postChars - marker(i).length);
      await store.append(meetingId, {
        type: 'human_posted',
        messageId: `big${i}`,
        from: 'human',
        text,
        tokens: 1,
        round: 0,
      });
    }
    await store.close();
    daemon = await spawnDaemonProcess(dataDir);
  });
  after(async () => {
    await daemon?.stop();
  });

  it('readMeeting pages through all of it in frames under the limit', async () => {
    const conn = await connectDaemon(daemon.port, daemon.token);
    const { summary, events } = await readMeeting(conn, meetingId);
    assert.equal(events.length, summary.lastSeq);
    assert.deepEqual(seqs(events), oneToN(events.length));
    assert.ok(JSON.stringify(events).length > 8 * 1024 * 1024, 'the log is over 8 MiB');
    assert.equal(events.filter((e) => e.type === 'human_posted').length, posts);
    const page = await conn.rpc.request('meeting/get', { meetingId, limit: 5000 });
    assert.equal(page.more, true, 'one page does not carry it all');
    assert.ok(JSON.stringify(page).length < MAX_MESSAGE_BYTES, 'a page fits in a frame');
    await conn.close();
  });

  it('`roundtable minutes <id>` writes minutes with every post', async () => {
    const out = await tempDataDir();
    const r = await cli(['minutes', meetingId, '--out', out], { env: { ROUNDTABLE_HOME: daemon.dataDir } });
    assert.equal(r.code, 0, r.stderr);
    const [file] = (await readdir(out)).filter((f) => f.endsWith('.md'));
    assert.ok(file, `minutes written: ${r.stdout}`);
    const md = await readFile(path.join(out, file), 'utf8');
    for (let i = 0; i < posts; i++) assert.ok(md.includes(marker(i)), `post ${i} is in the minutes`);
  });

  it('the extension’s session follows it whole (one event per frame)', async () => {
    const session = new DaemonSession({
      dataDir: () => daemon.dataDir,
      client: 'test',
      log: { info: quiet, warn: quiet, error: quiet },
    });
    const seen = deliveredUntil((ev) => ev.filter((e) => e.type === 'human_posted').length === posts);
    const lastSeq = (await session.meetings.attach(meetingId, { deliver: seen.deliver })).since;
    await seen.done;
    assert.deepEqual(seqs(seen.events), oneToN(lastSeq));
    session.dispose();
  });

  it('an answer too large for one frame is an explicit too_large error', async () => {
    const conn = await connectDaemon(daemon.port, daemon.token);
    await assert.rejects(
      conn.rpc.request('meeting/render', { meetingId }),
      (e: unknown) => e instanceof RpcError && e.code === 'too_large' && /meeting\/render/.test(e.message),
    );
    // The connection is still good after it.
    assert.equal((await conn.rpc.request('meeting/get', { meetingId, limit: 1 })).events.length, 1);
    await conn.close();
  });
});

describe('client: requests that get no answer', () => {
  it('a request to a server that never answers times out, naming the method', async () => {
    const silent = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((r) => silent.once('listening', () => r()));
    const { port } = silent.address() as AddressInfo;
    await assert.rejects(
      connectDaemon(port, 'any-token', { timeoutMs: 300 }),
      (e: unknown) => e instanceof RpcError && e.code === 'timeout' && /initialize/.test(e.message),
    );
    for (const c of silent.clients) c.terminate();
    await new Promise<void>((r) => silent.close(() => r()));
  });

  it('a cancelled request rejects at once and its late answer is ignored', async () => {
    const sent: string[] = [];
    const rpc = new RpcClient({ send: (t) => sent.push(t), close: quiet });
    const ctl = new AbortController();
    const pending = rpc.request('meeting/list', {}, { signal: ctl.signal, timeoutMs: 0 });
    ctl.abort();
    await assert.rejects(pending, (e: unknown) => e instanceof RpcError && e.code === 'cancelled');
    const { id } = JSON.parse(sent[0] ?? '{}') as { id: number };
    rpc.receive(JSON.stringify({ kind: 'response', id, ok: true, result: { meetings: [] } }));
  });
});
