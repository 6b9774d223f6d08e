/**
 * A server that echoes the caller's API key (issue 32): the key never reaches the log, the minutes,
 * the live deltas or the terminal. A real daemon and a loopback OpenAI-compatible server that
 * requires the key and writes it back in the reply, in its thinking, split across streamed chunks,
 * in an error body; the daemon's token and a key from the environment too. A placeholder key such
 * as `ollama` is no secret and stays as written.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { StartMeetingParams } from '@roundtable/protocol';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { fold } from '@roundtable/protocol';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { REDACTED_KEY, StreamRedactor, knownSecrets, redactText } from '../../daemon/src/meeting/keyRedaction';
import { cli, ensureBuilt } from '../fakes/cli';
import { Follower, tempDataDir } from '../fakes/daemon';
import { seatOf, startFakeOpenAI, type Behaviour, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';

const KEY = 'sk-proj-EchoedBackByAServer0123456789abcdefXYZ';
const ENV_KEY = 'sk-env-0000111122223333444455556666';

/** Workers say the key (in 5-character chunks, so it spans several) and think it; the rest echoes the token. */
function echoing(secret: () => string): (body: ChatBody) => Behaviour {
  return (body) => {
    const { me } = seatOf(body);
    if (me === 'ada') return { text: `The key you sent is ${secret()}. [STANCE: AGREE]`, chunkSize: 5 };
    if (me === 'grace')
      return { text: `Fine. [STANCE: AGREE]`, reasoning: `the caller's key is ${secret()}`, chunkSize: 3 };
    return { text: `Noted: ${secret()}` };
  };
}

const meeting = (baseURL: string, apiKey?: string): StartMeetingParams & { follow: boolean } => ({
  follow: true,
  topic: 'Does the key leak?',
  mode: 'roundtable',
  participants: [
    { name: 'sam', role: 'assistant', provider: 'openai', model: 'fake-model' },
    { name: 'ada', role: 'worker', provider: 'openai', model: 'fake-model' },
    { name: 'grace', role: 'worker', provider: 'openai', model: 'fake-model' },
  ],
  providers: { baseURL },
  ...(apiKey ? { apiKey } : {}),
  config: { maxRounds: 1, order: 'sequential' },
});

