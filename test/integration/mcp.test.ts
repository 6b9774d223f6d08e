/**
 * The MCP server driven by the SDK's own client over stdio: two external agents and one scripted
 * worker meet in a room and reach consensus; the minutes name all three; a spoof is refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectDaemon } from '@roundtable/client';
import { callText, mcpSessions } from '../fakes/mcp';

const call = callText;

describe('MCP server over stdio', () => {
  const { daemon, agent } = mcpSessions();

  it('lists the roundtable tools', async () => {
    const c = await agent('lister');
    const tools = (await c.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(tools, ['close', 'cut', 'deliberate', 'join', 'leave', 'listen', 'open', 'review', 'speak']);
    const speak = (await c.listTools()).tools.find((t) => t.name === 'speak');
    assert.deepEqual(
      Object.keys((speak?.inputSchema as { properties: object }).properties).sort(),
      ['room', 'text'],
      'speak takes no name',
    );
  });

  it('seats two external agents beside a scripted worker, runs to consensus, and refuses a spoof', async () => {
    const claude = await agent('claude-code');
    const cline = await agent('cline');
    const opened = await call(claude, 'open', {
      topic: 'Should the CLI and the extension share one daemon?',
      participants: [
        { name: 'chair', role: 'assistant', provider: 'scripted', model: 'scripted' },
        { name: 'ada', role: 'worker', provider: 'scripted', model: 'scripted' },
        { name: 'claude', role: 'worker', provider: 'attached', model: 'claude-code' },
        { name: 'cline', role: 'worker', provider: 'attached', model: 'cline' },
      ],
      maxRounds: 3,
    });
    assert.ok(!opened.isError, opened.text);
    const { room } = JSON.parse(opened.text) as { room: string };
    // ada answers from the daemon's demo script (its first turn agrees).
    assert.ok(!(await call(claude, 'join', { room, name: 'claude' })).isError);
    const spoofSeat = await call(cline, 'join', { room, name: 'claude' });
    assert.ok(spoofSeat.isError, 'a taken seat cannot be joined by another session');
    assert.match(spoofSeat.text, /already taken/);
    const daemonSeat = await call(cline, 'join', { room, name: 'ada' });
    assert.ok(daemonSeat.isError && /run by the daemon/.test(daemonSeat.text), daemonSeat.text);
    assert.ok(!(await call(cline, 'join', { room, name: 'cline' })).isError);
    // claude tries to speak as ada through an extra argument: the schema has no name; it posts as claude.
    const heard: string[] = [];
    const play = async (c: Client, me: string): Promise<void> => {
      for (let i = 0; i < 30; i++) {
        const l = await call(c, 'listen', { room, waitSeconds: 5 });
        heard.push(`${me}:${l.text}`);
        if (/It is your turn/.test(l.text)) {
          const r = await call(c, 'speak', {
            room,
            text: `${me.toUpperCase()}-WORDS: one daemon keeps one log. [STANCE: AGREE]`,
            ...(me === 'claude' ? { name: 'ada' } : {}),
          });
          assert.ok(!r.isError, r.text);
        }
        if (/The meeting is closed/.test(l.text)) return;
      }
    };
    await Promise.all([play(claude, 'claude'), play(cline, 'cline')]);

    const host = await connectDaemon(daemon().port, daemon().token);
    const { events, summary } = await host.rpc.request('meeting/get', { meetingId: room });
    assert.equal(summary.status, 'closed');
    const posted = events.filter((e) => e.type === 'message_posted' && e.kind === 'contribution') as {
      from: string;
      text: string;
    }[];
    assert.ok(posted.some((p) => p.from === 'claude' && p.text.startsWith('CLAUDE-WORDS')));
    assert.ok(!posted.some((p) => p.from === 'ada' && p.text.includes('CLAUDE-WORDS')), 'claude could not post as ada');
    assert.ok(
      heard.filter((h) => h.startsWith('claude:')).every((h) => !h.includes('| CLAUDE-WORDS')),
      'listen never echoes the caller',
    );
    assert.ok(
      heard.some((h) => h.startsWith('claude:') && h.includes('CLINE-WORDS')),
      'claude heard cline',
    );
    const { minutes } = await host.rpc.request('meeting/render', { meetingId: room });
    for (const name of ['ada', 'claude', 'cline'])
      assert.match(minutes, new RegExp(`\\| ${name} \\| worker \\|`), `the minutes name ${name}`);
    assert.match(minutes, /### claude\n\n> CLAUDE-WORDS/);
    assert.match(minutes, /Terminated by:\*\* `consensus_full`/, 'the three reached consensus');
    await host.close();
  });
});
