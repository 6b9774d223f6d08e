import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LmRequest, MeetingEvent, Participant } from '@roundtable/protocol';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { Follower, tempDataDir } from '../fakes/daemon';
import { checkStartParams, fold } from '@roundtable/protocol';
import { systemClock } from '../../daemon/src/meeting/clock';
import { Meeting } from '../../daemon/src/meeting/engine';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { MemoryStore } from '../../daemon/src/store/memoryStore';
import { runTool } from '../../daemon/src/tools/workspaceTools';
import { eventsOfType } from '../fakes/meetings';
import { instructionsOf, startFakeOpenAI, type Behaviour, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';
import { makeWorkspace, type FakeWorkspace } from '../fakes/workspace';
import { connectWindow } from '../fakes/vscodeWindow';

const PANEL: Participant[] = [
  { name: 'sam', role: 'assistant', provider: 'openai', model: 'm' },
  { name: 'ada', role: 'worker', provider: 'openai', model: 'm' },
  { name: 'grace', role: 'worker', provider: 'openai', model: 'm' },
];

/** ada calls tools on her first ask; everyone else just talks. */
function responder(toolCalls: Behaviour['toolCalls']) {
  return (body: ChatBody): Behaviour => {
    const system = instructionsOf(body);
    if (/closing digest/.test(system)) return { text: 'CONSENSUS_STATEMENT: ok\nCONTRIBUTORS: ada\nDISSENT: none' };
    if (/chairs/.test(system)) return { text: 'Welcome.' };
    if (/Update the rolling summary/.test(system)) return { text: 'Summary.' };
    const answered = body.messages?.some((m) => m.role === 'tool');
    if (/^You are ada/.test(system) && !answered) return { toolCalls };
    return { text: `Read it. [STANCE: AGREE]` };
  };
}

describe('read-only workspace tools for the panel', () => {
  let fake: FakeOpenAI;
  let ws: FakeWorkspace;
  before(async () => {
    fake = await startFakeOpenAI(responder([]));
    ws = await makeWorkspace();
  });
  after(async () => {
    await fake.close();
    await rm(path.dirname(ws.root), { recursive: true, force: true });
  });

  async function run(toolCalls: Behaviour['toolCalls'], tools = true) {
    fake.setResponder(responder(toolCalls));
    const store = new MemoryStore();
    const provider = new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 0 });
    const first = fake.requests.length;
    const params = checkStartParams({
      topic: 'Is answer right?',
      mode: 'roundtable',
      participants: PANEL,
      config: { maxRounds: 1, tools },
      workspace: ws.root,
    });
    assert.ok(params.ok, params.ok ? '' : params.error);
    const meeting = await Meeting.open(
      { store, providerFor: () => provider, clock: systemClock },
      'm-tools',
      params.value,
    );
    const state = await meeting.run();
    const events: MeetingEvent[] = await store.load(meeting.id);
    return { state, events, requests: fake.requests.slice(first) };
  }

  it("executes a model's tool call read-only inside the workspace, logs and counts it, and gives the result to that model", async () => {
    const { events, requests, state } = await run([
      { name: 'read_file', arguments: JSON.stringify({ path: 'src/app.ts' }) },
      { name: 'search', arguments: JSON.stringify({ query: 'return b' }) },
    ]);
    const calls = eventsOfType(events, 'tool_called');
    assert.deepEqual(
      calls.map((c) => [c.participant, c.tool, c.ok]),
      [
        ['ada', 'read_file', true],
        ['ada', 'search', true],
      ],
    );
    assert.match(calls[0]?.result ?? '', /^src\/app\.ts lines 1-3 of 3\n1: export const answer = 42;/);
    assert.match(calls[1]?.result ?? '', /src\/util\.ts:1:.*return b \+ a/);
    // The follow-up request of ada carries both results as tool messages.
    const followUp = requests.find((r) => r.body.messages?.some((m) => m.role === 'tool'));
    assert.ok(followUp, 'ada was asked again with the results');
    const toolMsgs = followUp.body.messages?.filter((m) => m.role === 'tool') ?? [];
    assert.deepEqual(
      toolMsgs.map((m) => m.tool_call_id),
      ['call_0', 'call_1'],
    );
    assert.match(toolMsgs[0]?.content ?? '', /export const answer = 42/);
    assert.ok(
      requests.every(
        (r) => !r.body.messages?.some((m) => m.role === 'tool') || /^You are ada/.test(instructionsOf(r.body)),
      ),
      'no other model sees ada’s tool results',
    );
    assert.ok(
      followUp.body.tools?.some((t) => t.function.name === 'read_file'),
      'tools offered',
    );
    // Counted against the budget and listed in the minutes.
    const toolTokens = calls.reduce((n, c) => n + c.tokens, 0);
    assert.ok(toolTokens > 0);
    const spokenWithoutTools = fold(
      events.filter((e) => e.type !== 'tool_called').map((e, i) => ({ ...e, seq: i + 1 })),
    ).spokenTokens;
    assert.equal(state.spokenTokens, spokenWithoutTools + toolTokens);
    const minutes = renderMinutes(fold(events));
    assert.match(minutes, /## Workspace tool calls/);
    assert.ok(
      minutes.includes('| 1 | ada | read\\_file | `{"path":"src/app.ts"}` | src/app\\.ts lines 1-3 of 3 |'),
      minutes,
    );
  });

  it('refuses ../, an absolute path, a symlink out of the workspace and .env through a tool', async () => {
    const { events } = await run([
      { name: 'read_file', arguments: JSON.stringify({ path: '../outside.txt' }) },
      { name: 'read_file', arguments: JSON.stringify({ path: 'escape.txt' }) },
      { name: 'read_file', arguments: JSON.stringify({ path: ws.outsideFile }) },
      { name: 'read_file', arguments: JSON.stringify({ path: '.env' }) },
      { name: 'list_files', arguments: JSON.stringify({ path: '..' }) },
    ]);
    const calls = eventsOfType(events, 'tool_called');
    assert.deepEqual(
      calls.map((c) => c.result),
      [
        'refused: ../outside.txt is outside the workspace',
        'refused: escape.txt is outside the workspace',
        `refused: ${ws.outsideFile} is outside the workspace`,
        'refused: .env has a secret-looking name (an environment file)',
        'refused: .. is outside the workspace',
      ],
    );
    assert.ok(calls.every((c) => !c.ok));
    assert.ok(!JSON.stringify(events).includes('TOP SECRET'), 'nothing outside the workspace was read');
  });

  it('offers no tools unless the meeting asks for them', async () => {
    const { events, requests } = await run([{ name: 'read_file', arguments: '{"path":"src/app.ts"}' }], false);
    assert.ok(requests.every((r) => !r.body.tools));
    assert.equal(eventsOfType(events, 'tool_called').length, 0);
  });

  it('lists and searches without git-ignored or secret files', async () => {
    const list = await runTool(ws.root, 'list_files', {});
    assert.ok(list.ok);
    assert.ok(list.text.includes('src/app.ts'));
    assert.ok(!/build\/out\.js|\.env|server\.pem|escape\.txt/.test(list.text), list.text);
    const found = await runTool(ws.root, 'search', { query: 'console.log' });
    assert.match(found.text, /^0 match/, 'build/ is git-ignored');
    const key = await runTool(ws.root, 'search', { query: 'sk-live' });
    assert.match(key.text, /^0 match/, '.env is never searched');
  });
});

