/**
 * No input takes a Roundtable process down (issue 41), with real processes: a change whose file
 * names hold a newline, a carriage return, U+2028, a zero-width space and a bidi override is
 * reviewed through a running daemon, and the daemon is still there to serve the next review and
 * the MCP server's next call (a library threw inside a promise nobody awaited, and nothing handled
 * it: the daemon died and `roundtable mcp` answered "the daemon closed the connection" for ever).
 * And `roundtable mcp` reaches a daemon that restarted under it on its next call, or says in one
 * line why it cannot.
 */
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { cli, ensureBuilt } from '../fakes/cli';
import { spawnDaemonProcess, tempDataDir, type DaemonProcess } from '../fakes/daemon';
import { callText, mcpClient } from '../fakes/mcp';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';
import { REVIEW_MODELS, makeReviewRepo, reviewResponder, type ReviewRepo } from '../fakes/reviewRepo';

/** File names a hostile contributor can commit: each is a legal name on Linux and in git. */
const HOSTILE_NAMES = [
  'services/orders/new\nline.ts',
  'services/orders/carriage\rreturn.ts',
  'services/orders/line\u2028separator.ts',
  'services/orders/zero\u200bwidth.ts',
  'services/orders/bidi\u202eoverride.ts',
];

/** A tool call answered by the server (not the error of a connection it lost), and its text. */
async function answered(c: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const r = await callText(c, name, args);
  assert.equal(r.isError, false, r.text);
  return r.text;
}

describe('the daemon and roundtable mcp survive a change whose file names hold line breaks and invisible characters', () => {
  let fake: FakeOpenAI;
  let daemon: DaemonProcess;
  let agent: Client;
  let r: ReviewRepo;
  before(async () => {
    ensureBuilt();
    fake = await startFakeOpenAI(reviewResponder, { models: REVIEW_MODELS });
    daemon = await spawnDaemonProcess(await tempDataDir());
    agent = await mcpClient(daemon.dataDir, 'survivor');
    r = await makeReviewRepo();
  });
  after(async () => {
    await agent?.close().catch(() => undefined);
    await daemon?.stop();
    await fake?.close();
    if (r) await rm(path.dirname(r.root), { recursive: true, force: true });
  });

  const review = (...change: string[]) =>
    cli(['review', '--base-url', fake.baseURL, '--models', REVIEW_MODELS.join(','), ...change], {
      cwd: r.root,
      env: { ROUNDTABLE_HOME: daemon.dataDir },
      timeoutMs: 300_000,
    });

  it('reviews the change without a crash, then serves the next review and the next MCP call', async () => {
    for (const name of HOSTILE_NAMES) await r.write(name, 'export const x = 1;\n');
    r.git('add', '.');
    r.git('commit', '-qm', 'hostile names');
    const hostile = await review('--base', 'main');
    // Nothing in the change breaks a decision: clean, or (when the change could not be read) exit 3
    // in one line. Never 1: that is "a finding PROVEN", and a crash must never read as one.
    assert.ok(hostile.code === 0 || hostile.code === 3, `exit ${hostile.code}: ${hostile.stderr}`);
    if (hostile.code === 3) assert.match(hostile.stderr, /^roundtable: could not review: [^\n]+\n$/m);
    assert.equal(daemon.proc.exitCode, null, `the daemon exited:\n${daemon.output()}`);

    await r.write('services/orders/handler.ts', 'export function handle(id: string) {\n  return { id, ok: 1 };\n}\n');
    // The work tree against HEAD: the hostile names are behind it.
    const next = await review('--worktree');
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stdout, new RegExp(`running in the daemon on port ${daemon.port}`));
    assert.match(await answered(agent, 'open', { topic: 'Still there?' }), /"room":"m-/);
  });
});

describe('roundtable mcp and a daemon that restarts under it', () => {
  let dataDir: string;
  let daemon: DaemonProcess | undefined;
  let agent: Client;
  before(async () => {
    ensureBuilt();
    dataDir = await tempDataDir();
    daemon = await spawnDaemonProcess(dataDir);
    agent = await mcpClient(dataDir, 'restarts');
  });
  after(async () => {
    await agent?.close().catch(() => undefined);
    await daemon?.stop();
  });

  it('answers the next call from the new daemon, and says in one line when no daemon can be reached', async () => {
    assert.match(await answered(agent, 'open', { topic: 'Before the restart' }), /"room":"m-/);
    await daemon?.stop();
    daemon = await spawnDaemonProcess(dataDir);
    assert.match(await answered(agent, 'open', { topic: 'After the restart' }), /"room":"m-/);

    // Now no daemon can start for the data dir: its store is a file.
    await daemon.stop();
    daemon = undefined;
    await rm(path.join(dataDir, 'store'), { recursive: true, force: true });
    await writeFile(path.join(dataDir, 'store'), 'not a folder');
    const gone = await callText(agent, 'open', { topic: 'Nobody home' });
    assert.equal(gone.isError, true, gone.text);
    assert.match(
      gone.text,
      /^the connection to the Roundtable daemon was lost and could not be made again: the Roundtable daemon did not start; see its log [^\n]+$/,
    );
  });
});
