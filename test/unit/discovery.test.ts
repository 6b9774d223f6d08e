/**
 * What a client believes of `daemon.json` and `token` (client/src/discovery.ts): a pid only while
 * its process started when the record says, a file only when it is a small regular file of this
 * user, a record only when it fits its schema, a token only when nobody else can read it. Real
 * files and real processes; every hostile case is one a stale or planted data dir can hold.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, chown, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { PROTOCOL_VERSION } from '@roundtable/protocol';
import { daemonStatus, findDaemon } from '@roundtable/client';
import { processIdentity } from '@roundtable/client/processIdentity';
import { tempDataDir } from '../fakes/daemon';
import { plantDaemon } from '../fakes/hostileListener';
import { daemonLookalike, killStrangers, stranger } from '../fakes/strangers';

after(killStrangers);

async function staleWhy(dataDir: string): Promise<string> {
  const s = await daemonStatus(dataDir);
  assert.equal(s.kind, 'stale', JSON.stringify(s));
  assert.equal(await findDaemon(dataDir), undefined);
  return s.kind === 'stale' ? s.why : '';
}

describe('process identity', () => {
  it('/proc and ps agree on when a process started, and two processes differ', async () => {
    const sleeper = await stranger('sleep', ['1000']);
    const proc = await processIdentity(sleeper.pid ?? 0, 'proc');
    const ps = await processIdentity(sleeper.pid ?? 0, 'ps');
    assert.ok(proc && ps, 'both sources read it');
    assert.ok(Math.abs(proc.startedMs - ps.startedMs) <= 2_000, `${proc.startedMs} vs ${ps.startedMs}`);
    assert.deepEqual(ps.args, ['sleep', '1000']);
    assert.notEqual(proc.start, (await processIdentity(process.pid, 'proc'))?.start);
    sleeper.kill('SIGKILL');
    await new Promise((r) => sleeper.once('exit', r));
    assert.equal(await processIdentity(sleeper.pid ?? 0), undefined, 'a reaped process has no identity');
  });
});

describe('daemon.json: a pid is believed only with its start time', () => {
  it('our own pid with our own start is live (the control)', async () => {
    const dir = await tempDataDir();
    await plantDaemon(dir, { port: 1234 });
    assert.equal((await findDaemon(dir))?.info.port, 1234);
  });

  it('our own pid with another start time (a reused pid) is stale', async () => {
    const dir = await tempDataDir();
    await plantDaemon(dir, { port: 1234, processStart: 'linux:other-boot:42' });
    assert.match(await staleWhy(dir), /is another process now/);
  });

  it(`a protocol ${PROTOCOL_VERSION} record without a start time is stale`, async () => {
    const dir = await tempDataDir();
    await plantDaemon(dir, { port: 1234, processStart: undefined });
    assert.match(await staleWhy(dir), /records no process start/);
  });

  it('a protocol 3 record naming a live `sleep` is stale', async () => {
    const dir = await tempDataDir();
    const sleeper = await stranger('sleep', ['1000']);
    await plantDaemon(dir, { port: 1234, pid: sleeper.pid, protocolVersion: 3, processStart: undefined });
    assert.match(await staleWhy(dir), /is not that daemon/);
  });

  it('a protocol 3 record naming pid 1 is stale', async () => {
    const dir = await tempDataDir();
    await plantDaemon(dir, { port: 1234, pid: 1, protocolVersion: 3, processStart: undefined });
    assert.match(await staleWhy(dir), /pid 1 is not that daemon/);
  });

  it('a protocol 3 record naming `… daemon --data-dir DIR` that started 20 minutes before it is stale; the same at once is live', async () => {
    const dir = await tempDataDir();
    const lookalike = await daemonLookalike(dir);
    const legacy = { port: 1234, pid: lookalike.pid, protocolVersion: 3, processStart: undefined };
    await plantDaemon(dir, { ...legacy, startedAt: Date.now() + 20 * 60_000 });
    assert.match(await staleWhy(dir), /is not that daemon/);
    await plantDaemon(dir, { ...legacy, startedAt: Date.now() });
    assert.equal((await daemonStatus(dir)).kind, 'live');
  });

  it('a protocol 3 record naming a daemon of another data dir is stale', async () => {
    const dir = await tempDataDir();
    const other = await daemonLookalike('/tmp/x');
    await plantDaemon(dir, { port: 1234, pid: other.pid, protocolVersion: 3, processStart: undefined });
    assert.match(await staleWhy(dir), /is not that daemon/);
  });
});

describe('daemon.json: shapes no daemon writes are ignored, with a reason', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['port 70000', { port: 70000 }, /port is invalid/],
    ['a negative port', { port: -1 }, /port is invalid/],
    ['a fractional port', { port: 80.5 }, /port is invalid/],
    ['a port as a string', { port: '8080' }, /port is invalid/],
    ['port 1e308', { port: 1e308 }, /port is invalid/],
    ['pid 0', { port: 1234, pid: 0 }, /pid is invalid/],
    ['a negative pid', { port: 1234, pid: -1 }, /pid is invalid/],
    ['pid 2^53', { port: 1234, pid: 2 ** 53 }, /pid is invalid/],
    ['a pid of null (NaN once serialized)', { port: 1234, pid: null }, /pid is invalid/],
    ['a start time of 301 characters', { port: 1234, processStart: 'x'.repeat(301) }, /processStart is invalid/],
  ];
  for (const [name, fields, why] of cases) {
    it(name, async () => {
      const dir = await tempDataDir();
      await plantDaemon(dir, fields as { port: number });
      assert.match(await staleWhy(dir), why);
    });
  }

  it('not JSON, and JSON that is not an object', async () => {
    const dir = await tempDataDir();
    await writeFile(path.join(dir, 'daemon.json'), '{"pid": 1, "port"');
    assert.match(await staleWhy(dir), /not JSON/);
    await writeFile(path.join(dir, 'daemon.json'), 'null');
    assert.match(await staleWhy(dir), /is invalid/);
  });

  it('a symlink to a record elsewhere is not followed', async () => {
    const dir = await tempDataDir();
    const elsewhere = await tempDataDir();
    await plantDaemon(dir, { port: 1234 });
    await plantDaemon(elsewhere, { port: 1234 });
    await rm(path.join(dir, 'daemon.json'));
    await symlink(path.join(elsewhere, 'daemon.json'), path.join(dir, 'daemon.json'));
    assert.match(await staleWhy(dir), /symlink/);
  });

  it('a FIFO is refused at once, not waited on', async () => {
    const dir = await tempDataDir();
    assert.equal(spawnSync('mkfifo', [path.join(dir, 'daemon.json')]).status, 0);
    assert.match(await staleWhy(dir), /not a regular file/);
  });

  it('a directory is refused', async () => {
    const dir = await tempDataDir();
    await mkdir(path.join(dir, 'daemon.json'));
    assert.match(await staleWhy(dir), /not a regular file/);
  });

  it('a valid record padded to 50 MB is refused for its size, unread', async () => {
    const dir = await tempDataDir();
    const { info } = await plantDaemon(dir, { port: 1234 });
    await writeFile(path.join(dir, 'daemon.json'), JSON.stringify(info) + ' '.repeat(50 * 1024 * 1024));
    assert.match(await staleWhy(dir), /52428\d+ bytes, more than 65536/);
  });

  it(
    'a record owned by another user is refused',
    { skip: process.getuid?.() !== 0 && 'needs root to chown' },
    async () => {
      const dir = await tempDataDir();
      await plantDaemon(dir, { port: 1234 });
      await chown(path.join(dir, 'daemon.json'), 65534, 65534);
      assert.match(await staleWhy(dir), /belongs to another user \(uid 65534\)/);
    },
  );
});

describe('token: refused in one line when it cannot be trusted', () => {
  async function refusal(dir: string): Promise<string> {
    const e = await findDaemon(dir).then(
      () => assert.fail('accepted'),
      (x: Error) => x,
    );
    assert.doesNotMatch(e.message, /\n/);
    return e.message;
  }

  it('readable by other users (0644)', async () => {
    const dir = await tempDataDir();
    await plantDaemon(dir, { port: 1234 });
    await chmod(path.join(dir, 'token'), 0o644);
    assert.match(
      await refusal(dir),
      /token .*token is readable by other users \(mode 0644\); stop the daemon \(pid \d+\)/,
    );
  });

  it('missing', async () => {
    const dir = await tempDataDir();
    await plantDaemon(dir, { port: 1234 });
    await rm(path.join(dir, 'token'));
    assert.match(await refusal(dir), /token cannot be used: it does not exist/);
  });

  it('a symlink to a token elsewhere', async () => {
    const dir = await tempDataDir();
    const elsewhere = await tempDataDir();
    await plantDaemon(dir, { port: 1234 });
    await plantDaemon(elsewhere, { port: 1234 });
    await rm(path.join(dir, 'token'));
    await symlink(path.join(elsewhere, 'token'), path.join(dir, 'token'));
    assert.match(await refusal(dir), /token cannot be used: it is a symlink/);
  });

  it('not 64 hex digits', async () => {
    const dir = await tempDataDir();
    await plantDaemon(dir, { port: 1234 });
    await writeFile(path.join(dir, 'token'), 'hunter2\n', { mode: 0o600 });
    assert.match(await refusal(dir), /is not 64 hex digits/);
  });
});
