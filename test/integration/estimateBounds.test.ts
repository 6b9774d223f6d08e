/**
 * The estimate is bounded (issue 32): a large panel and many rounds ran past 60 s and 1.3 GB and
 * went on after the client gave up. Now a meeting whose replies alone pass the work cap is
 * refused in closed form at once, one that passes it while playing is stopped there, both in one
 * line; and the estimate is abandoned when its client hangs up or its caller aborts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Participant, StartMeetingParams } from '@roundtable/protocol';
import { RpcError } from '@roundtable/protocol';
import { connectDaemon } from '@roundtable/client';
import { ESTIMATE_MAX_BILLED, estimateMeeting } from '../../daemon/src/meeting/estimate';
import { ensureBuilt } from '../fakes/cli';
import { spawnDaemonProcess, tempDataDir, type DaemonProcess } from '../fakes/daemon';

function panel(workers: number): Participant[] {
  return [
    { name: 'sam', role: 'assistant', provider: 'openai', model: 'm' },
    { name: 'jude', role: 'judge', provider: 'openai', model: 'm' },
    ...Array.from({ length: workers }, (_, i): Participant => ({
      name: `w${i}`,
      role: 'worker',
      provider: 'openai',
      model: 'm',
    })),
  ];
}

function meeting(workers: number, config: StartMeetingParams['config']): StartMeetingParams {
  return { topic: 'Pick a queue', mode: 'roundtable', participants: panel(workers), config };
}

async function refusal(p: Promise<unknown>): Promise<RpcError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof RpcError, String(e));
    assert.doesNotMatch(e.message, /\n/, 'one line');
    return e;
  }
  assert.fail('expected the estimate to be refused');
}

describe('the estimate is bounded', () => {
  it('30 workers × 100 rounds of 32,000-token replies: refused at once in closed form, one line', async () => {
    const cpu = process.cpuUsage();
    const e = await refusal(
      estimateMeeting(meeting(30, { maxRounds: 100, replyMaxTokens: 32_000, tokenBudget: 10_000_000 })),
    );
    const used = process.cpuUsage(cpu);
    assert.equal(e.code, 'too_large');
    assert.match(
      e.message,
      /^too large to estimate: 30 workers × 100 rounds of 32,000-token replies bill at least 96,000,000 tokens, over the estimate's cap of 10,000,000; estimate a smaller meeting/,
    );
    // Nothing was played: a play of this meeting is minutes of CPU.
    assert.ok(used.user + used.system < 500_000, `${(used.user + used.system) / 1000} ms of CPU`);
  });

  it('a meeting under the closed-form floor that passes the cap while playing is stopped there, naming the round', async () => {
    const e = await refusal(estimateMeeting(meeting(3, { maxRounds: 10, replyMaxTokens: 600 }), { maxBilled: 30_000 }));
    assert.equal(e.code, 'too_large');
    const round = Number(/in round (\d+);/.exec(e.message)?.[1]);
    assert.ok(round >= 1 && round < 10, e.message);
    assert.match(
      e.message,
      /^too large to estimate: 3 workers × 10 rounds went past the estimate's cap of 30,000 billed tokens/,
    );
  });

  it('a consensus meeting names its vote and challenge rounds', async () => {
    const e = await refusal(
      estimateMeeting(
        { ...meeting(4, { challengeRounds: 2 }), mode: 'consensus', options: ['Kafka', 'RabbitMQ'] },
        { maxBilled: 1_000 },
      ),
    );
    assert.match(e.message, /4 workers × 3 rounds went past/);
  });

  it('the default meeting fits well under the cap', async () => {
    const e = await estimateMeeting(meeting(3, {}));
    assert.ok(
      e.allRounds.totalTokens + (e.budgetCut?.totalTokens ?? e.allRounds.totalTokens) < ESTIMATE_MAX_BILLED / 10,
    );
  });

  it('an aborted caller stops the estimate between two calls', async () => {
    const ac = new AbortController();
    const pending = estimateMeeting(meeting(10, { maxRounds: 20, replyMaxTokens: 600 }), { signal: ac.signal });
    setImmediate(() => ac.abort());
    const e = await refusal(pending);
    assert.equal(e.message, 'the estimate was cancelled');
  });

  describe('over the daemon socket', () => {
    let d: DaemonProcess;
    before(async () => {
      ensureBuilt();
      d = await spawnDaemonProcess(await tempDataDir());
    });
    after(() => d.stop());

    it('is abandoned when the client hangs up mid-estimate', async () => {
      const abandoned = new Promise<void>((resolve) => {
        const seen = (): void => {
          if (/estimate abandoned \(the client left\)/.test(d.output())) resolve();
        };
        d.proc.stdout?.on('data', seen);
        d.proc.stderr?.on('data', seen);
      });
      const c = await connectDaemon(d.port, d.token, { client: 'estimate-test' });
      // About 4,000,000 billed tokens of play: seconds of work, were it not abandoned.
      const pending = c.rpc.request('meeting/estimate', meeting(10, { maxRounds: 20, replyMaxTokens: 600 }));
      pending.catch(() => undefined);
      await c.close();
      await abandoned;
    });

    it('numbers past the protocol limits are refused at the boundary, one line each', async () => {
      const c = await connectDaemon(d.port, d.token, { client: 'estimate-test' });
      try {
        for (const config of [
          { maxRounds: 1e9 },
          { maxRounds: 0 },
          { maxRounds: 2.5 },
          { tokenBudget: -1 },
          { tokenBudget: 1e300 },
          { replyMaxTokens: 1e9 },
        ]) {
          await assert.rejects(c.rpc.request('meeting/estimate', meeting(3, config)), (e: Error) => {
            assert.ok(e instanceof RpcError && e.code === 'bad_request', String(e));
            assert.doesNotMatch(e.message, /\n/);
            return true;
          });
        }
        await assert.rejects(c.rpc.request('meeting/estimate', meeting(40, {})), /at most 32 participants/);
      } finally {
        await c.close();
      }
    });
  });
});
