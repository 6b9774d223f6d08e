/**
 * The real bill next to the budget: a billed budget basis caps what the calls cost with the same
 * 80% / 100% rules, and the estimate made before the start is close to what the meeting bills.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MeetingConfig, StartMeetingParams } from '@roundtable/protocol';
import { MeetingEstimateSchema, RpcError, billOf, billedTokensOf } from '@roundtable/protocol';
import { connectDaemon } from '@roundtable/client';
import { startDaemon } from '../../daemon/src/daemon/daemon';
import { tempDataDir } from '../fakes/daemon';
import { BRIEFING_MAX_TOKENS, DIGEST_MAX_TOKENS, JUDGE_MAX_TOKENS } from '../../daemon/src/meeting/budget';
import { estimateMeeting } from '../../daemon/src/meeting/estimate';
import { truncateToTokens } from '../../daemon/src/providers/tokens';
import { eventsOfType, panel, runMeeting, turns } from '../fakes/meetings';

const billedOf = (events: { type: string; usage?: { promptTokens: number; completionTokens: number } }[]) =>
  events.reduce(
    (n, e) => n + (e.type === 'usage_recorded' && e.usage ? e.usage.promptTokens + e.usage.completionTokens : 0),
    0,
  );

describe('budget basis', () => {
  const script = {
    replies: { ada: turns(8, 'AGREE'), grace: turns(8, 'DISAGREE'), linus: turns(8, 'NEUTRAL') },
  };

  it('spoken (the default) lets a cheap-to-say but costly-to-bill meeting run all its rounds', async () => {
    // The stances never move: only the limits end it.
    const { state } = await runMeeting({ script, config: { tokenBudget: 6000, maxRounds: 6, stopWhenStable: false } });
    assert.equal(state.closed?.reason, 'max_rounds');
    assert.ok(billedTokensOf(state) > 6000, `billed ${billedTokensOf(state)}`);
    assert.ok(state.spokenTokens < 6000 * 0.8, `spoken ${state.spokenTokens}`);
  });

  it('billed announces the final round at 80% of the billed tokens and cuts at the ceiling', async () => {
    // Two rounds bill just over 80% of it (since the judge's rules left the system message every
    // call is sent, 6,000 leaves them at 73%, and the third round's first call is cut before any warning).
    const budget = 5400;
    const { state, events } = await runMeeting({
      script,
      config: { tokenBudget: budget, maxRounds: 6, budgetBasis: 'billed', stopWhenStable: false },
    });
    const billed = billedOf(events);
    console.log(
      `billed basis: ${billed} billed, ${state.spokenTokens} spoken, ${state.rounds.length} rounds: ${state.closed?.detail}`,
    );
    assert.equal(state.closed?.reason, 'budget_exhausted');
    assert.ok(state.rounds.length < 6, `${state.rounds.length} rounds`);
    const warning = eventsOfType(events, 'budget_warning')[0];
    assert.ok(warning, 'the final round was announced');
    assert.ok(warning.spent >= budget * 0.8 && warning.spent < budget, `announced at ${warning.spent}`);
    assert.equal(warning.budget, budget);
    // Cut at the ceiling: every call reserved its prompt + max_tokens before it was sent, so the
    // meeting stopped when the next call had no room, with the figure in the detail, and nothing
    // recorded passed the budget (the digest's own call is billed after the cut).
    const closed = eventsOfType(events, 'meeting_closed')[0];
    const atCut = billedOf(events.filter((e) => e.seq < (closed?.seq ?? 0)));
    assert.match(state.closed?.detail ?? '', new RegExp(`^${atCut} of ${budget} tokens billed: no room left for `));
    assert.ok(atCut <= budget, `${atCut} billed at the cut`);
    assert.ok(atCut >= budget * 0.8, `${atCut} billed at the cut`);
    assert.ok(state.spokenTokens < budget * 0.8, 'the spoken figure alone would not have stopped it');
    assert.match(state.digest?.text ?? '', /TOKEN COST: spoken \d+ · billed [\d,]+ \/ 5,400 budget tokens/);
  });
});

/** Text of `n` tokens, worded differently from the estimate's placeholder. */
function words(n: number, seed: string): string {
  return truncateToTokens(`${seed} considers latency, migration effort, staffing and rollback plans. `.repeat(n), n);
}

