/**
 * `meeting/start` with `review`, through a real daemon on a real repository: the daemon reads the
 * change and the records itself and logs the scope (changed files with their new-side hunks, every
 * record with its status) and the context every reviewer sees (the records that apply, the diff
 * file by file); a client cannot hand it a scope; a change too big for the budget is split by file
 * and what was not read is said; and the wrong mode or no workspace is one line.
 */
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import type { MeetingEvent, RpcError, StartMeetingParams } from '@roundtable/protocol';
import { suiteDaemon } from '../fakes/daemon';
import { panel } from '../fakes/meetings';
import { MYSQL_POOL, POSTGRES_RECORD, makeReviewRepo, type ReviewRepo } from '../fakes/reviewRepo';

const badRequest =
  (pattern: RegExp) =>
  (e: RpcError): boolean =>
    e.code === 'bad_request' && pattern.test(e.message) && !e.message.includes('\n');

describe('meeting/start with review', () => {
  const daemon = suiteDaemon();
  const repos: ReviewRepo[] = [];
  after(async () => {
    for (const r of repos) await rm(path.dirname(r.root), { recursive: true, force: true });
  });

  /** A review on `root`, its scripted reviewers slow enough that the test reads the start and cuts. */
  const params = (root: string, over: Partial<StartMeetingParams> = {}): StartMeetingParams => ({
    topic: 'Review the change',
    mode: 'consensus',
    participants: panel(['ada', 'grace'], false),
    providers: { script: { defaultDelayMs: 5_000, replies: {} } },
    workspace: root,
    review: {},
    ...over,
  });
  const opened = async (p: StartMeetingParams) => {
    const rpc = daemon.host().conn.rpc;
    const { meetingId } = await rpc.request('meeting/start', p);
    const { events } = await rpc.request('meeting/get', { meetingId });
    await rpc.request('meeting/cut', { meetingId });
    const of = <T extends MeetingEvent['type']>(t: T) =>
      events.find((e) => e.type === t) as Extract<MeetingEvent, { type: T }> | undefined;
    return { opened: of('meeting_opened'), context: of('context_attached') };
  };
  const repoWithPool = async () => {
    const r = await makeReviewRepo();
    repos.push(r);
    await r.write('services/orders/db.ts', MYSQL_POOL);
    r.git('add', '.');
    r.git('commit', '-qm', 'orders: a MySQL pool');
    return r;
  };

  it('logs the scope the daemon read and shows every reviewer the scoped record and the diff', async () => {
    const r = await repoWithPool();
    const { opened: o, context } = await opened(params(r.root));
    assert.deepEqual(o?.config.review?.changed, [{ file: 'services/orders/db.ts', ranges: [{ start: 1, end: 2 }] }]);
    assert.deepEqual(
      o?.config.review?.decisions.map((d) => [d.id, d.status, d.path]),
      [
        ['0001', 'accepted', POSTGRES_RECORD],
        ['0002', 'superseded', 'docs/decisions/0002-sqlite-for-reports.md'],
      ],
    );
    // The superseded record is listed in the scope, never shown as a rule.
    assert.deepEqual(
      context?.items.map((i) => [i.kind, i.path]),
      [
        ['decision', POSTGRES_RECORD],
        ['diff', `git diff ${r.git('rev-parse', 'main').trim().slice(0, 12)} -- services/orders/db.ts`],
      ],
    );
    assert.match(context?.items[1]?.text ?? '', /mysql\.createPool/);
  });

  it("refuses a client's own config.review, and a review that is not a consensus or has no workspace, in one line", async () => {
    const r = await repoWithPool();
    const rpc = daemon.host().conn.rpc;
    const forged = { changed: [{ file: 'x.ts', ranges: [] }], decisions: [] };
    await assert.rejects(
      rpc.request('meeting/start', params(r.root, { config: { review: forged } })),
      badRequest(/^config\.review is set by the daemon/),
    );
    // Not even on a meeting that asks for no review.
    const { review: _none, ...plain } = params(r.root, { config: { review: forged } });
    await assert.rejects(rpc.request('meeting/start', plain), badRequest(/^config\.review is set by the daemon/));
    await assert.rejects(rpc.request('meeting/start', params(r.root, { mode: 'roundtable' })), badRequest(/consensus/));
    const { workspace: _w, ...noWorkspace } = params(r.root);
    await assert.rejects(rpc.request('meeting/start', noWorkspace), badRequest(/workspace/));
    await assert.rejects(
      rpc.request('meeting/start', params(r.root, { review: { base: 'nope' } })),
      badRequest(/^review: the base "nope" is not a commit in this repository$/),
    );
  });

  it('splits a change too big for the budget by file and lists the file it did not read', async () => {
    const r = await repoWithPool();
    const big = Array.from({ length: 400 }, (_, i) => `export const line${i} = ${i}; // padding the change`).join('\n');
    await r.write('services/orders/zbig.ts', `${big}\n`);
    r.git('add', '.');
    r.git('commit', '-qm', 'a big file');
    const { opened: o, context } = await opened(params(r.root, { config: { contextMaxTokens: 1_000 } }));
    assert.deepEqual(
      o?.config.review?.unread?.map((u) => u.file),
      ['services/orders/zbig.ts'],
    );
    assert.match(o?.config.review?.unread?.[0]?.reason ?? '', /did not fit the 1000-token review budget/);
    assert.deepEqual(
      o?.config.review?.changed.map((c) => c.file),
      ['services/orders/db.ts'],
    );
    assert.ok(context?.items.some((i) => i.kind === 'diff' && /db\.ts$/.test(i.path ?? '')));
    assert.match(context?.cut ?? '', /1 changed file\(s\) were not read/);
  });
});
