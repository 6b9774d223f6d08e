/**
 * A stale `daemon.json` or `daemon.lock` never gets a stranger signalled, and a port that does not
 * prove itself never keeps the CLI waiting or learns a secret (issue 32: `roundtable mcp` sent
 * SIGTERM to an unrelated process; `run --daemon` hung on a silent port). Real processes: the
 * strangers are `sleep`s and look-alikes, the CLI and the MCP server run as a user runs them.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { PROTOCOL_VERSION } from '@roundtable/protocol';
import { findDaemon, findOrSpawnDaemon, isAlive } from '@roundtable/client';
import { processIdentity } from '@roundtable/client/processIdentity';
import { BIN, cli, ensureBuilt } from '../fakes/cli';
import { spawnDaemonProcess, tempDataDir } from '../fakes/daemon';
import { mcpClient } from '../fakes/mcp';
import { plantDaemon, tcpListener, wsListener } from '../fakes/hostileListener';
import { daemonLookalike, killStrangers, stranger } from '../fakes/strangers';

const daemons: number[] = [];
after(async () => {
  killStrangers();
  for (const pid of daemons) await stopProven(pid);
});

/** Stops a daemon a test started (found through its own, proven daemon.json) and waits for its exit. */
async function stopProven(pid: number): Promise<void> {
  const id = await processIdentity(pid);
  if (!id) return;
  process.kill(pid, 'SIGTERM');
  while ((await processIdentity(pid))?.start === id.start) await new Promise((r) => setTimeout(r, 50));
}

/** A protocol 3 record (no start time) naming `pid`, as an older daemon would have left it. */
const legacy = (pid: number | undefined) => ({
  port: 1,
  pid,
  protocolVersion: PROTOCOL_VERSION - 1,
  processStart: undefined,
});

/** Finds or starts the daemon as the extension and `roundtable mcp` do; returns the log lines. */
async function findOrSpawn(dataDir: string): Promise<string[]> {
  const logged: string[] = [];
  const found = await findOrSpawnDaemon({ dataDir, script: BIN, log: (l) => logged.push(l) });
  daemons.push(found.info.pid);
  return logged;
}