describe('estimate', () => {
  // 3 rounds are all built; at 7, rounds 4-6 are copies of round 3 and the last is built.
  for (const rounds of [3, 7]) {
    it(`is within 10% of what a ${rounds}-round meeting whose replies fill their caps bills, with the same calls`, async () => {
      const config: Partial<MeetingConfig> = { maxRounds: rounds, replyMaxTokens: 200, summaryMaxTokens: 200 };
      const each = (f: (i: number) => string) => Array.from({ length: rounds }, (_, i) => f(i));
      const turn = (stance: string) => each((i) => `${words(190, `worker ${i}`)}\n[STANCE: ${stance}]`);
      const script = {
        replies: {
          ada: turn('AGREE'),
          grace: turn('DISAGREE'),
          linus: turn('NEUTRAL'),
          jude: { judge: each((i) => `@grace: ${words(JUDGE_MAX_TOKENS - 5, `round ${i}`)}`) },
          sam: {
            briefing: [words(BRIEFING_MAX_TOKENS, 'welcome')],
            summary: each((i) => words(200, `summary ${i}`)),
            digest: [words(DIGEST_MAX_TOKENS, 'digest')],
          },
        },
      };
      const params: StartMeetingParams = {
        topic: 'Should we move billing from MySQL to PostgreSQL?',
        mode: 'roundtable',
        participants: panel(),
        config,
      };
      const estimate = await estimateMeeting(params);
      const { state } = await runMeeting({ script, topic: params.topic, config });
      const bill = billOf(state);
      assert.equal(state.rounds.length, rounds);
      console.log(
        `${rounds} rounds: estimate ${estimate.allRounds.totalTokens} billed tokens in ${estimate.allRounds.calls} calls; ` +
          `meeting billed ${bill.totalTokens} in ${bill.calls} calls`,
      );
      assert.equal(estimate.allRounds.calls, bill.calls);
      assert.equal(estimate.allRounds.rounds, rounds);
      assert.deepEqual(
        estimate.rounds.map((r) => r.round),
        Array.from({ length: rounds }, (_, i) => i + 1),
      );
      const error = Math.abs(estimate.allRounds.totalTokens - bill.totalTokens) / bill.totalTokens;
      assert.ok(error <= 0.1, `off by ${(error * 100).toFixed(1)}%`);
      // The parts add up to the total.
      const parts = [estimate.opening, ...estimate.rounds, estimate.closing];
      assert.equal(
        parts.reduce((n, p) => n + p.totalTokens, 0),
        estimate.allRounds.totalTokens,
      );
    });
  }

  it('says where the budget would stop the meeting, and the money when prices are known', async () => {
    const params: StartMeetingParams = {
      topic: 'Adopt a monorepo?',
      mode: 'roundtable',
      participants: panel().map((p) => ({ ...p, provider: 'openai', model: p.role === 'worker' ? 'big' : 'small' })),
      config: {
        maxRounds: 10,
        tokenBudget: 5000,
        prices: { big: { input: 2, output: 8 }, small: { input: 0.1, output: 0.4 } },
      },
    };
    const e = await estimateMeeting(params);
    assert.equal(e.allRounds.rounds, 10);
    assert.ok(e.budgetCut, 'the budget stops it first');
    assert.ok(e.budgetCut.rounds < 10 && e.budgetCut.totalTokens < e.allRounds.totalTokens);
    assert.ok(e.budgetCut.spokenTokens <= 5000 + 700, `spoken ${e.budgetCut.spokenTokens} at the cut`);
    assert.ok((e.allRounds.costUsd ?? 0) > 0);
    // Workers bill at the big price: the cost is more than all tokens at the small price.
    assert.ok((e.allRounds.costUsd ?? 0) > (e.allRounds.totalTokens * 0.1) / 1e6);
    assert.deepEqual(e.unpricedModels, []);
    // A billed basis stops it sooner: prompts count too.
    const billed = await estimateMeeting({ ...params, config: { ...params.config, budgetBasis: 'billed' } });
    assert.ok((billed.budgetCut?.rounds ?? 99) < e.budgetCut.rounds);
  });
});

describe('daemon: meeting/estimate', () => {
  it('answers the estimate for meeting/start params, and starts nothing', async () => {
    const d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: () => undefined });
    const conn = await connectDaemon(d.port, d.token);
    try {
      const params: StartMeetingParams = {
        topic: 'Adopt a monorepo?',
        mode: 'roundtable',
        participants: panel(),
        config: { maxRounds: 3, prices: { scripted: { input: 1, output: 4 } } },
      };
      const e = await conn.rpc.request('meeting/estimate', params);
      assert.ok(MeetingEstimateSchema.safeParse(e).success);
      assert.deepEqual(e, await estimateMeeting(params));
      assert.equal(e.rounds.length, 3);
      assert.ok((e.allRounds.costUsd ?? 0) > 0);
      assert.deepEqual((await conn.rpc.request('meeting/list', {})).meetings, []);
      await assert.rejects(conn.rpc.request('meeting/estimate', { ...params, topic: '' }), RpcError);
    } finally {
      await conn.close();
      await d.stop();
    }
  });
});
