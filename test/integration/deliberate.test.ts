/**
 * The MCP tool `deliberate` as agents call it: the official MCP Inspector's CLI (a real MCP client
 * from npm, not ours) and the SDK's Client, each over real stdio to the built `roundtable mcp`,
 * with the panel on a loopback OpenAI-compatible server. The digest comes back as text and as
 * structured content; rounds come as progress; a cancelled call cuts the meeting and the digest is
 * still produced; bad input is one line and spends nothing; the decision stays the person's.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { connectDaemon, type DaemonConnection } from '@roundtable/client';
import { fold, settles } from '@roundtable/protocol';
import { ROOT, ensureBuilt, runScript } from '../fakes/cli';
import { spawnDaemonProcess, tempDataDir, type DaemonProcess } from '../fakes/daemon';
import { callText, mcpClient } from '../fakes/mcp';
import { chatCalls, seatOf, startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';
import { realRoomAt } from '../fakes/realRoom';
import { makeWorkspace, type FakeWorkspace } from '../fakes/workspace';

const MODELS = ['llama3.1:8b', 'qwen2.5:7b', 'mistral:7b'];
const INSPECTOR = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector', 'cli', 'build', 'cli.js');

interface Structured {
  meetingId: string;
  status: string;
  outcome: string;
  consensus: string;
  dissent: string;
  confidence: number;
  cut: boolean;
  minutes: { path: string; written: boolean };
  decision: string;
}

describe('MCP deliberate', () => {
  let fake: FakeOpenAI;
  let dataDir: string;
  let daemon: DaemonProcess;
  let ws: FakeWorkspace;
  let host: DaemonConnection;
  const clients: Client[] = [];
  const env = (): Record<string, string> => ({ ROUNDTABLE_BASE_URL: fake.baseURL });
  const client = async (name: string, e: Record<string, string> = env()): Promise<Client> => {
    const c = await mcpClient(dataDir, name, { args: ['--workspace', ws.root], env: e });
    clients.push(c);
    return c;
  };
  const meetings = async () => (await host.rpc.request('meeting/list', {})).meetings;

  before(async () => {
    ensureBuilt();
    // Replies as recorded real models write them, a little paced so a cancel lands mid-meeting.
    fake = await startFakeOpenAI(realRoomAt(20), { models: MODELS });
    dataDir = await tempDataDir();
    daemon = await spawnDaemonProcess(dataDir);
    host = await connectDaemon(daemon.port, daemon.token);
    ws = await makeWorkspace();
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await host.close();
    await daemon.stop();
    await fake.close();
  });

  it('answers the MCP Inspector CLI with the digest and its structured content, and writes the minutes', async () => {
    const r = await runScript(
      INSPECTOR,
      [
        '--cli',
        '-e',
        `ROUNDTABLE_BASE_URL=${fake.baseURL}`,
        process.execPath,
        path.join(ROOT, 'bin', 'roundtable.js'),
        'mcp',
        '--data-dir',
        dataDir,
        '--method',
        'tools/call',
        '--tool-name',
        'deliberate',
        '--tool-arg',
        'topic=Should we adopt a monorepo for our three services?',
        '--tool-arg',
        'maxRounds=3',
        '--tool-arg',
        'context=["src/util.ts"]',
      ],
      // In the isolated env of runScript: no local servers probed, no keys.
      { cwd: ws.root, timeoutMs: 90_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      content: { text: string }[];
      structuredContent: Structured;
      isError?: boolean;
    };
    assert.ok(!out.isError, r.stdout);
    const s = out.structuredContent;
    assert.equal(s.status, 'closed');
    assert.match(s.outcome, /: Migrate to a monorepo incrementally, service by service\.$/);
    assert.equal(s.decision, 'pending');
    assert.ok(s.minutes.written && s.minutes.path.startsWith(path.join(ws.root, 'docs', 'roundtable')), s.minutes.path);
    const text = out.content[0]?.text ?? '';
    assert.match(text, new RegExp(`^Roundtable ${s.meetingId}: `));
    assert.match(text, /## Outcome\n\nMigrate to a monorepo incrementally/);
    assert.match(text, /## Dissent/);
    // The minutes name the panel's models and the file the panel read.
    const minutes = await readFile(s.minutes.path, 'utf8');
    for (const m of MODELS) assert.ok(minutes.includes(m), `the minutes name ${m}`);
    assert.match(minutes, /src\/util\\\.ts/); // the dot escaped: no preview links it as a domain
    // The decision stays the person's: nothing was accepted or rejected.
    const { events } = await host.rpc.request('meeting/get', { meetingId: s.meetingId });
    assert.equal(fold(events).decision, undefined);
    assert.ok(!events.some((e) => e.type === 'decision_recorded'));
  });

  it('reports each round as progress: who spoke, each stance, the judge', async () => {
    const c = await client('progress');
    const seen: Progress[] = [];
    const r = await c.callTool(
      { name: 'deliberate', arguments: { topic: 'Monorepo for the three services?', maxRounds: 4 } },
      undefined,
      { onprogress: (p) => seen.push(p), timeout: 60_000 },
    );
    assert.ok(!r.isError, JSON.stringify(r.content));
    assert.ok(seen.length >= 2, `one progress per round, got ${seen.length}`);
    assert.deepEqual(
      seen.map((p) => [p.progress, p.total]),
      seen.map((_, i) => [i + 1, 4]),
    );
    const first = seen[0]?.message ?? '';
    assert.match(first, /^Round 1: /);
    assert.match(first, /ada \(llama3\.1:8b\): DISAGREE — Atomic commits help/);
    assert.match(first, /grace \(qwen2\.5:7b\): AGREE/);
    assert.match(first, /linus \(mistral:7b\): NEUTRAL/);
    assert.match(first, /judge: .*@ada/);
  });

  it('cuts the meeting when the call is cancelled, and the digest is still produced', async () => {
    const c = await client('cancel');
    const topic = 'A cancelled question about the monorepo';
    const abort = new AbortController();
    const call = c.callTool({ name: 'deliberate', arguments: { topic, maxRounds: 6 } }, undefined, {
      signal: abort.signal,
      // The first round's progress is the moment to cancel: the meeting is surely running.
      onprogress: () => abort.abort(),
    });
    await assert.rejects(call, /abort/i);
    const m = (await meetings()).find((x) => x.topic === topic);
    assert.ok(m, 'the meeting was started');
    const watch = await host.meetings.attach(m.meetingId);
    await watch.untilEvent(settles, 0);
    const s = fold(watch.events);
    assert.equal(s.closed?.reason, 'cut');
    assert.ok(s.digest, 'the digest is still produced');
    assert.equal(s.rounds.length, 2, 'cut in round 2, not run to the end');
    assert.equal(s.decision, undefined);
  });

  it('runs a consensus vote and returns the option decided as the verdict, still pending', async () => {
    const voters = await startFakeOpenAI(
      (body) => {
        const { me, system } = seatOf(body);
        if (/voting in a structured consensus/.test(system))
          return {
            text: JSON.stringify({
              votes: [
                {
                  option: 'O1',
                  vote: 'accept',
                  confidence: 0.9,
                  rationale: `${me}: one CI`,
                  evidence: ['src/util.ts'],
                },
                { option: 'O2', vote: 'reject', confidence: 0.8, rationale: `${me}: two repos to release` },
              ],
            }),
          };
        return { text: 'CONSENSUS_STATEMENT: go with the monorepo' };
      },
      { models: MODELS },
    );
    try {
      const c = await client('voter', { ROUNDTABLE_BASE_URL: voters.baseURL });
      const r = await callText(c, 'deliberate', {
        topic: 'Monorepo or polyrepo?',
        mode: 'consensus',
        options: ['Monorepo', 'Polyrepo'],
      });
      assert.ok(!r.isError, r.text);
      const s = r.structured as Structured & { verdict?: string; terminatedBy?: string };
      assert.equal(s.verdict, 'Monorepo');
      assert.equal(s.terminatedBy, 'verdict_reached');
      assert.equal(s.decision, 'pending');
      assert.match(r.text, new RegExp(`^Roundtable ${s.meetingId}: .* — Monorepo\n`));
      const { events } = await host.rpc.request('meeting/get', { meetingId: s.meetingId });
      assert.equal(fold(events).decision, undefined, 'the person still decides');
    } finally {
      await voters.close();
    }
  });

  for (const [what, args, line] of [
    ['an empty topic', { topic: '   ' }, /^topic must not be empty$/],
    [
      'one option for a vote',
      { topic: 'Pick one', mode: 'consensus', options: ['only'] },
      /^a consensus needs at least 2 options/,
    ],
    [
      'a path outside the workspace',
      { topic: 'Read it', context: ['../outside.txt'] },
      /^context path "\.\.\/outside\.txt" is outside the workspace$/,
    ],
    ['a secret file', { topic: 'Read it', context: ['.env'] }, /^context path "\.env" .*secret/],
  ] as const) {
    it(`refuses ${what} in one line and spends nothing`, async () => {
      const c = await client('bad');
      const [calls, count] = [chatCalls(fake), (await meetings()).length];
      const r = await callText(c, 'deliberate', args);
      assert.ok(r.isError);
      assert.match(r.text, line);
      assert.equal(r.text.split('\n').length, 1);
      assert.equal(chatCalls(fake), calls, 'no model was called');
      assert.equal((await meetings()).length, count, 'no meeting was opened');
    });
  }

  it('with no model says how to configure one, and never runs the demo instead', async () => {
    const c = await client('nomodel', {});
    const count = (await meetings()).length;
    const r = await callText(c, 'deliberate', { topic: 'Should we adopt a monorepo for our three services?' });
    assert.ok(r.isError);
    assert.match(r.text, /^no model found: set ROUNDTABLE_BASE_URL=.*OPENAI_API_KEY.*Ollama/);
    assert.equal(r.text.split('\n').length, 1);
    assert.equal((await meetings()).length, count, 'no meeting, demo or other, was opened');
  });

  it('cannot accept or reject the decision: no tool or argument for it', async () => {
    const c = await client('lister');
    const { tools } = await c.listTools();
    const deliberate = tools.find((t) => t.name === 'deliberate');
    assert.deepEqual(Object.keys(deliberate?.inputSchema.properties ?? {}).sort(), [
      'context',
      'maxRounds',
      'mode',
      'options',
      'topic',
    ]);
    assert.ok(!tools.some((t) => /accept|reject|decide|resolve/.test(t.name)));
    assert.ok(deliberate?.outputSchema, 'the structured result has a schema');
  });
});
