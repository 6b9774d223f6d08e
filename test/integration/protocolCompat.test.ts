/**
 * A client of this version meets a daemon of another protocol version in its data dir: a daemon
 * from an older install is stopped and replaced by a current one (the extension owns the
 * daemon's lifecycle); a daemon from a newer install is left running and refused in one line.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROTOCOL_VERSION } from '@roundtable/protocol';
import { DaemonSession, findDaemon, isAlive } from '@roundtable/client';
import { BIN, ensureBuilt } from '../fakes/cli';
import { tempDataDir } from '../fakes/daemon';
import { startOtherDaemon } from '../fakes/otherDaemon';

const quiet = (): void => undefined;

function session(dataDir: string, spawn: boolean, logged: string[] = []): DaemonSession {
  return new DaemonSession({
    dataDir: () => dataDir,
    spawn: spawn ? { script: BIN } : false,
    client: 'compat-test',
    log: { info: (l) => logged.push(l), warn: quiet, error: quiet },
  });
}

describe('protocol compatibility: a daemon of another version in the data dir', () => {
  it(`a daemon of protocol ${PROTOCOL_VERSION - 1} is stopped and replaced by one of ${PROTOCOL_VERSION}`, async () => {
    ensureBuilt();
    const dataDir = await tempDataDir();
    const old = await startOtherDaemon(dataDir, PROTOCOL_VERSION - 1);
    const logged: string[] = [];
    const s = session(dataDir, true, logged);
    let newPid = 0;
    try {
      const { meetings } = await s.request('meeting/list', {});
      assert.deepEqual(meetings, [], 'the new daemon answers');
      assert.equal(await old.exited, 0, 'the old daemon was asked to stop and stopped cleanly');
      const now = await findDaemon(dataDir);
      newPid = now?.info.pid ?? 0;
      assert.equal(now?.info.protocolVersion, PROTOCOL_VERSION);
      assert.notEqual(newPid, old.pid);
      assert.ok(
        logged.some((l) => l.startsWith('replacing the daemon of an older install')),
        `the output channel says why: ${logged.join(' | ')}`,
      );
    } finally {
      s.dispose();
      if (isAlive(old.pid)) old.proc.kill('SIGKILL');
      if (newPid && isAlive(newPid)) process.kill(newPid, 'SIGTERM');
    }
  });

  it(`a daemon of protocol ${PROTOCOL_VERSION + 1} is left running and refused in one line`, async () => {
    const dataDir = await tempDataDir();
    const newer = await startOtherDaemon(dataDir, PROTOCOL_VERSION + 1);
    const s = session(dataDir, true);
    try {
      await assert.rejects(s.request('meeting/list', {}), (e: Error) => {
        assert.equal(
          e.message,
          `the Roundtable daemon for ${dataDir} (pid ${newer.pid}) speaks protocol ${PROTOCOL_VERSION + 1} and this client ${PROTOCOL_VERSION}; it comes from a newer install: update this Roundtable to use it`,
        );
        return true;
      });
      assert.ok(isAlive(newer.pid), 'the newer daemon still serves its own clients');
      assert.equal((await findDaemon(dataDir))?.info.pid, newer.pid, 'and its discovery file is untouched');
    } finally {
      s.dispose();
      newer.proc.kill('SIGTERM');
      await newer.exited;
    }
  });

  it('a client that may not start a daemon refuses an older one in one line instead of replacing it', async () => {
    const dataDir = await tempDataDir();
    const old = await startOtherDaemon(dataDir, PROTOCOL_VERSION - 1);
    const s = session(dataDir, false);
    try {
      await assert.rejects(
        s.request('meeting/list', {}),
        /speaks protocol \d+ and this client \d+; it comes from an older install: stop it so this one can start its own$/,
      );
      assert.ok(isAlive(old.pid));
    } finally {
      s.dispose();
      old.proc.kill('SIGTERM');
      await old.exited;
    }
  });
});
