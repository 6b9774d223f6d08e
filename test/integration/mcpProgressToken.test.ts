/**
 * Every MCP call is answered, whatever its `progressToken` (issue 32): `roundtable mcp`'s own
 * stdio transport over real streams, the server of `roundtable mcp`, a real daemon and a panel on a
 * loopback OpenAI-compatible server. A token the spec does not allow (an object, a fraction, null,
 * 1e300, a nested array, 1 MB of text) is ignored: the call runs and is answered, without progress.
 * A token it allows — 0, "" and a negative integer included — gets its progress back unchanged.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { connectDaemon, type DaemonConnection } from '@roundtable/client';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { createMcpServer } from '../../mcp/src/mcpServer';
import { McpStdioTransport } from '../../mcp/src/stdioTransport';
import { tempDataDir } from '../fakes/daemon';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';
import { realRoom } from '../fakes/realRoom';
import { makeWorkspace } from '../fakes/workspace';

type Line = { id?: unknown; method?: string; params?: { progressToken?: unknown }; error?: { message: string } };

/** A client on the other end of the pipes: raw lines out, parsed lines in. */
class RawClient {
  readonly seen: Line[] = [];
  private waiters: (() => void)[] = [];
  private buffer = '';
  constructor(
    private readonly toServer: PassThrough,
    fromServer: PassThrough,
  ) {
    fromServer.on('data', (d: Buffer) => {
      this.buffer += d.toString('utf8');
      for (let nl = this.buffer.indexOf('\n'); nl !== -1; nl = this.buffer.indexOf('\n')) {
        this.seen.push(JSON.parse(this.buffer.slice(0, nl)) as Line);
        this.buffer = this.buffer.slice(nl + 1);
      }
      for (const w of this.waiters.splice(0)) w();
    });
  }
  send(line: string): void {
    this.toServer.write(`${line}\n`);
  }
  request(id: number, method: string, params: unknown): void {
    this.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  }
  /** The answer to request `id`, once it comes (the test's timeout bounds the wait). */
  async answer(id: unknown): Promise<Line> {
    for (;;) {
      const hit = this.seen.find((l) => l.id === id && !l.method);
      if (hit) return hit;
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }
  progressOf(token: unknown): Line[] {
    return this.seen.filter((l) => l.method === 'notifications/progress' && l.params?.progressToken === token);
  }
  progress(): Line[] {
    return this.seen.filter((l) => l.method === 'notifications/progress');
  }
}

describe('MCP: a malformed progressToken never leaves a call unanswered', () => {
  let fake: FakeOpenAI;
  let d: DaemonHandle;
  let conn: DaemonConnection;
  let client: RawClient;
  let nextId = 10;
  before(async () => {
    fake = await startFakeOpenAI(realRoom, { models: ['llama3.1:8b', 'qwen2.5:7b'] });
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: () => undefined });
    conn = await connectDaemon(d.port, d.token, { client: 'roundtable-mcp', agent: true });
    const ws = await makeWorkspace();
    const server = createMcpServer(
      { request: conn.rpc.request.bind(conn.rpc), meetings: conn.meetings },
      {
        env: { ROUNDTABLE_BASE_URL: fake.baseURL, ROUNDTABLE_PROBE_SERVERS: '' },
        workspace: ws.root,
        minutesDir: `${ws.root}/docs/roundtable`,
      },
    );
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    client = new RawClient(stdin, stdout);
    await server.connect(new McpStdioTransport(stdin, stdout));
    client.request(0, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    await client.answer(0);
    client.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  });
  after(async () => {
    await conn.close();
    await d.stop();
    await fake.close();
  });

  const deliberate = async (progressToken: unknown): Promise<{ answer: Line; id: number }> => {
    const id = nextId++;
    client.send(
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"deliberate","arguments":{"topic":"Monorepo?","maxRounds":1},"_meta":{"progressToken":${progressToken as string}}}}`,
    );
    return { answer: await client.answer(id), id };
  };

  for (const [what, token] of [
    ['an object', '{"a":{"b":[1,2]}}'],
    ['a fraction', '1.5'],
    ['1e300', '1e300'],
    ['null', 'null'],
    ['a nested array', '[[["x"]]]'],
    ['a boolean', 'true'],
    ['1 MB of text', JSON.stringify('x'.repeat(1_000_000))],
  ] as const) {
    it(`${what}: the deliberation is answered with its digest, and no progress is sent`, async () => {
      const before = client.progress().length;
      const { answer } = await deliberate(token);
      assert.equal(answer.error, undefined, JSON.stringify(answer).slice(0, 300));
      assert.match(JSON.stringify(answer), /Roundtable m-/);
      assert.equal(client.progress().length, before, 'no progress for a token that cannot be sent back');
    });
  }

  for (const [what, token, back] of [
    ['0 (falsy, but a token)', '0', 0],
    ['"" (empty, but a token)', '""', ''],
    ['a negative integer', '-7', -7],
  ] as const) {
    it(`${what}: progress comes back under that very token`, async () => {
      await deliberate(token);
      assert.ok(client.progressOf(back).length >= 1, `progress under ${JSON.stringify(back)}`);
    });
  }

  it('_meta that is not an object: a tools/list is answered', async () => {
    client.send('{"jsonrpc":"2.0","id":50,"method":"tools/list","params":{"_meta":5}}');
    const a = await client.answer(50);
    assert.equal(a.error, undefined);
  });

  it('a request whose params are not an object is answered with a one-line error, and the next one served', async () => {
    client.send('{"jsonrpc":"2.0","id":51,"method":"tools/list","params":"everything"}');
    client.request(52, 'ping', {});
    const a = await client.answer(51);
    assert.match(a.error?.message ?? '', /^invalid request: /);
    assert.ok(!(a.error?.message ?? '').includes('\n'));
    assert.equal((await client.answer(52)).error, undefined);
  });

  it('a line that is not JSON gets a parse error (id null); the stream goes on', async () => {
    client.send('{"jsonrpc":"2.0","id":53,');
    client.request(54, 'ping', {});
    assert.match((await client.answer(null)).error?.message ?? '', /parse error/);
    assert.equal((await client.answer(54)).error, undefined);
  });

  it('a request split across writes and ended with \\r\\n is read whole', async () => {
    const line = JSON.stringify({ jsonrpc: '2.0', id: 55, method: 'ping', params: {} });
    (client as unknown as { toServer: PassThrough }).toServer.write(line.slice(0, 7));
    (client as unknown as { toServer: PassThrough }).toServer.write(`${line.slice(7)}\r\n`);
    assert.equal((await client.answer(55)).error, undefined);
  });
});
