/**
 * A vscode-lm call is one `lm/chat` request from the daemon to the VS Code window, over the real
 * WebSocket: its reply streams back as `$/progress`, the meeting's cut cancels it in the window,
 * the window going away fails it at once, and a malformed piece is refused where it enters.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LmChatProgress, LmChatResult, LmRequest, MeetingEvent, ServeContext } from '@roundtable/protocol';
import { RpcError, fold } from '@roundtable/protocol';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { Follower, tempDataDir } from '../fakes/daemon';
import { connectWindow, copilotPanel, streamed, type FakeWindow, type LmHandler } from '../fakes/vscodeWindow';

type Call = ServeContext<LmChatProgress>;
const agree = (): Promise<LmChatResult> => Promise.resolve({ ok: true, text: 'ok [STANCE: AGREE]' });

/** A promise and its resolver, to wait for what the window's handler saw. */
function signal(): { seen: Promise<void>; see: () => void } {
  let see!: () => void;
  const seen = new Promise<void>((r) => (see = r));
  return { seen, see };
}

/** Streams a first piece, says it is asked, then holds the call until the daemon cancels it. */
function holdUntilCancelled(asked: () => void, cancelled: () => void, first: object = { text: 'Weighing ' }) {
  return (call: Call): Promise<LmChatResult> => {
    call.progress(first as { text: string });
    asked();
    return new Promise((_resolve, reject) =>
      call.token.onCancellationRequested(() => {
        cancelled();
        reject(new Error('the VS Code request was cancelled'));
      }),
    );
  };
}

