/**
 * A throwaway repository for reviews: on `main`, an accepted MADR record "Postgres for every
 * service" whose front matter scopes it to `services/**`, a superseded record, and a service;
 * then a `feature` branch the test changes. And a loopback reviewer that answers the review's two
 * prompts as models do: findings (JSON) when asked to review, a ballot when asked to vote.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before } from 'node:test';
import { cli, ensureBuilt, type CliResult } from './cli';
import { spawnDaemonProcess, tempDataDir, type DaemonProcess } from './daemon';
import {
  lastUserMessage,
  startFakeOpenAI,
  type ChatBody,
  type FakeOpenAI,
  type Reply,
  type Responder,
} from './openaiServer';
import { ballotFindings } from './reviewers';
import { gitIn } from './workspace';

/** The reviewers' models the loopback server lists. */
export const REVIEW_MODELS = ['rev-a', 'rev-b', 'rev-c'];

export const POSTGRES_RECORD = 'docs/decisions/0001-postgres-for-every-service.md';

const FILES: Record<string, string> = {
  [POSTGRES_RECORD]:
    '---\nstatus: accepted\ndate: 2026-01-10\nscope:\n  - "services/**"\n---\n\n# Postgres for every service\n\n## Context and Problem Statement\n\nEvery service stores its data somewhere; one database engine keeps operations simple.\n\n## Decision Outcome\n\nChosen option: Postgres, for every service.\n',
  'docs/decisions/0002-sqlite-for-reports.md':
    '---\nstatus: superseded\ndate: 2025-05-01\n---\n\n# SQLite for reports\n\nSuperseded by [0001](0001-postgres-for-every-service.md).\n',
  'services/orders/handler.ts': 'export function handle(id: string) {\n  return { id };\n}\n',
  '.gitignore': 'build/\n',
};

export interface ReviewRepo {
  root: string;
  write(rel: string, text: string | Uint8Array): Promise<void>;
  git(...args: string[]): string;
}

/** `main` with the records and a service, checked out on a new `feature` branch. */
export async function makeReviewRepo(): Promise<ReviewRepo> {
  const root = path.join(await mkdtemp(path.join(tmpdir(), 'rt-review-')), 'repo');
  const write = async (rel: string, text: string | Uint8Array) => {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  };
  for (const [rel, text] of Object.entries(FILES)) await write(rel, text);
  const git = (...args: string[]) => gitIn(root, ...args).toString();
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-qm', 'records and a service');
  git('checkout', '-qb', 'feature');
  return { root, write, git };
}

/** The report files of a review beside the repository, and the flags that write them with the JSON on stdout. */
export function reportFiles(r: ReviewRepo): { sarif: string; markdown: string; args: string[] } {
  const out = path.join(r.root, '..', 'out');
  const sarif = path.join(out, 'review.sarif');
  const markdown = path.join(out, 'review.md');
  return { sarif, markdown, args: ['--json', '--sarif', sarif, '--markdown', markdown] };
}

/** A MySQL pool: what the accepted record forbids. Line 2 of the file is the pool. */
export const MYSQL_POOL =
  "import mysql from 'mysql2/promise';\nexport const pool = mysql.createPool({ host: 'db', database: 'orders' });\n";

/** Commits the MySQL pool on the repository's `feature` branch: the change that breaks decision 0001. */
export async function commitMysqlPool(r: ReviewRepo): Promise<ReviewRepo> {
  await r.write('services/orders/db.ts', MYSQL_POOL);
  r.git('add', '.');
  r.git('commit', '-qm', 'orders: a MySQL pool');
  return r;
}

const everything = (body: ChatBody) => (body.messages ?? []).map((m) => m.content).join('\n');

/**
 * Reviewers as models behave: asked to review, a change with `mysql.createPool` gets one blocking
 * finding citing decision 0001 at the pool's line (each reviewer in its own words); anything else
 * gets no finding. Asked to vote, every reviewer upholds each finding with evidence.
 */
export function reviewResponder(body: ChatBody): Reply {
  const text = everything(body);
  // A model answers what the last message asks: a ballot continues the findings conversation.
  const asked = lastUserMessage(body);
  if (asked.includes('"findings": [')) {
    if (!text.includes('mysql.createPool')) return '{"findings": []}';
    return JSON.stringify({
      findings: [
        {
          file: 'services/orders/db.ts',
          lines: { start: 2, end: 2 },
          severity: 'blocking',
          decision: '0001',
          // With a terminal escape, as a hostile model might write: the terminal must never receive it.
          claim: `\u001b[2J\u001b]0;pwned\u0007A MySQL pool in the orders service, where decision 0001 says Postgres for every service (${body.model}).`,
          quote: "export const pool = mysql.createPool({ host: 'db', database: 'orders' });",
        },
      ],
    });
  }
  if (asked.includes('{"votes": [')) {
    const votes = ballotFindings(asked).map(({ id: option }) => ({
      option,
      vote: 'accept',
      confidence: 0.9,
      rationale: 'Line 2 creates a MySQL pool; decision 0001 chose Postgres for every service.',
      evidence: [
        { file: 'services/orders/db.ts', section: 'lines 2', type: 'code' },
        { file: POSTGRES_RECORD, section: 'Decision Outcome', type: 'doc' },
      ],
    }));
    return JSON.stringify({ votes });
  }
  return 'The panel reviewed the change. [STANCE: AGREE]';
}

