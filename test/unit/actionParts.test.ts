/**
 * The GitHub Action's decisions that need no runner: which comment is its own (of its token's identity), how a long report is
 * cut to fit a comment, which pull request an event is about and whether it comes from a fork, and
 * what the review command's environment holds. The whole action runs in
 * test/integration/action.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { commentBody, ownComment } from '../../action/src/comment';
import { MAX_BODY_CHARS, bodyExceptions, readPullRequest } from '../../action/src/event';
import { reviewEnv } from '../../action/src/review';
import { REVIEW_COMMENT_MARKER } from '../../protocol/src/review';

const ROOT = path.resolve(__dirname, '..', '..');
const EVENTS = path.join(ROOT, 'test', 'fixtures', 'github');
const bot = { login: 'github-actions[bot]', id: 41898282 };
const contributor = { login: 'mallory', id: 7 };
const me = { login: bot.login, id: bot.id };

function eventFile(payload: unknown): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'rt-event-')), 'event.json');
  writeFileSync(file, JSON.stringify(payload));
  return file;
}

describe("the action's own comment", () => {
  it("is the token's own marked comment, never a contributor's that starts with the marker first", () => {
    const comments = [
      { id: 1, body: `${REVIEW_COMMENT_MARKER}\nPassed`, user: contributor },
      { id: 2, body: `quoting ${REVIEW_COMMENT_MARKER}`, user: bot },
      { id: 3, body: `${REVIEW_COMMENT_MARKER}\n## Roundtable review`, user: bot },
    ];
    assert.equal(ownComment(comments, me)?.id, 3);
  });

  it("is none when only others carry the marker: another bot's, a login reused under another id, a deleted user's", () => {
    const comments = [
      { id: 4, body: `${REVIEW_COMMENT_MARKER}\nPassed`, user: contributor },
      { id: 5, body: `${REVIEW_COMMENT_MARKER}\nreport`, user: { login: 'renovate[bot]', id: 29139614 } },
      { id: 6, body: `${REVIEW_COMMENT_MARKER}\nreport`, user: { login: bot.login, id: 1 } },
      { id: 7, body: `${REVIEW_COMMENT_MARKER}\nreport`, user: null },
      { id: 8, body: null, user: bot },
    ];
    assert.equal(ownComment(comments, me), undefined);
  });

  it("a personal token's user: its own marked comment, found by login when GitHub gives no id", () => {
    const comments = [
      { id: 9, body: `${REVIEW_COMMENT_MARKER}\nPassed`, user: contributor },
      { id: 10, body: `${REVIEW_COMMENT_MARKER}\nreport`, user: { login: 'octocat', id: 583231 } },
    ];
    assert.equal(ownComment(comments, { login: 'octocat', id: 583231 })?.id, 10);
    assert.equal(ownComment(comments, { login: 'octocat' })?.id, 10);
  });
});

describe('a report as a comment', () => {
  it('starts with the marker, added once', () => {
    assert.equal(commentBody('## Review\n'), `${REVIEW_COMMENT_MARKER}\n## Review\n`);
    assert.equal(commentBody(`${REVIEW_COMMENT_MARKER}\n## Review\n`), `${REVIEW_COMMENT_MARKER}\n## Review\n`);
  });

  it('too long: cut at a line end within the limit, an open code block closed, and a line saying so', () => {
    const report = `## Review\n\n\`\`\`diff\n${'+ a changed line\n'.repeat(10_000)}\`\`\`\n`;
    const body = commentBody(report, 1_000);
    assert.ok(body.length <= 1_000, `${body.length}`);
    assert.ok(body.startsWith(`${REVIEW_COMMENT_MARKER}\n## Review`));
    assert.match(
      body,
      /\+ a changed line\n```\n\n_\(the report is longer than a comment may be: the rest is in the job summary\.\)_\n$/,
    );
  });
});

describe('the pull request of the event', () => {
  it("a pull request from a branch of the repository: where its comment goes, not a fork's", () => {
    assert.deepEqual(readPullRequest(path.join(EVENTS, 'pull_request.synchronize.json')), {
      owner: 'Codertocat',
      repo: 'Hello-World',
      number: 2,
      fromFork: false,
      exceptions: [],
      skipped: [],
    });
  });

  it("passes on the body's exception lines within the CLI's limits, and says which it did not", () => {
    const line = (i: number) => `Decision-Exception: 0001 reason ${i}`;
    const many = bodyExceptions(
      [...Array.from({ length: 21 }, (_, i) => line(i)), `Decision-Exception: 0002 ${'x'.repeat(500)}`].join('\n'),
    );
    assert.equal(many.exceptions.length, 20);
    assert.equal(many.exceptions[0], '0001 reason 0');
    assert.deepEqual(
      many.skipped.map((w) => w.replace(/: .*/, '')),
      [
        'more than 20 Decision-Exception lines in the pull request',
        'a Decision-Exception line of the pull request is longer than 500 characters',
      ],
    );
    assert.deepEqual(bodyExceptions('Decision-Exception: 0001\tthe\u0007reason'), {
      exceptions: ['0001 the reason'],
      skipped: [],
    });
    const huge = bodyExceptions(`${line(0)}\n${'x'.repeat(MAX_BODY_CHARS)}`);
    assert.deepEqual(huge.exceptions, []);
    assert.match(huge.skipped[0] ?? '', /longer than 65536 characters/);
    assert.deepEqual(bodyExceptions(null), { exceptions: [], skipped: [] });
  });

  it("a fork's pull request, or one whose fork was deleted (head.repo null), is from a fork", () => {
    const fork = path.join(EVENTS, 'pull_request.fork.json');
    assert.equal(readPullRequest(fork)?.fromFork, true);
    const deleted = JSON.parse(readFileSync(fork, 'utf8')) as { pull_request: { head: { repo: unknown } } };
    deleted.pull_request.head.repo = null;
    assert.equal(readPullRequest(eventFile(deleted))?.fromFork, true);
  });

  it('a push has no pull request; a payload that is not GitHub’s is one line of error', () => {
    assert.equal(readPullRequest(eventFile({ ref: 'refs/heads/main', after: 'ec26c3e5' })), undefined);
    assert.equal(readPullRequest(undefined), undefined);
    assert.throws(
      () => readPullRequest(eventFile({ pull_request: { number: 'two' } })),
      (e: Error) => /^event payload/.test(e.message) && !e.message.includes('\n'),
    );
  });
});

