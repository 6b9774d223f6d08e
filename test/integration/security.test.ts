/**
 * Bad input and access: a seeded fuzz of malformed, oversized and out-of-order protocol messages
 * against the WebSocket API while another connection follows a meeting; a real browser page on
 * another localhost port trying to reach the daemon; and no secret anywhere on disk.
 */
import assert from 'node:assert/strict';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { fold } from '@roundtable/protocol';
import { rawText } from '@roundtable/client/rawData';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { rng } from '@roundtable/protocol/random';
import { Follower, tempDataDir } from '../fakes/daemon';
import { openAuthenticated } from '../fakes/handshake';
import { panel, turns } from '../fakes/meetings';

const SEED = Number(process.env.ROUNDTABLE_FUZZ_SEED ?? 7);
const CASES = 400;

const METHODS = [
  'initialize',
  'meeting/start',
  'meeting/list',
  'meeting/get',
  'room/subscribe',
  'room/post',
  'meeting/cut',
  'meeting/decide',
  'agent/join',
  'agent/speak',
  'agent/listen',
  'lm/register',
  '$/progress',
  '$/cancelRequest',
  'nope',
  '',
];

/** One hostile frame, from the seed: broken JSON, wrong types, huge or deep values, out-of-order calls. */
function hostileFrame(next: () => number, i: number): string {
  const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)] as T;
  const junk = (): unknown =>
    pick<unknown>([
      null,
      true,
      -1,
      0,
      1.5,
      2 ** 60,
      '',
      'x'.repeat(Math.floor(next() * 5000)),
      [],
      {},
      { meetingId: '../../etc/passwd' },
      { meetingId: 'm'.repeat(200) },
      [1, [2, [3]]],
    ]);
  switch (Math.floor(next() * 9)) {
    case 0:
      return '{"kind":"request","id":'.slice(0, Math.floor(next() * 22));
    case 1:
      return JSON.stringify(junk());
    case 2:
      return JSON.stringify({
        kind: pick(['request', 'response', 'event', 'x']),
        id: junk(),
        method: pick(METHODS),
        params: junk(),
      });
    case 3:
      return JSON.stringify({
        kind: 'request',
        id: i + 1,
        method: pick(METHODS),
        params: { meetingId: junk(), sinceSeq: junk(), text: junk(), topic: junk(), participants: junk() },
      });
    case 4:
      return '['.repeat(5000) + ']'.repeat(5000);
    case 5:
      return JSON.stringify({
        kind: 'request',
        id: i + 1,
        method: 'meeting/start',
        params: {
          topic: 'x',
          mode: 'roundtable',
          participants: Array.from({ length: 40 }, (_, k) => ({
            name: `w${k}`,
            role: 'worker',
            provider: 'scripted',
            model: 's',
          })),
        },
      });
    case 6:
      return JSON.stringify({ kind: 'response', id: i + 1, ok: true, result: junk() });
    case 7:
      return JSON.stringify({
        kind: 'request',
        id: i + 1,
        method: 'agent/speak',
        params: { meetingId: 'm-x', text: 'as ada', name: 'ada' },
      });
    default:
      return JSON.stringify({
        kind: 'request',
        id: i + 1,
        method: '__proto__',
        params: JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
      });
  }
}