describe('a stale daemon.json names a stranger: it is never signalled', () => {
  it('`roundtable mcp` with an older record naming a live `sleep`: the sleep lives, a new daemon serves', async () => {
    ensureBuilt();
    const dataDir = await tempDataDir();
    const sleeper = await stranger('sleep', ['1000']);
    await plantDaemon(dataDir, legacy(sleeper.pid));
    const agent = await mcpClient(dataDir, 'stale-test');
    assert.ok((await agent.listTools()).tools.length > 0, 'the MCP server works through a new daemon');
    await agent.close();
    const now = await findDaemon(dataDir);
    assert.ok(now && now.info.pid !== sleeper.pid);
    daemons.push(now.info.pid);
    assert.ok(isAlive(sleeper.pid ?? 0) && sleeper.exitCode === null && sleeper.signalCode === null, 'not signalled');
  });

  it("an older record naming this test's own process: we are not signalled", async () => {
    ensureBuilt();
    const dataDir = await tempDataDir();
    await plantDaemon(dataDir, legacy(process.pid));
    const logged = await findOrSpawn(dataDir);
    assert.ok(
      logged.some((l) => /stale daemon\.json .* is ignored \(pid \d+ is not that daemon/.test(l)),
      logged.join(' | '),
    );
  });

  it('an older record naming pid 1: no signal goes to pid 1', async () => {
    ensureBuilt();
    const dataDir = await tempDataDir();
    await plantDaemon(dataDir, legacy(1));
    const kill = process.kill.bind(process);
    const signalled: [number, string | number | undefined][] = [];
    // Recorded, and never delivered to pid 1 even if the code under test tried: this is init.
    process.kill = (pid: number, signal?: string | number) => {
      if (signal !== 0) signalled.push([pid, signal]);
      return pid === 1 && signal !== 0 ? true : kill(pid, signal);
    };
    try {
      await findOrSpawn(dataDir);
    } finally {
      process.kill = kill;
    }
    assert.deepEqual(
      signalled.filter(([pid]) => pid === 1),
      [],
    );
  });

  it('an older record naming a `… daemon --data-dir DIR` look-alike started 20 minutes before it: not signalled', async () => {
    ensureBuilt();
    const dataDir = await tempDataDir();
    const lookalike = await daemonLookalike(dataDir);
    await plantDaemon(dataDir, { ...legacy(lookalike.pid), startedAt: Date.now() + 20 * 60_000 });
    await findOrSpawn(dataDir);
    assert.equal(lookalike.signalCode, null);
    assert.ok(isAlive(lookalike.pid ?? 0));
  });

  it('an older record with a start time that is not the process behind its pid (a reused pid): not signalled', async () => {
    ensureBuilt();
    const dataDir = await tempDataDir();
    const lookalike = await daemonLookalike(dataDir);
    await plantDaemon(dataDir, { ...legacy(lookalike.pid), processStart: 'linux:another-boot:1' });
    await findOrSpawn(dataDir);
    assert.ok(isAlive(lookalike.pid ?? 0) && lookalike.signalCode === null);
  });

  it('a daemon.lock naming a live stranger does not stop a daemon from starting', async () => {
    ensureBuilt();
    const dataDir = await tempDataDir();
    const sleeper = await stranger('sleep', ['1000']);
    await writeFile(path.join(dataDir, 'daemon.lock'), String(sleeper.pid));
    const d = await spawnDaemonProcess(dataDir);
    await d.stop();
    await writeFile(path.join(dataDir, 'daemon.lock'), `${process.pid} linux:another-boot:1\n`);
    const again = await spawnDaemonProcess(dataDir);
    await again.stop();
    assert.ok(isAlive(sleeper.pid ?? 0));
  });
});

describe('`run --daemon` on a port that does not prove itself: one line, exit, no secret sent', () => {
  const KEY = 'sk-trust-test-0123456789abcdef';

  async function runAgainst(port: number): Promise<{ code: number | null; stderr: string; token: string }> {
    ensureBuilt();
    const dataDir = await tempDataDir();
    const { token } = await plantDaemon(dataDir, { port });
    // Scripted replies, but the key is in the environment: `run` hands it to the daemon with meeting/start.
    const r = await cli(['run', '--daemon', '--provider', 'scripted', '--topic', 'Trust?', '--data-dir', dataDir], {
      env: { ROUNDTABLE_API_KEY: KEY, ROUNDTABLE_HANDSHAKE_TIMEOUT_MS: '500' },
      timeoutMs: 30_000,
    });
    return { code: r.code, stderr: r.stderr, token };
  }

  it('a TCP server that accepts and never answers', async () => {
    const l = await tcpListener();
    try {
      const r = await runAgainst(l.port);
      assert.notEqual(r.code, 0);
      assert.match(
        r.stderr,
        /^roundtable: the process on 127\.0\.0\.1:\d+ is not this data dir's Roundtable daemon: it did not complete the handshake \(initialize\) within 0\.5 s/m,
      );
      await l.allClosed();
      assert.ok(
        !l.received().includes(r.token) && !l.received().includes(KEY),
        'neither the token nor the key was sent',
      );
    } finally {
      await l.close();
    }
  });

  it('a WebSocket server that answers initialize with garbage', async () => {
    const l = await wsListener((ws) => ws.send('{"kind":"response","id":1,"ok":true,"result":"garbage"}'));
    try {
      const r = await runAgainst(l.port);
      assert.notEqual(r.code, 0);
      assert.match(
        r.stderr,
        /^roundtable: the process on 127\.0\.0\.1:\d+ refused the handshake: the daemon's answer to initialize is malformed/m,
      );
      assert.deepEqual(
        l.frames.map((f) => (JSON.parse(f) as { method: string }).method),
        ['initialize'],
        'nothing but initialize, so no meeting/start with the key',
      );
      assert.ok(!l.received().includes(r.token) && !l.received().includes(KEY));
    } finally {
      await l.close();
    }
  });
});
