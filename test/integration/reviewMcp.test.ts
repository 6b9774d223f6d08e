/**
 * The MCP tool `review` as an agent calls it before it commits: the official SDK's Client over
 * real stdio to the built `roundtable mcp`, a real daemon, a real git repository with decision
 * records, and reviewers on a loopback OpenAI-compatible server. A change that breaks an accepted
 * decision comes back exit 1 with that decision in the finding and the votes; a clean change exit
 * 0; a server that fails every call exit 3 with one line, never 1; bad input one line and nothing
 * spent; the reviewers' text escaped in the summary.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { connectDaemon, type DaemonConnection } from '@roundtable/client';
import { fold, settles } from '@roundtable/protocol';
import { ensureBuilt } from '../fakes/cli';
import { spawnDaemonProcess, tempDataDir, type DaemonProcess } from '../fakes/daemon';
import { callText, mcpClient } from '../fakes/mcp';
import { chatCalls, startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';
import { reviewerResponder, type ReviewerScript } from '../fakes/reviewers';
import { gitIn } from '../fakes/workspace';

const MODELS = ['llama3.1:8b', 'qwen2.5:7b', 'mistral:7b'];

const POSTGRES =
  '---\nstatus: accepted\ndate: 2025-01-10\n---\n\n# Use Postgres for every service\n\nNo MySQL, no SQLite in services.\n';
const DB_BEFORE =
  "import { Pool } from 'pg';\n\nexport const pool = new Pool({ connectionString: process.env.DATABASE_URL });\n";
/** Lines 1-3 of the new side: the MySQL pool the decision forbids. */
const DB_MYSQL =
  "import mysql from 'mysql2/promise';\n\nexport const pool = mysql.createPool({ uri: process.env.DATABASE_URL });\n";

/** A repository on `main` with the decision and the Postgres pool, and a branch `feature` whose commit changes `src/db.ts` to `db`. */
async function repo(db: string): Promise<string> {
  const root = path.join(await mkdtemp(path.join(tmpdir(), 'rt-review-mcp-')), 'repo');
  await mkdir(path.join(root, 'docs', 'decisions'), { recursive: true });
  await mkdir(path.join(root, 'src'));
  await writeFile(path.join(root, 'docs', 'decisions', '0001-use-postgres.md'), POSTGRES);
  await writeFile(path.join(root, 'src', 'db.ts'), DB_BEFORE);
  gitIn(root, 'init', '-q', '-b', 'main');
  gitIn(root, 'add', '-A');
  gitIn(root, 'commit', '-qm', 'postgres');
  gitIn(root, 'checkout', '-qb', 'feature');
  await writeFile(path.join(root, 'src', 'db.ts'), db);
  gitIn(root, 'commit', '-qam', 'the change');
  return root;
}

interface Structured {
  exit: number;
  why?: string;
  meetingId?: string;
  findings: {
    id: string;
    file: string;
    lines: { start: number; end: number };
    severity: string;
    decision?: string;
    claim: string;
    verdict: string;
    votes: { worker: string; vote: string; confidence: number }[];
  }[];
  minutes?: { path: string; written: boolean };
}

/** Every reviewer finds the MySQL pool against decision 0001, one of them in words carrying HTML and a link. */
const MYSQL: ReviewerScript = {
  findings: (me) => [
    {
      file: 'src/db.ts',
      lines: { start: 1, end: 3 },
      severity: 'blocking',
      decision: '0001',
      claim:
        me === 'ada'
          ? 'Adds a MySQL pool <img src=x onerror=alert(1)> though [the record](http://evil.example) says Postgres'
          : 'The service now talks to MySQL; decision 0001 requires Postgres for every service.',
      quote: "import mysql from 'mysql2/promise';",
    },
  ],
  vote: () => ({ vote: 'accept', confidence: 0.9, evidence: ['src/db.ts'] }),
};