describe("the review command's environment", () => {
  it("loses the action's inputs (the GitHub token among them) and gets the key where roundtable reads it", () => {
    const env = reviewEnv({ PATH: '/bin', 'INPUT_GITHUB-TOKEN': 'ghs_x', 'INPUT_API-KEY': 'sk-1' }, 'sk-1');
    assert.deepEqual(env, { PATH: '/bin', ROUNDTABLE_API_KEY: 'sk-1' });
    assert.deepEqual(reviewEnv({ PATH: '/bin', OPENAI_API_KEY: 'sk-2' }, ''), { PATH: '/bin', OPENAI_API_KEY: 'sk-2' });
  });
});

/** The keys of a top-level section of action.yml (`inputs:`, `outputs:`), or its `key: value` lines (`runs:`). */
function section(yml: string, name: string): Map<string, string> {
  const body = new RegExp(`^${name}:\\n((?: .*\\n|\\n)*)`, 'm').exec(yml)?.[1] ?? '';
  return new Map([...body.matchAll(/^ {2}([\w-]+):\s*(.*)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']));
}

describe('action.yml', () => {
  const yml = readFileSync(path.join(ROOT, 'action.yml'), 'utf8');
  const main = readFileSync(path.join(ROOT, 'action', 'src', 'main.ts'), 'utf8');

  it('declares exactly the inputs the action reads and the outputs it sets', () => {
    const read = new Set([...main.matchAll(/core\.getInput\('([\w-]+)'\)/g)].map((m) => m[1]));
    const set = new Set([...main.matchAll(/core\.setOutput\('([\w-]+)'/g)].map((m) => m[1]));
    assert.deepEqual([...section(yml, 'inputs').keys()].sort(), [...read].sort());
    assert.deepEqual([...section(yml, 'outputs').keys()].sort(), [...set].sort());
  });

  it('runs on Node 24, where GitHub runs JavaScript actions, the bundle npm run build makes for Node 24', () => {
    const runs = section(yml, 'runs');
    assert.equal(runs.get('using'), 'node24');
    assert.equal(runs.get('main'), 'dist/action/index.js');
    const build = readFileSync(path.join(ROOT, 'scripts', 'build.mjs'), 'utf8');
    assert.match(
      build,
      /entryPoints: \{ index: 'action\/src\/main\.ts' \},\s*outdir: 'dist\/action',\s*platform: 'node',\s*target: 'node24',/,
    );
  });
});

/**
 * The current major of each action the docs' workflows use, as the actions' own repositories have
 * them: actions/checkout v7 (tag v7 at 3d3c42e5aac5ba805825da76410c181273ba90b1; its action.yml says
 * `runs.using: node24`, as since v5.0.0 "Update actions checkout to use node 24"; v4 is node20) and
 * github/codeql-action v4 (tag v4 at 8aad20d150bbac5944a9f9d289da16a4b0d87c1e;
 * upload-sarif/action.yml `runs.using: node24`, "[v4+ only] The CodeQL Action now runs on Node.js
 * v24" in 4.30.7; v3 is node20, deprecated in December 2026). An action on Node 20 no longer runs.
 */
const CURRENT_MAJORS: Record<string, string> = {
  'actions/checkout': 'v7',
  'github/codeql-action/upload-sarif': 'v4',
};

describe("the docs' workflows", () => {
  it('name the current major of every action they use, each on Node 24', () => {
    const docs = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).map((f) => path.join('docs', f))].filter((f) =>
      f.endsWith('.md'),
    );
    const used = docs.flatMap((f) =>
      [...readFileSync(path.join(ROOT, f), 'utf8').matchAll(/\buses: ([\w.-]+\/[\w./-]+)@(\S+)/g)].map((m) => ({
        where: f,
        action: m[1] ?? '',
        ref: m[2] ?? '',
      })),
    );
    const others = used.filter((u) => !u.action.startsWith('roundtable-dev/'));
    assert.deepEqual([...new Set(others.map((u) => u.action))].sort(), Object.keys(CURRENT_MAJORS).sort());
    for (const u of others) assert.equal(u.ref, CURRENT_MAJORS[u.action], `${u.where}: ${u.action}@${u.ref}`);
  });
});
