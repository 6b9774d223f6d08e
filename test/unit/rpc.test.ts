import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RpcClient, RpcError, type DaemonEvents } from '@roundtable/protocol';

/** A client whose transport records what it sends; the test plays the daemon's side. */
function client() {
  const sent: { id: number; method: string }[] = [];
  const events: [keyof DaemonEvents, unknown][] = [];
  const rpc = new RpcClient(
    { send: (text) => sent.push(JSON.parse(text) as { id: number; method: string }), close: () => undefined },
    (method, params) => events.push([method, params]),
  );
  const answer = (result: unknown): void =>
    rpc.receive(JSON.stringify({ kind: 'response', id: sent.at(-1)?.id, ok: true, result }));
  return { rpc, events, answer };
}

describe('the client checks what the daemon sends', () => {
  it('resolves an answer that fits its method', async () => {
    const { rpc, answer } = client();
    const started = rpc.request('meeting/start', {
      topic: 't',
      mode: 'roundtable',
      participants: [],
    });
    answer({ meetingId: 'm-1', lastSeq: 0 });
    assert.deepEqual(await started, { meetingId: 'm-1', lastSeq: 0 });
  });

  it('refuses an answer that does not fit its method, naming the method and field', async () => {
    const { rpc, answer } = client();
    const listed = rpc.request('meeting/list', {});
    answer({ meetings: [{ meetingId: 7 }] });
    await assert.rejects(listed, (e: unknown) => {
      assert.ok(e instanceof RpcError);
      assert.match(e.message, /answer to meeting\/list is malformed: .*meetings\[0\]/);
      return true;
    });
  });

  it('drops events that are unknown or malformed and passes valid ones on', () => {
    const { rpc, events } = client();
    const send = (method: string, params: unknown): void =>
      rpc.receive(JSON.stringify({ kind: 'event', method, params }));
    send('room/delta', {
      delta: { meetingId: 'm', messageId: 'r1-ada', purpose: 'turn', from: 'ada', round: 1, text: 'hi' },
    });
    send('room/delta', { delta: { meetingId: 'm' } });
    send('room/event', { event: { type: 'meeting_closed', meetingId: 'm', seq: 'x', at: 1, reason: 'cut' } });
    send('lm/exploit', {});
    assert.deepEqual(
      events.map(([m]) => m),
      ['room/delta'],
    );
  });
});