describe('MCP review', () => {
  let dataDir: string;
  let daemon: DaemonProcess;
  let host: DaemonConnection;
  const closers: (() => Promise<unknown>)[] = [];
  const meetings = async () => (await host.rpc.request('meeting/list', {})).meetings;

  /** A session on `root` whose panel is on a fresh loopback server answering as `script`. */
  const session = async (root: string, script: ReviewerScript | 'down'): Promise<{ c: Client; fake: FakeOpenAI }> => {
    const fake = await startFakeOpenAI(
      script === 'down' ? () => ({ status: 503, retryAfterMs: 1 }) : reviewerResponder(script),
      { models: MODELS },
    );
    const c = await mcpClient(dataDir, 'reviewer', {
      args: ['--workspace', root],
      env: { ROUNDTABLE_BASE_URL: fake.baseURL },
    });
    closers.push(
      () => c.close(),
      () => fake.close(),
    );
    return { c, fake };
  };

  before(async () => {
    ensureBuilt();
    dataDir = await tempDataDir();
    daemon = await spawnDaemonProcess(dataDir);
    host = await connectDaemon(daemon.port, daemon.token);
  });
  after(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await host.close();
    await daemon.stop();
  });

  it('fails a change that breaks an accepted decision: exit 1, the decision, the votes, the text escaped', async () => {
    const root = await repo(DB_MYSQL);
    const { c } = await session(root, MYSQL);
    const seen: Progress[] = [];
    const r = await c.callTool({ name: 'review', arguments: { base: 'main' } }, undefined, {
      onprogress: (p) => seen.push(p),
      timeout: 60_000,
    });
    assert.ok(!r.isError, JSON.stringify(r.content));
    const s = r.structuredContent as Structured;
    assert.equal(s.exit, 1, JSON.stringify(s));
    const proven = s.findings.filter((f) => f.verdict === 'PROVEN');
    assert.equal(proven.length, 1, JSON.stringify(s.findings));
    const f = proven[0]!;
    assert.equal(f.decision, '0001');
    assert.equal(f.file, 'src/db.ts');
    assert.equal(f.severity, 'blocking');
    assert.deepEqual(
      f.votes.map((v) => v.vote),
      ['accept', 'accept', 'accept'],
    );
    assert.ok(s.minutes?.written, JSON.stringify(s.minutes));
    // The summary says it in a line, and the reviewers' HTML and link arrive as text, not markup.
    const text = (r.content as { text: string }[])[0]?.text ?? '';
    assert.match(text, new RegExp(`^Roundtable review ${s.meetingId ?? '?'}: exit 1 \\(failed\\)`));
    assert.match(text, /\*\*PROVEN\*\* blocking `src\/db\.ts:1-3` breaks decision 0001/);
    assert.ok(!text.includes('<img'), text);
    assert.ok(!/(?<!\\)\]\(http/.test(text), `no Markdown link: ${text}`);
    // The agent saw the proposals, the findings put to the vote and the vote as progress.
    const lines = seen.map((p) => p.message ?? '');
    assert.ok(
      lines.some((l) => /^ada proposed 1 finding$/.test(l)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => /^\d+ findings? to vote on/.test(l)),
      lines.join('\n'),
    );
    assert.deepEqual(
      seen.map((p) => p.progress),
      seen.map((_, i) => i + 1),
    );
  });

  it('names a file whose name holds an invisible character as it is, escaped and said, never cleaned into another name', async () => {
    const root = await repo(DB_BEFORE.replace('new Pool', 'new  Pool'));
    const odd = 'src/d\u200bb.ts';
    await writeFile(path.join(root, odd), DB_MYSQL);
    gitIn(root, 'add', '-A');
    gitIn(root, 'commit', '-qm', 'a second pool');
    // The reviewers copy the name as they were shown it (escaped).
    const shown: ReviewerScript = {
      findings: () => [{ ...MYSQL.findings('grace')[0]!, file: 'src/d\\u200bb.ts' }],
      vote: () => ({ vote: 'accept', confidence: 0.9 }),
    };
    const { c } = await session(root, shown);
    const r = await callText(c, 'review', { base: 'main' });
    const s = r.structured as Structured;
    assert.equal(s.exit, 1, JSON.stringify(s));
    const proven = s.findings.filter((f) => f.verdict === 'PROVEN');
    assert.deepEqual(
      proven.map((f) => f.file),
      ['src/d\\u200bb.ts (holds U+200B ZERO WIDTH SPACE)'],
    );
    assert.match(r.text, /`src\/d\\u200bb\.ts:1-3` \(holds U\+200B ZERO WIDTH SPACE\)/);
  });

  it('passes a change that breaks nothing: exit 0, no finding holds', async () => {
    const root = await repo(`${DB_BEFORE}export const poolSize = 10;\n`);
    const { c } = await session(root, { findings: () => [] });
    const r = await callText(c, 'review', { base: 'main' });
    assert.ok(!r.isError, r.text);
    const s = r.structured as Structured;
    assert.equal(s.exit, 0, JSON.stringify(s));
    assert.ok(!s.findings.some((f) => f.verdict === 'PROVEN'));
    assert.match(r.text, /^Roundtable review \S+: exit 0 \(clean\)/);
  });

  it('says an empty change is nothing to review: exit 0, no meeting, no model called', async () => {
    const root = await repo(DB_MYSQL);
    const { c, fake } = await session(root, MYSQL);
    const count = (await meetings()).length;
    const r = await callText(c, 'review', { worktree: true });
    assert.ok(!r.isError, r.text);
    const s = r.structured as Structured;
    assert.equal(s.exit, 0);
    assert.deepEqual(s.findings, []);
    assert.match(r.text, /^Roundtable review: exit 0 \(clean\) — .*nothing to review$/);
    assert.equal(chatCalls(fake), 0);
    assert.equal((await meetings()).length, count);
  });

  it('says it could not review when every call fails: exit 3 with one line, never a failed review', async () => {
    const root = await repo(DB_MYSQL);
    const { c } = await session(root, 'down');
    const r = await callText(c, 'review', { base: 'main' });
    const s = r.structured as Structured;
    assert.equal(s.exit, 3, r.text);
    assert.ok(s.why && !s.why.includes('\n'), JSON.stringify(s.why));
    assert.match(s.why, /proposal call failed .*\(503\)/);
    assert.match(r.text, /: exit 3 \(could not review\) — /);
    assert.ok(!s.findings.some((f) => f.verdict === 'PROVEN'));
  });

  it('cuts the review when the call is cancelled, and says so in the meeting', async () => {
    const root = await repo(DB_MYSQL);
    // Paced so the cancel lands between the proposals and the vote.
    const { c } = await session(root, { ...MYSQL, extra: { delayMs: 300 } });
    const before = new Set((await meetings()).map((m) => m.meetingId));
    const abort = new AbortController();
    const call = c.callTool({ name: 'review', arguments: { base: 'main' } }, undefined, {
      signal: abort.signal,
      // The first proposal's progress is the moment to cancel: the review is surely running.
      onprogress: () => abort.abort(),
    });
    await assert.rejects(call, /abort/i);
    const m = (await meetings()).find((x) => !before.has(x.meetingId));
    assert.ok(m, 'the review was started');
    const watch = await host.meetings.attach(m.meetingId);
    await watch.untilEvent(settles, 0);
    const s = fold(watch.events);
    assert.equal(s.closed?.reason, 'cut');
    assert.ok(!s.rounds.some((r) => Object.keys(r.ballots).length === 3), 'cut before every ballot was in');
  });

  for (const [what, args, line] of [
    ['a base that is no ref', { base: '--upload-pack=touch x' }, /^base must be a branch, tag or commit name$/],
    ['a ref git does not know', { base: 'no-such-branch' }, /no-such-branch/],
    ['base and worktree together', { base: 'main', worktree: true }, /^give base or worktree, not both$/],
    ['an unknown bar', { failOn: 'minor' }, /^failOn must be blocking, major, contested, got "minor"$/],
    ['one model', { models: ['llama3.1:8b'] }, /^models takes 2 to \d+ model names, one per reviewer$/],
  ] as const) {
    it(`refuses ${what} in one line and spends nothing`, async () => {
      const root = await repo(DB_MYSQL);
      const { c, fake } = await session(root, MYSQL);
      const count = (await meetings()).length;
      const r = await callText(c, 'review', args);
      assert.ok(r.isError);
      assert.match(r.text, line);
      assert.equal(r.text.split('\n').length, 1);
      assert.equal(chatCalls(fake), 0, 'no model was called');
      assert.equal((await meetings()).length, count, 'no meeting was opened');
    });
  }

  it('is listed with its inputs and an output schema, and nothing to accept or commit', async () => {
    const { c } = await session(await repo(DB_MYSQL), MYSQL);
    const { tools } = await c.listTools();
    const review = tools.find((t) => t.name === 'review');
    assert.deepEqual(Object.keys(review?.inputSchema.properties ?? {}).sort(), [
      'base',
      'failOn',
      'models',
      'worktree',
    ]);
    assert.deepEqual(Object.keys(review?.outputSchema?.properties ?? {}).sort(), [
      'exit',
      'findings',
      'meetingId',
      'minutes',
      'unread',
      'why',
    ]);
  });
});
