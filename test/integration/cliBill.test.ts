/**
 * The bill from the terminal, against a real OpenAI-compatible server on loopback: `--json`
 * reports what the server said it billed, prices turn it into money, and `--estimate` tells the
 * expected cost before anything starts.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, ensureBuilt } from '../fakes/cli';
import { startFakeOpenAI, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';

async function tmp(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'rt-bill-'));
}

interface Reported {
  model: string;
  prompt: number;
  completion: number;
  cached: number;
}

describe('roundtable run: the bill (CLI)', () => {
  let fake: FakeOpenAI;
  const reported: Reported[] = [];
  before(async () => {
    ensureBuilt();
    // Usage figures that no local count could guess: what the server says is what is billed.
    fake = await startFakeOpenAI(
      (body: ChatBody, i: number) => {
        const u = { model: body.model ?? '?', prompt: 1000 + 37 * i, completion: 50 + i, cached: i % 2 ? 512 : 0 };
        reported.push(u);
        return {
          text: `point ${i} from ${u.model} [STANCE: ${i % 3 === 0 ? 'DISAGREE' : 'AGREE'}]`,
          promptTokens: u.prompt,
          completionTokens: u.completion,
          cachedTokens: u.cached,
        };
      },
      { models: ['m'] },
    );
  });
  after(() => fake.close());

  it('--json tokens.billed is the usage the server reported, summed, and cost follows --prices', async () => {
    const dir = await tmp();
    const prices = path.join(dir, 'prices.json');
    await writeFile(prices, JSON.stringify({ m: { input: 2, output: 8, cachedInput: 0.5 } }));
    reported.length = 0;
    const r = await cli([
      'run',
      '--topic',
      'Move billing from MySQL to PostgreSQL?',
      '--provider',
      'openai',
      '--model',
      'm',
      '--base-url',
      fake.baseURL,
      '--max-rounds',
      '2',
      '--json',
      '--prices',
      prices,
      '--out',
      path.join(dir, 'out'),
      '--data-dir',
      path.join(dir, 'data'),
    ]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout) as {
      tokens: {
        spoken: number;
        billed: {
          prompt: number;
          completion: number;
          cached: number;
          total: number;
          calls: number;
          perParticipant: Record<string, { prompt: number; completion: number; cached: number; total: number }>;
        };
      };
      cost?: { usd: number; unpricedModels: string[] };
      digest: string;
    };
    const sum = (f: (u: Reported) => number) => reported.reduce((n, u) => n + f(u), 0);
    const prompt = sum((u) => u.prompt);
    const completion = sum((u) => u.completion);
    const cached = sum((u) => u.cached);
    console.log(
      `server reported ${prompt} prompt + ${completion} completion (${cached} cached) in ${reported.length} calls; --json: ${JSON.stringify(j.tokens.billed.total)} billed, ${j.tokens.spoken} spoken, ${j.cost?.usd}`,
    );
    assert.ok(reported.length >= 5);
    assert.equal(j.tokens.billed.calls, reported.length);
    assert.equal(j.tokens.billed.prompt, prompt);
    assert.equal(j.tokens.billed.completion, completion);
    assert.equal(j.tokens.billed.cached, cached);
    assert.equal(j.tokens.billed.total, prompt + completion);
    const per = Object.values(j.tokens.billed.perParticipant);
    assert.equal(
      per.reduce((n, p) => n + p.total, 0),
      prompt + completion,
    );
    const usd = ((prompt - cached) * 2 + cached * 0.5 + completion * 8) / 1e6;
    assert.ok(j.cost && Math.abs(j.cost.usd - usd) < 1e-9, `${j.cost?.usd} vs ${usd}`);
    assert.deepEqual(j.cost.unpricedModels, []);
    // The digest names both figures.
    assert.match(
      j.digest,
      /TOKEN COST: spoken \d+ \/ 15,000 budget · billed [\d,]+ tokens \([\d,]+ prompt, [\d,]+ completion, [\d,]+ cached\) in \d+ calls · \$/,
    );
  });

  it('--estimate prints the expected calls and tokens, exits 0, and starts nothing', async () => {
    const dir = await tmp();
    const before = fake.requests.length;
    const r = await cli([
      'run',
      '--topic',
      'Move billing to PostgreSQL?',
      '--provider',
      'openai',
      '--model',
      'm',
      '--base-url',
      fake.baseURL,
      '--max-rounds',
      '3',
      '--estimate',
      '--out',
      path.join(dir, 'out'),
      '--data-dir',
      path.join(dir, 'data'),
    ]);
    assert.equal(r.code, 0, r.stderr);
    console.log(r.stdout);
    assert.match(r.stdout, /^Estimate \(roundtable/);
    assert.match(r.stdout, /round 3 +\d+/);
    // Briefing, 3 × 3 workers, the judge on rounds 1 and 2 (the last is not reviewed), digest:
    // three short rounds need no compaction summary.
    assert.match(r.stdout, /all 3 rounds +13 +[\d,]+ +[\d,]+ +[\d,]+/);
    assert.equal(fake.requests.length, before, 'no request to the model server');
    assert.ok(!existsSync(path.join(dir, 'out')) && !existsSync(path.join(dir, 'data')), 'nothing written');
  });

  it('exits 2 with one line on a bad --prices file or --budget-basis', async () => {
    const dir = await tmp();
    const bad = path.join(dir, 'prices.json');
    await writeFile(bad, JSON.stringify({ m: { input: 'two', output: 8 } }));
    for (const args of [
      ['--prices', bad],
      ['--prices', path.join(dir, 'missing.json')],
      ['--budget-basis', 'dollars'],
    ]) {
      const r = await cli(['run', '--topic', 'x', '--estimate', ...args]);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /--prices|--budget-basis/);
    }
  });
});
