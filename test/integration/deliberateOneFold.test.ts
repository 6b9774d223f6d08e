/**
 * The MCP tools follow their meeting through the one meeting handle, and the minutes and the report
 * come from what that handle folded: the daemon is never asked for the meeting's log a second time
 * (no `meeting/get`, no second `room/subscribe`), and the minutes are still the whole meeting's. The
 * MCP server runs in this process on a real daemon connection (requests counted as they leave on
 * the socket), the panel on a loopback OpenAI-compatible server.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { connectDaemon, readMeeting, type DaemonConnection } from '@roundtable/client';
import { fold } from '@roundtable/protocol';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { registerDeliberate } from '../../mcp/src/deliberate';
import { suiteDaemon } from '../fakes/daemon';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';
import { realRoom } from '../fakes/realRoom';

const MODELS = ['llama3.1:8b', 'qwen2.5:7b', 'mistral:7b'];

interface Structured {
  meetingId: string;
  status: string;
  minutes: { path: string; written: boolean };
}

describe('MCP deliberate reads its meeting once', () => {
  const daemon = suiteDaemon();
  let fake: FakeOpenAI;
  let conn: DaemonConnection;
  let client: Client;
  let workspace: string;
  /** The method of every request the MCP server's connection sent the daemon. */
  const sent: string[] = [];

  before(async () => {
    fake = await startFakeOpenAI(realRoom, { models: MODELS });
    workspace = await mkdtemp(path.join(tmpdir(), 'rt-deliberate-once-'));
    conn = await connectDaemon(daemon.d().port, daemon.d().token, { client: 'roundtable-mcp', agent: true });
    // Every frame the server's requests leave by, read as the daemon reads them.
    const send = conn.ws.send.bind(conn.ws) as (data: string) => void;
    conn.ws.send = ((data: string) => {
      const frame = JSON.parse(data) as { kind?: string; method?: string };
      if (frame.kind === 'request' && frame.method) sent.push(frame.method);
      send(data);
    }) as typeof conn.ws.send;
    const server = new McpServer({ name: 'roundtable', version: '0.0.0' });
    registerDeliberate(server, conn, {
      env: { ROUNDTABLE_BASE_URL: fake.baseURL, ROUNDTABLE_PROBE_SERVERS: '' },
      workspace,
      minutesDir: path.join(workspace, 'docs', 'roundtable'),
    });
    const [forClient, forServer] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'agent', version: '1.0.0' });
    await Promise.all([server.connect(forServer), client.connect(forClient)]);
  });
  after(async () => {
    await client?.close();
    await conn?.close();
    await fake?.close();
  });

  it('writes the whole meeting’s minutes without asking the daemon for its log again', async () => {
    const r = await client.callTool({
      name: 'deliberate',
      arguments: { topic: 'Should we adopt a monorepo for our three services?', maxRounds: 3 },
    });
    assert.ok(!r.isError, JSON.stringify(r.content));
    const s = r.structuredContent as Structured;
    assert.equal(s.status, 'closed');
    assert.ok(s.minutes.written, s.minutes.path);
    // The minutes are the whole meeting's: what the daemon's own log renders to.
    const { events } = await readMeeting(daemon.host().conn, s.meetingId);
    assert.equal(await readFile(s.minutes.path, 'utf8'), renderMinutes(fold(events)));
    // One start that subscribes as it starts, then letting go: the log is never read back page by
    // page (`meeting/get`), nor followed a second time (`room/subscribe`).
    assert.deepEqual(
      sent.filter((m) => m.startsWith('meeting/') || m.startsWith('room/')),
      ['meeting/start', 'room/unsubscribe'],
    );
  });
});
