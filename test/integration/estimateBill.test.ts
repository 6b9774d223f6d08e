/**
 * The estimate predicts the bill: real meetings on a real loopback OpenAI-compatible server that
 * keeps a prefix cache, counts tokens with the engine's tokenizer and answers every call as the
 * estimate's filler does (as long as the call allows, never agreeing), billed by the real OpenAI
 * provider, next to the estimate made before the start. Calls, prompt, cached and completion
 * tokens and money are the same: the estimate is the meeting, played without a network.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { EstimateLine, MeetingEstimate, Participant, StartMeetingParams } from '@roundtable/protocol';
import { billOf } from '@roundtable/protocol';
import { systemClock } from '../../daemon/src/meeting/clock';
import { Meeting } from '../../daemon/src/meeting/engine';
import { estimateMeeting } from '../../daemon/src/meeting/estimate';
import { fillerReply } from '../../daemon/src/meeting/filler';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { countPromptTokens, countTokens, truncateToTokens } from '../../daemon/src/providers/tokens';
import { MemoryStore } from '../../daemon/src/store/memoryStore';
import { panel } from '../fakes/meetings';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';

/** The panel on the loopback server: an assistant, a judge and `workers` workers, one model. */
const onServer = (workers: number): Participant[] =>
  panel(['ada', 'grace', 'linus', 'barbara', 'ken'].slice(0, workers), true, {
    provider: 'openai',
    model: 'fake-model',
  });

/** gpt-5's prices: cached input at a tenth. */
const PRICES = { 'fake-model': { input: 1.25, cachedInput: 0.125, output: 10 } };

/** A server that answers every call with the filler, counting tokens as the engine does. */
function fillerServer(): Promise<FakeOpenAI> {
  return startFakeOpenAI(
    (body) => ({
      text: fillerReply({
        maxTokens: body.max_tokens ?? body.max_completion_tokens ?? 0,
        json: body.response_format !== undefined,
        messages: (body.messages ?? []).map((m) => ({ role: m.role as 'user', content: m.content })),
      }),
    }),
    { prefixCache: {}, tokens: { prompt: countPromptTokens, text: countTokens, truncate: truncateToTokens } },
  );
}

/**
 * Runs the meeting on the server to its end and returns its bill. A consensus that escalates is
 * deferred by the human (as the estimate plays it), which writes the digest.
 */
async function billedMeeting(params: StartMeetingParams): Promise<ReturnType<typeof billOf>> {
  const fake = await fillerServer();
  try {
    const provider = new OpenAIProvider({ baseURL: fake.baseURL });
    const deps = { store: new MemoryStore(), providerFor: () => provider, clock: systemClock };
    const meeting = await Meeting.open(deps, 'm-billed', params);
    let state = await meeting.run();
    if (state.status === 'awaiting_human') {
      await meeting.resolve('defer');
      state = await meeting.run();
    }
    assert.equal(state.status, 'closed');
    assert.ok(state.digest, 'the digest was written');
    return billOf(state);
  } finally {
    await fake.close();
  }
}

/** The figures a bill and an estimate line share. */
function figures(l: Pick<EstimateLine, 'calls' | 'promptTokens' | 'completionTokens' | 'cachedTokens' | 'costUsd'>) {
  return {
    calls: l.calls,
    promptTokens: l.promptTokens,
    cachedTokens: l.cachedTokens ?? 0,
    completionTokens: l.completionTokens,
    // Sums of the same products in another order: equal to the millionth of a cent.
    costUsd: Math.round((l.costUsd ?? 0) * 1e8),
  };
}

async function assertPredicted(params: StartMeetingParams, line: (e: MeetingEstimate) => EstimateLine | undefined) {
  const estimate = await estimateMeeting(params);
  const predicted = line(estimate);
  assert.ok(predicted, 'the estimate has the line');
  const bill = await billedMeeting(params);
  console.log(`estimate ${JSON.stringify(figures(predicted))}\nbill     ${JSON.stringify(figures(bill))}`);
  assert.deepEqual(figures(predicted), figures(bill));
  return { estimate, bill };
}

const roundtable = (workers: number, config: StartMeetingParams['config'] = {}): StartMeetingParams => ({
  topic: 'Should billing move from MySQL to PostgreSQL?',
  mode: 'roundtable',
  participants: onServer(workers),
  config: { maxRounds: 4, prices: PRICES, ...config },
});

describe('the estimate predicts the bill', () => {
  it('of 3 workers over 4 rounds, a compaction among them', async () => {
    const { estimate, bill } = await assertPredicted(roundtable(3), (x) => x.allRounds);
    assert.equal(estimate.budgetCut, undefined, 'the default budget lets 4 rounds run');
    // The briefing, 4 rounds of 3 turns, reviews of all but the last, one compaction, the digest.
    assert.equal(bill.calls, 1 + 4 * 3 + 3 + 1 + 1);
    assert.ok(bill.cachedTokens > bill.promptTokens / 2, `${bill.cachedTokens} of ${bill.promptTokens} cached`);
  });

  it('of 5 workers over 3 rounds', async () => {
    const { bill } = await assertPredicted(roundtable(5, { maxRounds: 3 }), (x) => x.allRounds);
    assert.ok(bill.cachedTokens > 0, 'the server served cached prompt tokens');
  });

  it('of a consensus vote: proposals, ballots, challenge rounds, the escalation deferred', async () => {
    await assertPredicted(
      { ...roundtable(3, { challengeRounds: 2 }), mode: 'consensus', topic: 'Which database for billing?' },
      (x) => x.allRounds,
    );
  });

  it('where the budget stops the meeting first', async () => {
    const { estimate: e } = await assertPredicted(
      roundtable(3, { maxRounds: 8, tokenBudget: 4_000 }),
      (x) => x.budgetCut,
    );
    assert.ok(e.budgetCut && e.budgetCut.rounds < e.allRounds.rounds, `stops after round ${e.budgetCut?.rounds}`);
  });

  describe('with attached context', () => {
    let dir = '';
    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'rt-estimate-'));
      const lines = Array.from(
        { length: 60 },
        (_, i) => `Line ${i}: orders live in MySQL; shard ${i} replicates nightly.`,
      );
      await writeFile(path.join(dir, 'notes.md'), `${lines.join('\n')}\n`);
    });
    after(() => rm(dir, { recursive: true, force: true }));

    it('counts the context in every call that carries it, as the start attaches it', async () => {
      await assertPredicted(
        { ...roundtable(3, { maxRounds: 3 }), workspace: dir, context: { paths: ['notes.md'] } },
        (x) => x.allRounds,
      );
    });
  });
});