describe('security and bad input', () => {
  let d: DaemonHandle;
  const logs: string[] = [];
  before(async () => {
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: (l) => logs.push(l) });
  });
  after(() => d.stop());

  it(`answers ${CASES} seeded hostile frames with errors or a closed socket, and a concurrent meeting is unaffected (seed ${SEED})`, async () => {
    const follower = await Follower.connect(d.port, d.token);
    const { meetingId } = await follower.conn.rpc.request('meeting/start', {
      topic: 'Unaffected',
      mode: 'roundtable',
      participants: panel(['ada', 'grace']),
      config: { maxRounds: 4, stopWhenStable: false },
      providers: { script: { defaultDelayMs: 40, replies: { ada: turns(4, 'AGREE'), grace: turns(4, 'DISAGREE') } } },
    });
    await follower.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    const next = rng(SEED);
    let answered = 0;
    let closedSockets = 0;
    let sent = 0;
    while (sent < CASES) {
      // Half the connections do the handshake first; the rest send everything unauthenticated.
      const ws = next() < 0.5 ? await openAuthenticated(d.port, d.token) : new WebSocket(`ws://127.0.0.1:${d.port}`);
      if (ws.readyState !== ws.OPEN) await new Promise((r) => ws.once('open', r));
      let replies = 0;
      ws.on('message', (m: WebSocket.RawData) => {
        JSON.parse(rawText(m));
        replies++;
      });
      const closed = new Promise<void>((r) => ws.once('close', () => r()));
      const batch = 10;
      let expected = 0;
      for (let k = 0; k < batch && sent < CASES; k++, sent++) {
        if (ws.readyState !== ws.OPEN) break;
        ws.send(hostileFrame(next, sent));
        expected++;
      }
      const done = await Promise.race([
        (async () => {
          while (replies < expected) await new Promise((r) => setTimeout(r, 5));
          return 'answered' as const;
        })(),
        closed.then(() => 'closed' as const),
        new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 5_000)),
      ]);
      assert.notEqual(done, 'timeout', 'every frame gets an answer or the socket is closed');
      if (done === 'answered') answered += expected;
      else closedSockets++;
      ws.terminate();
    }
    assert.ok(answered > CASES / 2, `${answered} frames answered with an error, ${closedSockets} sockets closed`);
    await follower.until((ev) => ev.some((e) => e.type === 'digest_ready'), 60_000);
    const seqs = follower.events.map((e) => e.seq);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
      'the concurrent meeting lost nothing',
    );
    assert.equal(fold(follower.events).closed?.reason, 'max_rounds');
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
    const list = await follower.conn.rpc.request('meeting/list', {});
    assert.equal(
      list.meetings.filter((m) => m.topic === 'x').length,
      0,
      'no fuzzed meeting with a 40-worker panel was started',
    );
    await follower.conn.close();
  });

  it('refuses a real browser page on another localhost port', async () => {
    const { chromium } = await import('playwright-core').catch(() => ({ chromium: undefined }));
    const executablePath = '/usr/bin/chromium';
    const haveBrowser = await stat(executablePath).then(
      () => true,
      () => false,
    );
    if (!chromium || !haveBrowser) {
      assert.fail('Chromium and playwright-core are installed by test/e2e/setup.sh (npm test runs it)');
    }
    const page = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(`<script>
        const results = [];
        for (const url of ['ws://127.0.0.1:${d.port}/', 'ws://localhost:${d.port}/']) {
          results.push(new Promise((resolve) => {
            const ws = new WebSocket(url);
            ws.onopen = () => resolve(url + ' OPEN');
            ws.onerror = () => resolve(url + ' refused');
          }));
        }
        Promise.all(results).then((r) => { document.title = r.join(' | '); });
      </script>`);
    });
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
    const browser = await chromium.launch({
      executablePath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
    try {
      const tab = await browser.newPage();
      await tab.goto(`http://127.0.0.1:${(page.address() as AddressInfo).port}/`);
      await tab.waitForFunction(() => document.title.includes('|'), undefined, { timeout: 15_000 });
      const title = await tab.title();
      assert.doesNotMatch(title, /OPEN/, `a browser page got in: ${title}`);
      assert.match(title, /refused.*refused/);
      assert.ok(logs.some((l) => /browser origins are not allowed/.test(l)));
    } finally {
      await browser.close();
      page.close();
    }
  });

  it('never writes an API key to the store, the logs or the minutes', async () => {
    const secret = 'sk-test-SECRET-1234567890abcdef';
    const f = await Follower.connect(d.port, d.token);
    const participants = [
      { name: 'sam', role: 'assistant' as const, provider: 'scripted' as const, model: 's' },
      { name: 'ada', role: 'worker' as const, provider: 'openai' as const, model: 'm' },
      { name: 'grace', role: 'worker' as const, provider: 'openai' as const, model: 'm' },
    ];
    const { meetingId } = await f.conn.rpc.request('meeting/start', {
      topic: 'Secrets',
      mode: 'roundtable',
      participants,
      config: { maxRounds: 1 },
      providers: { baseURL: 'http://127.0.0.1:1/v1' },
      apiKey: secret,
    });
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => ev.some((e) => e.type === 'digest_ready'), 30_000);
    await d.manager.events(meetingId, 0);
    const rendered = await f.conn.rpc.request('meeting/render', { meetingId });
    assert.ok(!rendered.minutes.includes(secret));
    assert.ok(!JSON.stringify(f.events).includes(secret));
    assert.ok(!logs.join('\n').includes(secret));
    const files: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const e of await readdir(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) await walk(p);
        else files.push(p);
      }
    };
    await walk(d.dataDir);
    for (const file of files) assert.ok(!(await readFile(file)).includes(secret), `${file} holds the key`);
    assert.ok(
      files.some((x) => x.endsWith('.ndjson')),
      'the journal was searched',
    );
    await f.conn.close();
  });
});