describe('vscode-lm: one lm/chat request per call, streamed as progress, cancelled end to end', () => {
  let d: DaemonHandle;
  let f: Follower;
  let win: FakeWindow;
  /** ada's model in the current test; grace always agrees at once. */
  let ada: (r: LmRequest, call: Call) => Promise<LmChatResult> = agree;
  const handler: LmHandler = (r, call) => (r.participant === 'ada' ? ada(r, call) : agree());

  before(async () => {
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: () => undefined });
    f = await Follower.connect(d.port, d.token);
    win = await connectWindow(d.port, d.token, handler);
  });
  after(async () => {
    await win.conn.close();
    await f.conn.close();
    await d.stop();
  });

  async function meeting(topic: string): Promise<string> {
    const { meetingId } = await f.conn.rpc.request('meeting/start', {
      topic,
      mode: 'roundtable',
      participants: copilotPanel(),
      config: { maxRounds: 1 },
    });
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    return meetingId;
  }
  const eventsOf = (id: string): MeetingEvent[] => f.events.filter((e) => e.meetingId === id);
  const until = (id: string, type: MeetingEvent['type']) =>
    f.until((ev) => ev.some((e) => e.meetingId === id && e.type === type));
  /** The id of ada's `lm/chat` request in the window's frames since `from`. */
  const adaCall = (from: number): number | undefined =>
    (
      win.frames
        .slice(from)
        .find(
          (m) =>
            m.kind === 'request' &&
            m.method === 'lm/chat' &&
            (m as { params?: LmRequest }).params?.participant === 'ada',
        ) as { id?: number } | undefined
    )?.id;

  it('streams the reply as progress pieces, in order, one frame each, and posts the answer with its usage', async () => {
    const text = 'From Copilot: yes, the queue holds. [STANCE: AGREE]';
    ada = (_r, call) => streamed(text, 5, { promptTokens: 42, completionTokens: 9 })(call);
    const [sent, got] = [win.sent.length, win.frames.length];
    const id = await meeting('Copilot streams');
    await until(id, 'digest_ready');
    const s = fold(eventsOf(id));
    assert.equal(s.rounds[0]?.contributions.ada?.text, text);
    assert.equal(s.usageByParticipant.ada?.promptTokens, 42, 'the counts VS Code gave are kept');
    const live = f.deltas.filter((x) => x.meetingId === id && x.from === 'ada').map((x) => x.text);
    assert.equal(live.join(''), text, 'the room saw the pieces in order');
    // On the wire, per piece: one `$/progress` up, nothing back (it was a request and its answer).
    const call = adaCall(got);
    const up = win.sent.slice(sent).filter((m) => (m as { params?: { id?: number } }).params?.id === call);
    assert.equal(up.length, Math.ceil(text.length / 5));
    assert.ok(up.every((m) => m.kind === 'event' && m.method === '$/progress'));
    assert.equal(win.sent.slice(sent).filter((m) => m.kind === 'request').length, 0, 'the window asks nothing');
    assert.equal(win.frames.slice(got).filter((m) => m.kind === 'response').length, 0, 'nothing is acknowledged');
  });

  it('a cut of the meeting cancels the call in the window: its token is cancelled', async () => {
    const asked = signal();
    const cancelled = signal();
    ada = (_r, call) => holdUntilCancelled(asked.see, cancelled.see)(call);
    const got = win.frames.length;
    const id = await meeting('Cut while Copilot speaks');
    await asked.seen;
    await f.conn.rpc.request('meeting/cut', { meetingId: id, reason: 'enough' });
    await cancelled.seen;
    const call = adaCall(got);
    assert.ok(
      win.frames
        .slice(got)
        .some((m) => m.method === '$/cancelRequest' && (m as { params?: { id?: number } }).params?.id === call),
      'the daemon sent $/cancelRequest for the call',
    );
    await until(id, 'meeting_closed');
    assert.equal(fold(eventsOf(id)).closed?.reason, 'cut');
  });

  it('refuses a malformed progress piece where it enters: the call fails in one line and is cancelled', async () => {
    const asked = signal();
    const cancelled = signal();
    ada = (_r, call) => holdUntilCancelled(asked.see, cancelled.see, { text: 42 })(call);
    const id = await meeting('Copilot sends junk');
    await asked.seen;
    await cancelled.seen;
    await until(id, 'digest_ready');
    const failure = fold(eventsOf(id)).rounds[0]?.failures.ada?.detail ?? '';
    assert.match(failure, /the VS Code window sent malformed progress: lm\/chat progress\.text must be a string/);
    assert.doesNotMatch(failure, /\n/);
    assert.ok(!f.deltas.some((x) => x.meetingId === id && x.from === 'ada'), 'nothing of it reached the room');
    // Progress for no call of the daemon is refused too.
    const got = win.frames.length;
    win.conn.ws.send(
      JSON.stringify({ kind: 'event', method: '$/progress', params: { id: 999, value: { text: 'x' } } }),
    );
    while (!win.frames.slice(got).some((m) => m.method === 'daemon/error')) await new Promise((r) => setImmediate(r));
  });

  it('a call the window cancels itself (the window closing) fails at once and says so', async () => {
    ada = () => Promise.reject(new RpcError('cancelled', 'the VS Code window is closing'));
    const id = await meeting('The window closes');
    await until(id, 'digest_ready');
    assert.match(
      fold(eventsOf(id)).rounds[0]?.failures.ada?.detail ?? '',
      /the VS Code window answering for vscode-lm participants cancelled the call: the VS Code window is closing/,
    );
  });

  it('refuses a window whose extension cannot answer lm/chat (an older release)', async () => {
    await assert.rejects(
      f.conn.rpc.request('lm/register', { models: [] }),
      (e: unknown) => e instanceof RpcError && e.code === 'bad_request' && /older than the daemon/.test(e.message),
    );
  });

  // Last: it closes the suite's window.
  it('the window disconnecting mid-call fails the call at once, in one line, and the meeting records it', async () => {
    const asked = signal();
    ada = (_r, call) => holdUntilCancelled(asked.see, () => undefined)(call);
    const id = await meeting('The window goes away');
    await asked.seen;
    await win.conn.close();
    await until(id, 'digest_ready');
    const failure = fold(eventsOf(id)).rounds[0]?.failures.ada?.detail ?? '';
    assert.match(failure, /the VS Code window answering for vscode-lm participants went away/);
    assert.doesNotMatch(failure, /\n/);
  });
});