describe('read-only workspace tools for vscode-lm participants (VS Code language models)', () => {
  let d: DaemonHandle;
  let ws: FakeWorkspace;
  before(async () => {
    d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: () => undefined });
    ws = await makeWorkspace();
  });
  after(async () => {
    await d.stop();
    await rm(path.dirname(ws.root), { recursive: true, force: true });
  });

  it('offers the tools to the VS Code window, runs the calls its model asks for, and sends the results back to that model only', async () => {
    const requests: LmRequest[] = [];
    // The VS Code window, over the daemon's real WebSocket: ada's model reads a file and ../, then answers.
    const { conn: window } = await connectWindow(d.port, d.token, (r) => {
      requests.push(r);
      if (r.participant === 'ada' && r.tools && !r.toolTurns) {
        return Promise.resolve({
          ok: true,
          text: 'Let me look.',
          toolCalls: [
            { id: 'c1', name: 'read_file', arguments: JSON.stringify({ path: 'src/app.ts' }) },
            { id: 'c2', name: 'read_file', arguments: JSON.stringify({ path: '../outside.txt' }) },
          ],
        });
      }
      // The result comes enveloped: a header, then each line quoted.
      const seen = r.toolTurns?.find((t) => t.kind === 'result')?.text ?? '';
      return Promise.resolve({
        ok: true,
        text:
          r.participant === 'ada'
            ? `${seen.split('\n')[2]?.replace(/^\| /, '')} [STANCE: AGREE]`
            : 'ok [STANCE: AGREE]',
      });
    });
    const f = await Follower.connect(d.port, d.token);
    const { meetingId } = await f.conn.rpc.request('meeting/start', {
      topic: 'Is answer right?',
      mode: 'roundtable',
      participants: [
        { name: 'sam', role: 'assistant', provider: 'scripted', model: 'scripted' },
        { name: 'ada', role: 'worker', provider: 'vscode-lm', model: 'copilot' },
        { name: 'grace', role: 'worker', provider: 'vscode-lm', model: 'copilot' },
      ],
      config: { maxRounds: 1, tools: true },
      workspace: ws.root,
    });
    await f.conn.rpc.request('room/subscribe', { meetingId, sinceSeq: 0 });
    await f.until((ev) => ev.some((e) => e.type === 'digest_ready'));
    const s = fold(f.events);

    // Offered as VS Code tools, with their JSON schema.
    const first = requests.find((r) => r.participant === 'ada');
    assert.deepEqual(
      first?.tools?.map((t) => t.name),
      ['read_file', 'search', 'list_files'],
    );
    assert.equal((first?.tools?.[0]?.inputSchema as { required?: string[] }).required?.[0], 'path');
    // Each call logged, read-only and inside the workspace.
    const calls = eventsOfType(f.events, 'tool_called');
    assert.deepEqual(
      calls.map((c) => [c.participant, c.tool, c.ok]),
      [
        ['ada', 'read_file', true],
        ['ada', 'read_file', false],
      ],
    );
    assert.equal(calls[1]?.result, 'refused: ../outside.txt is outside the workspace');
    // ada was asked again with her calls and both results, and answered from what she read.
    const again = requests.find((r) => r.participant === 'ada' && r.toolTurns);
    assert.deepEqual(
      again?.toolTurns?.map((t) =>
        t.kind === 'calls' ? `calls:${t.calls.map((c) => c.id).join(',')}` : `result:${t.callId}`,
      ),
      ['calls:c1,c2', 'result:c1', 'result:c2'],
    );
    assert.equal(s.rounds[0]?.contributions.ada?.text, '1: export const answer = 42; [STANCE: AGREE]');
    assert.ok(
      requests.filter((r) => r.participant !== 'ada').every((r) => !r.toolTurns),
      'no other model sees ada’s tool results',
    );
    // Counted into the budget.
    assert.ok(calls.every((c) => c.tokens > 0));
    await window.close();
    await f.conn.close();
  });
});
