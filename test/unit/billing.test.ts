/** The bill's pieces that need no meeting: settings, one-line formats, money, and the estimate's link to the prompts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventBody } from '@roundtable/protocol';
import {
  billOf,
  costOf,
  formatBill,
  formatBillShort,
  formatEstimateShort,
  fold,
  voteAloneLine,
} from '@roundtable/protocol';
import { THINKING_ALLOWANCE } from '../../daemon/src/meeting/budget';
import { estimateMeeting } from '../../daemon/src/meeting/estimate';
import { countTokens } from '../../daemon/src/providers/tokens';
import { billingConfig } from '../../extension/src/billingSettings';
import { estimateLine } from '../../extension/src/estimate';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { given, logOf, opened } from '../fakes/given';
import { panel } from '../fakes/meetings';

const usage = (participant: string, promptTokens: number, completionTokens: number, cachedTokens = 0): EventBody => ({
  type: 'usage_recorded',
  participant,
  role: participant === 'sam' ? 'assistant' : 'worker',
  purpose: 'turn',
  usage: { promptTokens, completionTokens, source: 'provider', cachedTokens },
});

describe('the bill', () => {
  it('names both figures, with the budget next to the one it caps', () => {
    const spoken = given(...opened(), usage('ada', 1000, 100, 400), usage('sam', 500, 50));
    assert.equal(
      formatBill(spoken),
      'spoken 2 / 15,000 budget · billed 1,650 tokens (1,500 prompt, 150 completion, 400 cached) in 2 calls',
    );
    assert.equal(formatBillShort(spoken), '2/15,000 spoken · 1,650 billed');
    const billed = given(...opened({ config: { budgetBasis: 'billed' } }), usage('ada', 1000, 100));
    assert.equal(
      formatBill(billed),
      'spoken 2 · billed 1,100 / 15,000 budget tokens (1,000 prompt, 100 completion, 0 cached) in 1 call',
    );
    assert.equal(formatBillShort(billed), '2 spoken · 1,100/15,000 billed');
  });

  it('prices cached prompt tokens at the cached price, and says which models have no price', () => {
    assert.equal(
      costOf(
        { promptTokens: 1_000_000, completionTokens: 0, cachedTokens: 400_000 },
        { input: 2, output: 8, cachedInput: 0.5 },
      ),
      1.2 + 0.2,
    );
    const seats = opened().map((b) =>
      b.type === 'meeting_opened'
        ? {
            ...b,
            config: { ...b.config, prices: { big: { input: 2, output: 8 } } },
            participants: b.participants.map((p) => ({
              ...p,
              provider: 'openai' as const,
              model: p.name === 'ada' ? 'big' : 'other',
            })),
          }
        : b,
    );
    const s = given(...seats, usage('ada', 1_000_000, 100_000), usage('sam', 10, 10));
    const bill = billOf(s);
    assert.equal(bill.byParticipant.ada?.costUsd, 2 + 0.8);
    assert.equal(bill.costUsd, 2.8);
    assert.deepEqual(bill.unpricedModels, ['other']);
    assert.match(formatBill(s), / · \$2\.80 \+ unpriced \(other\)$/);
  });
});

describe('the minutes bill', () => {
  it('counts VS Code model requests and shows money per participant and role where priced', () => {
    const bodies = opened().map((b) =>
      b.type === 'meeting_opened'
        ? {
            ...b,
            config: { ...b.config, prices: { 'gpt-4o': { input: 2.5, output: 10 } } },
            participants: b.participants.map((p) =>
              p.name === 'ada'
                ? { ...p, provider: 'openai' as const, model: 'gpt-4o' }
                : { ...p, provider: 'vscode-lm' as const, model: 'copilot-gpt' },
            ),
          }
        : b,
    );
    const md = renderMinutes(
      fold(logOf([...bodies, usage('ada', 400_000, 100_000, 200_000), usage('sam', 300, 30), usage('grace', 500, 50)])),
    );
    assert.match(md, /\| ada \| gpt-4o \| 1 \| 400,000 \| 100,000 \| 200,000 \| 500,000 \| \$2\.00 \| 0 \|/);
    assert.match(md, /\| grace \| copilot-gpt \| 1 \| 500 \| 50 \| 0 \| 550 \| — \| 0 \|/);
    assert.match(md, /\| worker \| 2 \| 400,500 \| 100,050 \| 200,000 \| 500,550 \| \$2\.00 \|/);
    assert.match(md, /VS Code language model requests: 2 \(what Copilot counts as premium requests\)\./);
    assert.match(md, /No price known for `copilot-gpt`: the cost above leaves them out\./);
    assert.match(
      md,
      /- \*\*Bill:\*\* spoken 2 \/ 15,000 budget · billed 500,880 tokens .* · 2 VS Code model requests · \$2\.00 \+ unpriced \(copilot-gpt\)/,
    );
  });
});

describe('billing settings', () => {
  it('turn prices and the basis into meeting config, and a broken price into one line saying where', () => {
    assert.deepEqual(billingConfig({ prices: { m: { input: 1, output: 2 } }, budgetBasis: 'billed' }), {
      budgetBasis: 'billed',
      prices: { m: { input: 1, output: 2 } },
    });
    assert.deepEqual(billingConfig({ prices: {}, budgetBasis: 'spoken' }), { budgetBasis: 'spoken' });
    assert.throws(
      () => billingConfig({ prices: { m: { input: -1, output: 2 } } }),
      /^Error: roundtable\.prices\.m\.input is invalid: [^\n]+$/,
    );
    assert.throws(
      () => billingConfig({ budgetBasis: 'dollars' }),
      /roundtable\.budgetBasis must be "spoken" or "billed"/,
    );
  });
});

describe('estimate', () => {
  it('follows the prompts: a longer topic costs its tokens once in every call', async () => {
    const base = { mode: 'roundtable' as const, participants: panel(), config: { maxRounds: 2 } };
    const short = await estimateMeeting({ ...base, topic: 'Adopt a monorepo?' });
    const extra = ' Consider the deploy pipeline, the ownership of shared code and the cost of CI.'.repeat(20);
    const long = await estimateMeeting({ ...base, topic: `Adopt a monorepo?${extra}` });
    const calls = short.allRounds.calls;
    assert.equal(long.allRounds.calls, calls);
    const delta = long.allRounds.promptTokens - short.allRounds.promptTokens;
    const perCall = countTokens(extra);
    assert.ok(
      Math.abs(delta - perCall * calls) <= calls * 2,
      `${delta} more prompt tokens, ${perCall} x ${calls} calls expected`,
    );
    assert.equal(long.allRounds.completionTokens, short.allRounds.completionTokens);
  });

  it("counts what a prefix cache would serve, and prices it at the model's cached rate", async () => {
    const params = (cachedInput?: number) => ({
      topic: 'Adopt a monorepo?',
      mode: 'roundtable' as const,
      participants: panel(),
      config: {
        maxRounds: 5,
        tokenBudget: 10_000_000,
        prices: { scripted: { input: 1, output: 8, ...(cachedInput !== undefined ? { cachedInput } : {}) } },
      },
    });
    const e = await estimateMeeting(params(0.1));
    assert.equal(e.rounds[0]?.cachedTokens, undefined, 'round 1 prompts are under 1,024 tokens of shared prefix');
    const cached = e.allRounds.cachedTokens ?? 0;
    assert.ok(cached > e.allRounds.promptTokens / 2, `${cached} of ${e.allRounds.promptTokens} prompt tokens cached`);
    assert.equal(cached % 128, 0, 'in whole blocks');
    const full = (await estimateMeeting(params())).allRounds.costUsd ?? 0;
    assert.ok(
      Math.abs(full - (e.allRounds.costUsd ?? 0) - (cached * 0.9) / 1e6) < 1e-9,
      'the cached tokens cost 0.1 instead of 1',
    );
  });

  it('gives a reasoning model its thinking room: billed on every call, never heard in the room', async () => {
    const on = (model: string) =>
      estimateMeeting({
        topic: 'Adopt a monorepo?',
        mode: 'roundtable',
        participants: panel().map((p) => ({ ...p, provider: 'openai' as const, model })),
        config: { maxRounds: 3 },
      });
    const plain = await on('llama3');
    const thinking = await on('gpt-5');
    assert.equal(thinking.allRounds.calls, plain.allRounds.calls);
    assert.equal(thinking.allRounds.promptTokens, plain.allRounds.promptTokens, 'thinking is never shown to anyone');
    assert.equal(
      thinking.allRounds.completionTokens - plain.allRounds.completionTokens,
      plain.allRounds.calls * THINKING_ALLOWANCE,
    );
    assert.equal(thinking.allRounds.spokenTokens, plain.allRounds.spokenTokens);
  });

  it('fits in one line for a start flow, saying where the budget stops the meeting', async () => {
    const e = await estimateMeeting({
      topic: 'Adopt a monorepo?',
      mode: 'roundtable',
      participants: panel(),
      config: { maxRounds: 10, tokenBudget: 5000 },
    });
    assert.ok(e.budgetCut);
    assert.equal(
      formatEstimateShort(e),
      `about ${e.allRounds.totalTokens.toLocaleString('en-US')} billed tokens in ${e.allRounds.calls} calls over 10 rounds (the 5,000-token spoken budget stops it after round ${e.budgetCut.rounds}: about ${e.budgetCut.totalTokens.toLocaleString('en-US')} tokens) · a vote alone: about ${e.voteAlone?.totalTokens.toLocaleString('en-US')} tokens`,
    );
  });

  it('says what a vote alone would cost beside the debate: the workers’ round-1 answers, nothing else', async () => {
    const params = { topic: 'Adopt a monorepo?', mode: 'roundtable' as const, participants: panel() };
    const e = await estimateMeeting({
      ...params,
      config: { maxRounds: 4, prices: { scripted: { input: 1, output: 8 } } },
    });
    const workers = panel().filter((p) => p.role === 'worker').length;
    const round1 = e.rounds[0];
    assert.ok(e.voteAlone && round1);
    assert.equal(e.voteAlone.calls, workers, 'one answer per worker');
    // Round 1 is the workers' answers and the judge's review: the vote is round 1 without the review.
    assert.ok(e.voteAlone.totalTokens < round1.totalTokens, `${e.voteAlone.totalTokens} < ${round1.totalTokens}`);
    assert.ok(e.voteAlone.totalTokens * 4 < e.allRounds.totalTokens, 'far below four rounds of debate');
    assert.ok((e.voteAlone.costUsd ?? 0) > 0, 'priced as the meeting is');
    assert.match(
      voteAloneLine(e) ?? '',
      new RegExp(
        `^a vote alone \\(round 1's ${workers} answers, by majority\\): about [\\d,]+ billed tokens in ${workers} calls · \\$[\\d.]+, about 1/\\d+ of the debate$`,
      ),
    );
    const vote = await estimateMeeting({ ...params, mode: 'consensus' });
    assert.equal(vote.voteAlone, undefined, 'a consensus meeting is a vote already');
  });
});

describe('the start flow estimate', () => {
  it('asks the daemon without the API key and shows one line; nothing when the daemon cannot say', async () => {
    const params = {
      topic: 'Adopt a monorepo?',
      mode: 'roundtable' as const,
      participants: panel(),
      apiKey: 'sk-secret',
    };
    const sent: unknown[] = [];
    const link = {
      request: (method: string, p: unknown) => {
        sent.push([method, p]);
        return estimateMeeting(p as typeof params);
      },
    } as unknown as Parameters<typeof estimateLine>[0];
    const { line } = await estimateLine(link, params);
    assert.match(
      line ?? '',
      /^about [\d,]+ billed tokens in \d+ calls over 10 rounds \(the 15,000-token spoken budget stops it after round \d+: about [\d,]+ tokens\) · a vote alone: about [\d,]+ tokens$/,
    );
    assert.equal((sent[0] as [string])[0], 'meeting/estimate');
    assert.ok(!JSON.stringify(sent).includes('sk-secret'), 'the key is not sent');
    const down = { request: () => Promise.reject(new Error('daemon gone')) } as unknown as Parameters<
      typeof estimateLine
    >[0];
    assert.deepEqual(await estimateLine(down, params), { line: undefined });
  });
});