describe('a server that echoes the API key', () => {
  let d: DaemonHandle;
  let fake: FakeOpenAI;
  let f: Follower;
  let secret = KEY;
  before(async () => {
    fake = await startFakeOpenAI(echoing(() => secret));
    d = await startDaemon({
      dataDir: await tempDataDir(),
      port: 0,
      log: () => undefined,
      env: { OPENAI_API_KEY: ENV_KEY },
    });
    f = await Follower.connect(d.port, d.token);
  });
  after(async () => {
    await f.conn.close();
    await d.stop();
    await fake.close();
  });

  async function run(apiKey?: string): Promise<{ log: string; minutes: string; live: string[] }> {
    const { meetingId } = await f.conn.rpc.request('meeting/start', meeting(fake.baseURL, apiKey));
    await f.until((ev) => ev.some((e) => e.meetingId === meetingId && e.type === 'digest_ready'));
    const { events } = await f.conn.rpc.request('meeting/get', { meetingId });
    const live = f.deltas.filter((x) => x.meetingId === meetingId).map((x) => x.text);
    return { log: JSON.stringify(events), minutes: renderMinutes(fold(events)), live };
  }

  it('the key given at start, echoed in the reply over several chunks and in the thinking: redacted in the log, minutes and live view', async () => {
    secret = KEY;
    const { log, minutes, live } = await run(KEY);
    assert.ok(
      fake.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`),
      'the key was sent',
    );
    for (const [where, text] of [
      ['log', log],
      ['minutes', minutes],
      ['live deltas, joined', live.join('')],
    ] as const) {
      assert.ok(!text.includes(KEY), `${where} holds the key`);
      assert.ok(!text.includes(KEY.slice(0, 20)), `${where} holds a piece of the key`);
    }

    assert.ok(log.includes(`The key you sent is ${REDACTED_KEY}.`), 'the reply is kept, the key replaced');
    assert.ok(log.includes(`the caller's key is ${REDACTED_KEY}`), 'the thinking too');
  });

  it('a key from the daemon’s environment, echoed: redacted', async () => {
    secret = ENV_KEY;
    const { log, minutes } = await run();
    assert.ok(fake.requests.some((r) => r.headers.authorization === `Bearer ${ENV_KEY}`));
    assert.ok(!log.includes(ENV_KEY) && !minutes.includes(ENV_KEY));
    assert.ok(log.includes(REDACTED_KEY));
  });

  it('the daemon’s token, if a reply ever held it: redacted', async () => {
    secret = d.token;
    const { log } = await run(KEY);
    assert.ok(!log.includes(d.token));
  });

  it('an error body that quotes the key: the failure is recorded without it', async () => {
    secret = KEY;
    fake.enqueue({
      status: 400,
      errorBody: { error: { message: `Invalid key ${KEY} for this model`, type: 'invalid_request_error' } },
    });
    const { log } = await run(KEY);
    assert.ok(!log.includes(KEY), 'no key in the recorded failure');
  });

  it('a placeholder key (ollama) is no secret: the word stays in the reply', async () => {
    secret = 'ollama';
    const { log } = await run('ollama');
    assert.ok(log.includes('The key you sent is ollama.'));
  });
});

describe('redacting a stream', () => {
  const secrets = knownSecrets([KEY]);
  const through = (chunks: string[]): { shown: string[]; all: string } => {
    const r = new StreamRedactor(secrets);
    const shown = chunks.map((c) => r.push(c));
    return { shown, all: shown.join('') };
  };

  it('a key split one character per chunk is never shown, whole or in part', () => {
    const { shown, all } = through([...`a ${KEY} b`]);
    assert.equal(all, `a ${REDACTED_KEY} b`.slice(0, all.length));
    assert.ok(
      shown.every((s) => !s.startsWith('sk')),
      'no piece of the key shown before the rest came',
    );
  });

  it('a prefix that turns out not to be the key is shown once the next chunk says so: nothing is lost', () => {
    const { all } = through(['price: sk-pro', 'duct 5 € ', 'done']);
    assert.equal(all, 'price: sk-product 5 € done');
  });

  it('two keys, one inside the other, are both redacted whole', () => {
    const inner = 'sk-proj-EchoedBack';
    const s = knownSecrets([inner, KEY]);
    assert.equal(redactText(`${KEY} and ${inner}x`, s), `${REDACTED_KEY} and ${REDACTED_KEY}x`);
  });
});

describe('roundtable run in its own process (no daemon) against the echoing server', () => {
  before(ensureBuilt);

  it('prints and writes no key', async () => {
    const fake = await startFakeOpenAI(
      echoing(() => KEY),
      { apiKey: KEY },
    );
    try {
      const out = await tempDataDir();
      const r = await cli(
        [
          'run',
          '--topic',
          'Does the key leak?',
          '--no-daemon',
          '--max-rounds',
          '1',
          '--out',
          out,
          '--model',
          'fake-model',
        ],
        { env: { ROUNDTABLE_BASE_URL: fake.baseURL, OPENAI_API_KEY: KEY, ROUNDTABLE_HOME: out } },
      );
      assert.ok(!r.stdout.includes(KEY) && !r.stderr.includes(KEY), 'terminal');
      const minutes = /Minutes: (.+\.md)/.exec(r.stdout)?.[1];
      assert.ok(minutes, r.stdout + r.stderr);
      const text = await readFile(minutes, 'utf8');
      assert.ok(!text.includes(KEY));
      assert.ok(text.includes('\\[redacted API key\\]'), 'the echo is kept, the key replaced (escaped in the minutes)');
    } finally {
      await fake.close();
    }
  });
});
