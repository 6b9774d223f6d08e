/**
 * The extension's Accept path against a real daemon (the extension's own Lifecycle and DaemonLink,
 * with a stand-in for the `vscode` module): the minutes are rendered from the state the window's
 * mirror holds and written by the one minutes writer. The daemon is asked to decide, and nothing
 * else: not to render. The minutes are the very bytes an older client still gets from
 * `meeting/render`.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RpcClient, StartMeetingParams } from '@roundtable/protocol';
import { startDaemon, type DaemonHandle } from '../../daemon/src/daemon/daemon';
import { tempDataDir } from '../fakes/daemon';
import { panel, turns } from '../fakes/meetings';
import { installVscodeStub } from '../fakes/vscodeStub';

const ROOT = path.resolve(__dirname, '..', '..');
const quiet = (): void => undefined;
const log = { info: quiet, warn: quiet, error: quiet, debug: quiet, trace: quiet };

const params: StartMeetingParams = {
  topic: 'Adopt a monorepo?',
  mode: 'roundtable',
  participants: panel(),
  config: { maxRounds: 1 },
  providers: { script: { replies: { ada: turns(2, 'AGREE'), grace: turns(2, 'AGREE'), linus: turns(2, 'AGREE') } } },
};

describe("the extension's Accept path", () => {
  let d: DaemonHandle;
  let workspace: string;
  before(async () => {
    const dataDir = await tempDataDir();
    d = await startDaemon({ dataDir, port: 0, log: quiet });
    workspace = await mkdtemp(path.join(tmpdir(), 'rt-ext-ws-'));
    installVscodeStub(workspace, { dataDir, minutes: 'onAccept' });
  });
  after(() => d.stop());

  it('writes the minutes from its mirror without asking the daemon to render them', async () => {
    const { DaemonLink } = await import('../../extension/src/daemonLink');
    const { Lifecycle } = await import('../../extension/src/lifecycle');
    const link = new DaemonLink(ROOT, log as never);
    const lifecycle = new Lifecycle({
      context: { secrets: { get: () => Promise.resolve(undefined) } } as never,
      link,
      log: log as never,
      shown: () => undefined,
      select: () => Promise.resolve(),
      changed: quiet,
    });
    try {
      const meetingId = await link.start(params);
      await (await link.handle(meetingId)).untilEvent((e) => e.type === 'digest_ready', 0);
      const rpc: RpcClient = await link.client();
      const asked: string[] = [];
      const request = rpc.request.bind(rpc);
      rpc.request = (method: string, p: unknown) => {
        asked.push(method);
        return request(method as never, p as never);
      };

      await lifecycle.decide(meetingId, 'accepted', link.state(meetingId).digest?.text ?? '');

      assert.deepEqual(asked, ['meeting/decide'], 'the daemon is asked to decide, not to render');
      const dir = path.join(workspace, 'docs', 'roundtable');
      const files = await readdir(dir);
      assert.deepEqual(
        files.map((f) => f.replace(/^\d{4}-\d\d-\d\d-/, '')),
        ['adopt-a-monorepo.md'],
      );
      const written = await readFile(path.join(dir, files[0] ?? ''), 'utf8');
      // An older client's way still answers, with the same bytes.
      assert.equal(written, (await request('meeting/render', { meetingId })).minutes);
      assert.match(written, /\*\*accepted\*\* on/);
      const records = await readdir(path.join(workspace, 'docs', 'decisions'));
      assert.deepEqual(records, ['0001-adopt-a-monorepo.md']);
      assert.match(
        await readFile(path.join(workspace, 'docs', 'decisions', '0001-adopt-a-monorepo.md'), 'utf8'),
        new RegExp(`\\.\\./roundtable/${files[0]?.replace(/\./g, '\\.') ?? ''}`),
        'the record links the minutes',
      );
    } finally {
      lifecycle.dispose();
      link.dispose();
    }
  });
});
