/**
 * Context from the terminal: `--context` read from the folder the person ran the command in, also
 * when the meeting runs in a daemon and the shipped demo checks its evidence in examples/; and the
 * estimate counting the context every prompt will carry.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MeetingEstimate, Participant, StartMeetingParams } from '@roundtable/protocol';
import { checkStartParams } from '@roundtable/protocol';
import { connectDaemon } from '@roundtable/client';
import { startDaemon } from '../../daemon/src/daemon/daemon';
import { estimateMeeting } from '../../daemon/src/meeting/estimate';
import { countTokens } from '../../daemon/src/providers/tokens';
import { cli, ensureBuilt } from '../fakes/cli';
import { spawnDaemonProcess, tempDataDir, type DaemonProcess } from '../fakes/daemon';
import { APP_TS, makeWorkspace, type FakeWorkspace } from '../fakes/workspace';

const sha = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');

describe('roundtable run --context through a daemon', () => {
  let ws: FakeWorkspace;
  let daemon: DaemonProcess;
  before(async () => {
    ensureBuilt();
    ws = await makeWorkspace();
    daemon = await spawnDaemonProcess(await tempDataDir());
  });
  after(async () => {
    await daemon.stop();
    await rm(path.dirname(ws.root), { recursive: true, force: true });
    await rm(daemon.dataDir, { recursive: true, force: true });
  });

  it("reads the person's file from where they ran the command, not from the demo's examples/, and still refuses one outside it", async () => {
    const out = await mkdtemp(path.join(tmpdir(), 'rt-ctx-out-'));
    const r = await cli(
      [
        'run',
        '--topic',
        'Should we adopt a monorepo for our three services?',
        '--provider',
        'scripted',
        '--daemon',
        '--data-dir',
        daemon.dataDir,
        '--out',
        out,
        '--context',
        'src/app.ts',
        '--context',
        ws.outsideFile,
      ],
      { cwd: ws.root },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`running in the daemon on port ${daemon.port}`), 'the meeting ran in the daemon');
    const minutesPath = /Minutes: (.+\.md)/.exec(r.stdout)?.[1];
    assert.ok(minutesPath, r.stdout);
    const minutes = await readFile(minutesPath, 'utf8');
    assert.match(minutes, /## Context/);
    assert.match(
      minutes,
      new RegExp(`\\| file \\| src/app\\\\\\.ts \\| \`${sha(APP_TS)}\``),
      'the file and its sha256',
    );
    assert.ok(!/Refused `src\/app\.ts`/.test(minutes), 'the file was not looked for in examples/');
    assert.ok(
      minutes.includes(`- Refused \`${ws.outsideFile}\`: is outside the workspace`),
      'a path outside the folder is still refused',
    );
    assert.ok(!minutes.includes('TOP SECRET'), 'nothing of the refused file');
    await rm(out, { recursive: true, force: true });
  });

  it('refuses a contextWorkspace that is not an absolute path', () => {
    const checked = checkStartParams({
      topic: 't',
      mode: 'roundtable',
      participants: [
        { name: 'sam', role: 'assistant', provider: 'scripted', model: 'demo' },
        { name: 'ada', role: 'worker', provider: 'scripted', model: 'demo' },
        { name: 'grace', role: 'worker', provider: 'scripted', model: 'demo' },
      ],
      contextWorkspace: 'relative/dir',
    });
    assert.equal(checked.ok, false);
    assert.match(checked.ok ? '' : checked.error, /contextWorkspace:? must be an absolute folder path/);
  });
});

describe('the estimate counts the attached context', () => {
  let dir: string;
  let fileTokens: number;
  before(async () => {
    ensureBuilt();
    // Not a git repository: reading context there must work too.
    dir = await mkdtemp(path.join(tmpdir(), 'rt-ctx-est-'));
    const lines: string[] = [];
    for (let i = 1; countTokens(lines.join('\n')) < 2000; i++)
      lines.push(
        `Line ${i}: orders live in Postgres, the cache is warmed at boot, and shard ${i} replicates to region ${i % 3} nightly.`,
      );
    const text = `${lines.join('\n')}\n`;
    await writeFile(path.join(dir, 'big.md'), text);
    fileTokens = countTokens(text);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const PANEL: Participant[] = [
    { name: 'sam', role: 'assistant', provider: 'scripted', model: 'scripted' },
    { name: 'jude', role: 'judge', provider: 'scripted', model: 'scripted' },
    { name: 'ada', role: 'worker', provider: 'scripted', model: 'scripted' },
    { name: 'grace', role: 'worker', provider: 'scripted', model: 'scripted' },
    { name: 'linus', role: 'worker', provider: 'scripted', model: 'scripted' },
  ];

  /**
   * Every call carries the context (it is in the prefix every prompt shares, summaries and digest
   * included, and costs a cached read after the first): each grows by at least the file and at
   * most the file plus its quoting (a "| " per line, the envelope). The rounds' compactions do not
   * depend on it, so the calls are the same.
   */
  function assertGrowth(without: MeetingEstimate, withIt: MeetingEstimate, carrying: number): void {
    assert.equal(carrying, withIt.allRounds.calls, 'every call carries it');
    const grew = withIt.allRounds.promptTokens - without.allRounds.promptTokens;
    const low = carrying * fileTokens;
    const high = carrying * Math.ceil(fileTokens * 1.1);
    assert.ok(grew >= low && grew <= high, `grew by ${grew}, expected ${low}..${high} (${fileTokens} × ${carrying})`);
    assert.equal(withIt.allRounds.calls, without.allRounds.calls, 'the same calls, each larger');
    assert.equal(withIt.allRounds.completionTokens, without.allRounds.completionTokens);
  }

  /** A 3-round roundtable of the 3-worker panel, reading `dir`. */
  const meeting = (): StartMeetingParams => ({
    topic: 'Move storage off Postgres?',
    mode: 'roundtable',
    participants: PANEL,
    config: { maxRounds: 3 },
    workspace: dir,
  });

  it('grows by the file × the calls that carry it, in a roundtable and a consensus', async () => {
    const base = meeting();
    // Briefing + 3 rounds × 3 workers + the judge after rounds 1 and 2 (not after the last) + the
    // digest; three rounds need no compaction.
    assertGrowth(await estimateMeeting(base), await estimateMeeting({ ...base, context: { paths: ['big.md'] } }), 13);
    // Consensus: briefing, 3 proposals, 3 rounds × 3 ballots and the digest.
    const consensus: StartMeetingParams = { ...base, mode: 'consensus', config: { challengeRounds: 2 } };
    assertGrowth(
      await estimateMeeting(consensus),
      await estimateMeeting({ ...consensus, context: { paths: ['big.md'] } }),
      14,
    );
  });

  it('reads the context as the start does: from contextWorkspace when the evidence workspace is elsewhere', async () => {
    const base: StartMeetingParams = { ...meeting(), workspace: path.dirname(dir), context: { paths: ['big.md'] } };
    const elsewhere = await estimateMeeting(base);
    const fromPerson = await estimateMeeting({ ...base, contextWorkspace: dir });
    assertGrowth(elsewhere, fromPerson, 13);
  });

  it('the daemon answers meeting/estimate with the context counted', async () => {
    const d = await startDaemon({ dataDir: await tempDataDir(), port: 0, log: () => undefined });
    const conn = await connectDaemon(d.port, d.token);
    try {
      const params = meeting();
      const without = await conn.rpc.request('meeting/estimate', params);
      const withIt = await conn.rpc.request('meeting/estimate', { ...params, context: { paths: ['big.md'] } });
      assertGrowth(without, withIt, 13);
      assert.deepEqual((await conn.rpc.request('meeting/list', {})).meetings, [], 'nothing started');
    } finally {
      await conn.close();
      await d.stop();
    }
  });

  it('roundtable run --estimate prints the larger figure with --context', async () => {
    const args = ['run', '--topic', 'Move storage off Postgres?', '--provider', 'scripted', '--estimate'];
    const run = async (extra: string[]) => {
      const r = await cli([...args, ...extra], { cwd: dir });
      assert.equal(r.code, 0, r.stderr);
      return r.stdout;
    };
    const without = JSON.parse(await run(['--json'])) as MeetingEstimate;
    const withIt = JSON.parse(await run(['--json', '--context', 'big.md'])) as MeetingEstimate;
    // The demo panel: 3 workers, a judge, 10 rounds: briefing + 10 × 4 + the compactions + the digest.
    assert.ok(withIt.allRounds.calls > 42 && withIt.allRounds.calls < 51, `${withIt.allRounds.calls} calls`);
    assertGrowth(without, withIt, withIt.allRounds.calls);
    const table = await run(['--context', 'big.md']);
    const total = table.split('\n').find((l) => /^\s+all 10 rounds/.test(l)) ?? '';
    assert.ok(total.includes(withIt.allRounds.promptTokens.toLocaleString('en-US')), `the total row: ${total}`);
    assert.ok(!total.includes(without.allRounds.promptTokens.toLocaleString('en-US')));
    assert.ok(!existsSync(path.join(dir, 'docs')), 'the estimate writes nothing (no minutes folder)');
  });
});
