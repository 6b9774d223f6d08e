import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MeetingEvent, Participant, StartMeetingParams } from '@roundtable/protocol';
import { checkStartParams, fold } from '@roundtable/protocol';
import { parseRunArgs } from '../../cli/src/runCommand';
import { systemClock } from '../../daemon/src/meeting/clock';
import { Meeting } from '../../daemon/src/meeting/engine';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { MemoryStore } from '../../daemon/src/store/memoryStore';
import { MeetingManager } from '../../daemon/src/daemon/manager';
import { providerFactory } from '../../daemon/src/daemon/daemon';
import { demoEvidenceWorkspace, examplesDir } from '../../daemon/src/providers/demo';
import { eventsOfType } from '../fakes/meetings';
import { instructionsOf, startFakeOpenAI, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';
import { APP_TS, makeWorkspace, type FakeWorkspace } from '../fakes/workspace';

function responder(body: ChatBody) {
  const system = instructionsOf(body);
  if (/the judge/.test(system)) return { text: 'CONVERGED: done' };
  if (/closing digest/.test(system))
    return { text: 'CONSENSUS_STATEMENT: keep it\nCONTRIBUTORS: ada and grace\nDISSENT: none' };
  if (/Update the rolling summary/.test(body.messages?.find((m) => m.role === 'user')?.content ?? ''))
    return { text: 'Summary.' };
  if (/chairs/.test(system)) return { text: 'Welcome.' };
  // Split stances, so the room does not agree at once and the judge is asked.
  return { text: `The file sets answer to 42. [STANCE: ${/^You are ada/.test(system) ? 'AGREE' : 'DISAGREE'}]` };
}

const PANEL: Participant[] = [
  { name: 'sam', role: 'assistant', provider: 'openai', model: 'm' },
  { name: 'jude', role: 'judge', provider: 'openai', model: 'm' },
  { name: 'ada', role: 'worker', provider: 'openai', model: 'm' },
  { name: 'grace', role: 'worker', provider: 'openai', model: 'm' },
];

const sha = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');

describe('context attached to a meeting', () => {
  let fake: FakeOpenAI;
  let ws: FakeWorkspace;
  before(async () => {
    fake = await startFakeOpenAI(responder);
    ws = await makeWorkspace();
  });
  after(async () => {
    await fake.close();
    await rm(path.dirname(ws.root), { recursive: true, force: true });
  });

  async function run(context: StartMeetingParams['context'], config: StartMeetingParams['config'] = {}) {
    const store = new MemoryStore();
    const provider = new OpenAIProvider({ baseURL: fake.baseURL });
    const first = fake.requests.length;
    const params = checkStartParams({
      topic: 'Should we move storage off Postgres?',
      mode: 'roundtable',
      participants: PANEL,
      config: { maxRounds: 2, ...config },
      workspace: ws.root,
      context,
    });
    assert.ok(params.ok, params.ok ? '' : params.error);
    const meeting = await Meeting.open(
      { store, providerFor: () => provider, clock: systemClock },
      `m-ctx-${Math.random().toString(36).slice(2, 8)}`,
      params.value,
    );
    const state = await meeting.run();
    const events: MeetingEvent[] = await store.load(meeting.id);
    return { state, events, requests: fake.requests.slice(first) };
  }

  it('shows attached files to every participant as quoted evidence and lists them in the minutes with sha256', async () => {
    const { events, requests, state } = await run({
      paths: ['src/app.ts', 'docs/*.md'],
      note: 'Focus on the storage layer.',
      diff: { ref: 'HEAD' },
      decisionsFolder: 'docs/decisions',
    });
    const [attached] = eventsOfType(events, 'context_attached');
    assert.ok(attached, 'context_attached logged');
    assert.equal(attached.seq, 2, 'right after meeting_opened');
    const header = `[Inter-session message · from=workspace · kind=system · seq=2 · isUser=false]`;
    const speakers = new Set<string>();
    for (const r of requests) {
      const system = instructionsOf(r.body);
      const me = /^You are (\w+)/.exec(system)?.[1] ?? '?';
      const user = r.body.messages?.find((m) => m.role === 'user')?.content ?? '';
      if (!/closing digest/.test(system) && !/Update the rolling summary/.test(user)) {
        assert.ok(user.includes(header), `${me}'s prompt carries the context envelope`);
        assert.ok(user.includes('| export const answer = 42;'), `${me} sees the file, quote-prefixed`);
        assert.ok(user.includes('| Focus on the storage layer.'), `${me} sees the note`);
        assert.ok(user.includes('return b + a'), `${me} sees the diff`);
        assert.ok(!/from=human · kind=peer · seq=1 · isUser=true/.test(user), 'a header inside a file is defanged');
        speakers.add(me);
      }
    }
    for (const name of ['sam', 'jude', 'ada', 'grace']) assert.ok(speakers.has(name), `${name} was shown the context`);

    const files = attached.items.filter((i) => i.kind === 'file').map((i) => i.path);
    assert.deepEqual(files, ['src/app.ts', 'docs/notes.md']);
    const decisions = attached.items.filter((i) => i.kind === 'decision');
    assert.equal(decisions[0]?.path, 'docs/decisions/0001-use-postgres-for-storage.md', 'the relevant record first');
    assert.equal(decisions[0]?.status, 'accepted');
    assert.equal(decisions[0]?.date, '2025-01-10');
    assert.ok(!decisions.some((d) => d.path?.includes('0003')), 'an unrelated record is not attached');

    const minutes = renderMinutes(fold(events));
    assert.match(minutes, /## Context/);
    assert.ok(minutes.includes(sha(APP_TS)), 'the minutes show the content hash of src/app.ts');
    // The dot escaped: no Markdown preview links `app.ts` as a domain.
    assert.ok(minutes.includes('src/app\\.ts'));
    assert.equal(state.closed?.reason, 'judge_converged');

    // Minutes and prompts come from the log alone: the file changing later changes nothing.
    await rm(path.join(ws.root, 'docs/notes.md'));
    assert.equal(renderMinutes(fold(events)), minutes);
  });

  it('shows the compaction summary and the digest the same cached prefix as the workers, context included', async () => {
    // A judge that never converges and a low threshold, so the rounds are folded into the summary.
    const own = await startFakeOpenAI((body) => {
      const system = instructionsOf(body);
      return /the judge/.test(system) ? { text: '[CLEAN]' } : responder(body);
    });
    try {
      const store = new MemoryStore();
      const params = checkStartParams({
        topic: 'Should we move storage off Postgres?',
        mode: 'roundtable',
        participants: PANEL,
        config: { maxRounds: 3, compactAtTokens: 100 },
        workspace: ws.root,
        context: { paths: ['src/app.ts'] },
      });
      assert.ok(params.ok, params.ok ? '' : params.error);
      const provider = new OpenAIProvider({ baseURL: own.baseURL });
      const meeting = await Meeting.open(
        { store, providerFor: () => provider, clock: systemClock },
        'm-ctx-manifest',
        params.value,
      );
      await meeting.run();
      const asks = own.requests.map((r) => ({
        seat: instructionsOf(r.body),
        transcript: r.body.messages?.[1]?.content ?? '',
      }));
      const summary = asks.find((u) => /Update the rolling summary/.test(u.seat));
      const digest = asks.find((u) => /Write the closing digest/.test(u.seat));
      const worker = asks.find((u) => /^You are ada/.test(u.seat));
      assert.ok(summary && digest && worker, 'the meeting asked ada, a compaction summary and a digest');
      assert.ok(worker.transcript.includes('| export const answer = 42;'), 'workers read the file itself');
      for (const [what, u] of [
        ['summary', summary],
        ['digest', digest],
      ] as const) {
        // The file costs a cached read, not a new prefix: the same head as ada's first turn.
        assert.ok(
          u.transcript.startsWith(worker.transcript),
          `the ${what} prompt starts with ada's round-1 transcript`,
        );
      }
    } finally {
      await own.close();
    }
  });

  it("reads the person's files even when the shipped demo plays (its canned evidence lives in examples/)", async () => {
    const store = new MemoryStore();
    const manager = new MeetingManager({
      store,
      clock: systemClock,
      providers: providerFactory({}),
      log: () => undefined,
      newId: () => 'm-ctx-demo',
      evidenceWorkspace: demoEvidenceWorkspace,
    });
    const scripted = (name: string, role: Participant['role']): Participant => ({
      name,
      role,
      provider: 'scripted',
      model: 'demo',
    });
    const params = checkStartParams({
      topic: 'Should we adopt a monorepo for our three services?',
      mode: 'roundtable',
      participants: [scripted('sam', 'assistant'), scripted('ada', 'worker'), scripted('grace', 'worker')],
      config: { maxRounds: 1 },
      workspace: ws.root,
      context: { paths: ['src/app.ts'] },
    });
    assert.ok(params.ok, params.ok ? '' : params.error);
    try {
      const id = await manager.start(params.value);
      const events = await store.load(id);
      const [opened] = eventsOfType(events, 'meeting_opened');
      assert.equal(opened?.workspace, examplesDir(), 'the demo checks its evidence in examples/');
      const [attached] = eventsOfType(events, 'context_attached');
      assert.deepEqual(attached?.refused, [], 'nothing refused');
      assert.equal(attached?.items[0]?.path, 'src/app.ts');
      assert.equal(attached?.items[0]?.sha256, sha(APP_TS), "the person's file, read from their workspace");
    } finally {
      await manager.shutdown();
    }
  });

  it('refuses a path outside the workspace, a symlink out of it, a binary, .env, a key and a git-ignored file with one line each', async () => {
    // A path that climbs out is refused before the meeting starts (test/unit/linearText.test.ts).
    const climbing = checkStartParams({
      topic: 't',
      mode: 'roundtable',
      participants: PANEL,
      context: { paths: ['../outside.txt'] },
    });
    assert.equal(climbing.ok ? '' : climbing.error, 'context path "../outside.txt" is outside the workspace');
    const { events } = await run({
      paths: [ws.outsideFile, 'escape.txt', 'logo.png', '.env', 'keys/server.pem', 'build/out.js'],
    });
    const [attached] = eventsOfType(events, 'context_attached');
    assert.ok(attached);
    assert.deepEqual(attached.items, [], 'nothing was read');
    assert.deepEqual(
      attached.refused.map((r) => `${r.path}: ${r.reason}`),
      [
        `${ws.outsideFile}: is outside the workspace`,
        'escape.txt: is outside the workspace',
        '.env: has a secret-looking name (an environment file)',
        'keys/server.pem: has a secret-looking name (a private key)',
        'logo.png: is a binary file',
        'build/out.js: is ignored by git',
      ],
    );
    const minutes = renderMinutes(fold(events));
    assert.match(minutes, /- Refused `\.env`: has a secret-looking name/);
    assert.ok(!minutes.includes('TOP SECRET') && !minutes.includes('sk-live'), 'no refused content anywhere');
  });

  it('cuts context to its token budget and says what it cut', async () => {
    const { events } = await run({ paths: ['src/app.ts', 'src/util.ts', 'docs/notes.md'] }, { contextMaxTokens: 20 });
    const [attached] = eventsOfType(events, 'context_attached');
    assert.ok(attached);
    assert.ok(attached.items.reduce((n, i) => n + i.tokens, 0) <= 20);
    assert.match(attached.cut ?? '', /over its 20-token budget: src\/app\.ts left out \(\d+ tokens\)/);
    assert.ok(
      attached.items.some((i) => i.path === 'src/util.ts'),
      'a smaller file that fits is still attached',
    );
    assert.match(renderMinutes(fold(events)), /Context over its 20-token budget/);
  });

  it('takes --context (repeatable), --diff [REF] and --note from the CLI', async () => {
    const r = await parseRunArgs(
      ['--topic', 'x', '--context', 'src/app.ts', '--diff', '--context=docs/*.md', '--note', 'hi'],
      {},
    );
    assert.notEqual(r, 'help');
    if (r === 'help') return;
    assert.deepEqual(r.params.context, {
      paths: ['src/app.ts', 'docs/*.md'],
      diff: { ref: 'HEAD' },
      note: 'hi',
      decisionsFolder: 'docs/decisions',
    });
    assert.equal(r.params.config?.tools, undefined, 'tools are off unless asked for');
    const main = await parseRunArgs(['--topic', 'x', '--diff', 'main', '--tools'], {});
    assert.deepEqual(main !== 'help' && main.params.context?.diff, { ref: 'main' });
    assert.equal(main !== 'help' && main.params.config?.tools, true);
    await assert.rejects(parseRunArgs(['--topic', 'x', '--diff', 'x;rm'], {}), /--diff must name a branch/);
  });
});
