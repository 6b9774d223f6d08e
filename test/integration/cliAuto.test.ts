/**
 * `roundtable run` with no --provider: a configured server, a local server found by the probe, or
 * the scripted demo said plainly; the demo's consensus votes; the preflight that refuses a panel
 * that cannot run before anything is written.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, cli, ensureBuilt } from '../fakes/cli';
import { closedPort, startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';

const MODELS = ['llama3.1:8b', 'qwen2.5:7b', 'mistral:7b'];
const CANNED = 'Scripted demo: canned replies that ignore the topic';

async function tmp(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'rt-auto-'));
}

/** Models asked for chat completions, by the server's own record. */
function modelsCalled(fake: FakeOpenAI): Set<string> {
  return new Set(fake.requests.filter((r) => r.path.startsWith('/v1/chat/completions')).map((r) => r.body.model ?? ''));
}

describe('roundtable run: the default provider', () => {
  let fake: FakeOpenAI;
  let down: string;
  before(async () => {
    ensureBuilt();
    fake = await startFakeOpenAI(undefined, { models: MODELS });
    down = `http://127.0.0.1:${await closedPort()}/v1`;
  });
  after(() => fake.close());

  it('uses ROUNDTABLE_BASE_URL with no --provider, one worker per model the server lists', async () => {
    fake.requests.length = 0;
    const out = await tmp();
    const r = await cli(
      ['run', '--topic', 'Move billing to PostgreSQL?', '--max-rounds', '1', '--json', '--out', out],
      {
        env: { ROUNDTABLE_BASE_URL: fake.baseURL },
      },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(modelsCalled(fake), new Set(MODELS));
    assert.doesNotMatch(r.stderr, /Scripted demo/);
    const minutes = await readFile((JSON.parse(r.stdout) as { minutesPath: string }).minutesPath, 'utf8');
    for (const m of MODELS) assert.match(minutes, new RegExp(`\\| worker \\| openai \\| ${m.replace('.', '\\.')} \\|`));
  });

  it('finds a local server by the probe when nothing is configured, and says which', async () => {
    fake.requests.length = 0;
    const r = await cli(
      ['run', '--topic', 'Move billing to PostgreSQL?', '--max-rounds', '1', '--json', '--out', await tmp()],
      {
        env: { ROUNDTABLE_PROBE_SERVERS: `${down},${fake.baseURL}` },
      },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`using ${fake.baseURL.replace(/\./g, '\\.')} at .*workers: llama3\\.1:8b, qwen2\\.5:7b, mistral:7b`),
    );
    assert.deepEqual(modelsCalled(fake), new Set(MODELS));
  });

  it('--models sets the workers, in order', async () => {
    fake.requests.length = 0;
    const out = await tmp();
    const r = await cli(
      ['run', '--topic', 'x', '--max-rounds', '1', '--json', '--out', out, '--models', 'qwen2.5:7b,mistral:7b'],
      { env: { ROUNDTABLE_BASE_URL: fake.baseURL } },
    );
    assert.equal(r.code, 0, r.stderr);
    const minutes = await readFile((JSON.parse(r.stdout) as { minutesPath: string }).minutesPath, 'utf8');
    assert.match(
      minutes,
      /\| ada \| worker \| openai \| qwen2\.5:7b \|\n\| grace \| worker \| openai \| mistral:7b \|/,
    );
    assert.ok(!modelsCalled(fake).has('llama3.1:8b'));
  });

  it('runs the demo when nothing answers, and says on stderr that its replies are canned', async () => {
    const out = await tmp();
    const r = await cli(['run', '--topic', 'Move billing to PostgreSQL?', '--json', '--out', out], {
      env: { ROUNDTABLE_PROBE_SERVERS: down },
    });
    assert.equal(r.code, 0, r.stderr);
    const line = r.stderr.split('\n').find((l) => l.includes(CANNED));
    assert.ok(line, r.stderr);
    assert.match(line, /ROUNDTABLE_BASE_URL.*--provider openai.*Ollama/);
    const j = JSON.parse(r.stdout) as { minutesPath: string; digest: string };
    assert.match(
      await readFile(j.minutesPath, 'utf8'),
      new RegExp(`^# Roundtable minutes: .*\\n\\n> \\*\\*${CANNED}\\.\\*\\*`),
    );
    assert.match(j.digest, new RegExp(`CONSENSUS: \\w+ — ${CANNED}`));
    assert.doesNotMatch(j.digest, /monorepo/i, 'the canned discussion is not presented as the answer');
  });

  it('runs the demo on its own topic without calling it off-topic', async () => {
    const r = await cli([
      'run',
      '--topic',
      'Should we adopt a monorepo for our three services?',
      '--json',
      '--out',
      await tmp(),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /Scripted demo/);
  });
});

describe('roundtable run: the demo in consensus mode', () => {
  before(ensureBuilt);

  for (const options of [
    ['A', 'B'],
    ['Keep MySQL', 'Move to PostgreSQL', 'Run both for a quarter'],
  ])
    it(`reaches a verdict with valid ballots on any options (${options.join(' / ')})`, async () => {
      const out = await tmp();
      const args = ['run', '--mode', 'consensus', '--topic', 'Which database?', '--json', '--out', out];
      const r = await cli([...args, ...options.flatMap((o) => ['--option', o])]);
      assert.equal(r.code, 0, r.stderr);
      const j = JSON.parse(r.stdout) as { terminatedBy: string; minutesPath: string };
      assert.equal(j.terminatedBy, 'verdict_reached');
      const report = await readFile(j.minutesPath, 'utf8');
      assert.match(report, /### O1: /);
      // Every option has three votes and no abstention; no ballot was invalid.
      const tallies = [...report.matchAll(/(\d+) accept, (\d+) reject, (\d+) abstain/g)];
      assert.equal(tallies.length, options.length, report);
      for (const t of tallies) {
        assert.equal(t[3], '0', report);
        assert.equal(Number(t[1]) + Number(t[2]), 3);
      }
      assert.doesNotMatch(report, /invalid ballot/);
      assert.match(report, new RegExp(`> \\*\\*${CANNED}\\.\\*\\*`));
    });

  it('escalates with the split script shipped next to the demo', async () => {
    const out = await tmp();
    const r = await cli([
      'run',
      '--mode',
      'consensus',
      '--topic',
      'Which database?',
      '--option',
      'Keep MySQL',
      '--option',
      'Move to PostgreSQL',
      '--script',
      path.join(ROOT, 'examples', 'demo-split-script.json'),
      '--out',
      out,
    ]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stdout, /▲ Escalated to the human: .*critical conflict/);
    assert.match(r.stderr, /needs a human decision/);
  });
});

describe('roundtable run: preflight', () => {
  let fake: FakeOpenAI;
  let locked: FakeOpenAI;
  let down: string;
  before(async () => {
    ensureBuilt();
    fake = await startFakeOpenAI(undefined, { models: MODELS });
    locked = await startFakeOpenAI(undefined, { apiKey: 'right', models: MODELS });
    down = `http://127.0.0.1:${await closedPort()}/v1`;
  });
  after(async () => {
    await fake.close();
    await locked.close();
  });

  /** Runs, and checks the failure a user sees: exit 2, one line on stderr, nothing written. */
  async function refused(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
    const home = path.join(await tmp(), 'home');
    const out = path.join(await tmp(), 'out');
    const r = await cli(['run', '--topic', 'x', '--out', out, ...args], { env: { ROUNDTABLE_HOME: home, ...env } });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.ok(!existsSync(home), 'no data dir, no meeting id');
    assert.ok(!existsSync(out), 'no minutes');
    return lines[0] as string;
  }

  it('refuses a model the server does not have, saying what it has', async () => {
    const line = await refused(['--models', 'llama3.2,qwen2.5:7b'], { ROUNDTABLE_BASE_URL: fake.baseURL });
    assert.equal(
      line,
      `roundtable: model "llama3.2" is not on ${fake.baseURL} (it has: ${MODELS.join(', ')}) — load it on the server or pick one with --models`,
    );
  });

  it('refuses the same before starting a daemon (--daemon)', async () => {
    const line = await refused(['--daemon', '--model', 'nope'], { ROUNDTABLE_BASE_URL: fake.baseURL });
    assert.match(line, /model "nope" is not on/);
  });

  it('refuses a server that is down', async () => {
    const line = await refused(['--provider', 'openai', '--model', 'm'], { ROUNDTABLE_BASE_URL: down });
    assert.match(line, /^roundtable: the model server .* is unreachable .* — start it, or point --base-url/);
  });

  it('refuses a key the server rejects, without printing it', async () => {
    const line = await refused(['--model', 'qwen2.5:7b'], {
      ROUNDTABLE_BASE_URL: locked.baseURL,
      ROUNDTABLE_API_KEY: 'sk-wrong',
    });
    assert.match(line, /refused the API key \(HTTP 401\) — set ROUNDTABLE_API_KEY/);
    assert.doesNotMatch(line, /sk-wrong/);
  });

  it('refuses --model/--models with no server to run them on', async () => {
    const line = await refused(['--models', 'a,b'], { ROUNDTABLE_PROBE_SERVERS: down });
    assert.match(line, /no model server found for --model\/--models: set ROUNDTABLE_BASE_URL/);
  });
});