/**
 * Reviewers as models misbehave (issue 33): rev-a reports the real finding and one at lines the
 * change does not touch; rev-b the same finding in other words and one citing the superseded
 * record; rev-c one citing a decision that does not exist. Each votes as `reviewResponder`.
 */
export function unrulyResponder(body: ChatBody): Reply {
  if (!lastUserMessage(body).includes('"findings": [')) return reviewResponder(body);
  const pool = { file: 'services/orders/db.ts', severity: 'blocking' };
  const findings: Record<string, object[]> = {
    'rev-a': [
      {
        ...pool,
        lines: '2',
        decision: '0001',
        claim: 'A MySQL pool breaks decision 0001 (Postgres for every service).',
      },
      { ...pool, lines: '40-41', decision: '0001', claim: 'The pool is never closed.' },
    ],
    'rev-b': [
      { ...pool, lines: { start: 1, end: 2 }, decision: '0001', claim: 'Orders now talks to MySQL, not Postgres.' },
      { ...pool, lines: '2', decision: '0002', claim: 'Reports should use SQLite.' },
    ],
    'rev-c': [{ ...pool, lines: '2', decision: '0042', claim: 'Breaks the connection-pool policy.' }],
  };
  return JSON.stringify({ findings: findings[body.model ?? ''] ?? [] });
}

/**
 * A suite's loopback server answering as `reviewResponder`, its repositories (removed after the
 * suite), `review` (the real CLI in a repository, in-process, no daemon) and what was sent since a
 * given request.
 */
export function reviewSuite(): {
  fake: () => FakeOpenAI;
  repo: () => Promise<ReviewRepo>;
  review: (r: ReviewRepo, args?: string[]) => Promise<CliResult>;
  sentSince: (from: number) => string;
} {
  let fake: FakeOpenAI | undefined;
  const repos: ReviewRepo[] = [];
  before(async () => {
    ensureBuilt();
    fake = await startFakeOpenAI(reviewResponder, { models: REVIEW_MODELS });
  });
  after(async () => {
    await fake?.close();
    for (const r of repos) await rm(path.dirname(r.root), { recursive: true, force: true });
  });
  const server = (): FakeOpenAI => {
    if (!fake) throw new Error('the server starts in the suite’s before hook');
    return fake;
  };
  return {
    fake: server,
    repo: async () => {
      const r = await makeReviewRepo();
      repos.push(r);
      return r;
    },
    review: (r, args = []) =>
      cli(['review', '--no-daemon', '--base-url', server().baseURL, '--models', REVIEW_MODELS.join(','), ...args], {
        cwd: r.root,
        env: { ROUNDTABLE_HOME: path.join(r.root, '..', 'home') },
      }),
    sentSince: (from) =>
      server()
        .requests.slice(from)
        .map((q) => JSON.stringify(q.body))
        .join('\n'),
  };
}

/**
 * A suite's loopback server answering as `responder`, a daemon process, and one repository made by
 * `makeRepo`, all stopped and removed after the suite. `review` runs the real CLI in the repository:
 * through the daemon, or in-process with `{ daemon: false }` (its own home, no daemon found).
 */
export function reviewDaemonSuite(
  responder: Responder,
  makeRepo: () => Promise<ReviewRepo> = makeReviewRepo,
): {
  fake: () => FakeOpenAI;
  daemon: () => DaemonProcess;
  repo: () => ReviewRepo;
  review: (args: string[], opts?: { daemon?: boolean }) => Promise<CliResult>;
} {
  let fake: FakeOpenAI | undefined;
  let daemon: DaemonProcess | undefined;
  let repo: ReviewRepo | undefined;
  before(async () => {
    ensureBuilt();
    fake = await startFakeOpenAI(responder, { models: REVIEW_MODELS });
    daemon = await spawnDaemonProcess(await tempDataDir());
    repo = await makeRepo();
  });
  after(async () => {
    await daemon?.stop();
    await fake?.close();
    if (repo) await rm(path.dirname(repo.root), { recursive: true, force: true });
    if (daemon) await rm(daemon.dataDir, { recursive: true, force: true });
  });
  const started = <T>(x: T | undefined): T => {
    if (x === undefined) throw new Error('the server, daemon and repository start in the suite’s before hook');
    return x;
  };
  return {
    fake: () => started(fake),
    daemon: () => started(daemon),
    repo: () => started(repo),
    review: (args, opts = {}) => {
      const root = started(repo).root;
      const where = opts.daemon === false ? ['--no-daemon'] : ['--data-dir', started(daemon).dataDir];
      return cli(
        ['review', ...where, '--base-url', started(fake).baseURL, '--models', REVIEW_MODELS.join(','), ...args],
        { cwd: root, env: { ROUNDTABLE_HOME: path.join(root, '..', 'home') } },
      );
    },
  };
}
