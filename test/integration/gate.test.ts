/**
 * Issue 25: one workspace gate, tried through every reader against a hostile repository (see
 * test/fakes/hostileRepo.ts): read_file, search (with glob overrides), list_files, --context of a
 * file, a folder, `.`, `.git` and `.git/config`, the diff (staged and against HEAD), the editor
 * selection, decision records and evidence checks; then whole meetings whose every request reaches
 * a loopback fake model server, in-process, through the CLI and through the daemon. No planted
 * secret may appear in anything sent, and each refusal says why in one line.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ContextAttached, ContextRequest, MeetingEvent, Participant } from '@roundtable/protocol';
import { checkStartParams, fold } from '@roundtable/protocol';
import { readContext } from '../../daemon/src/context/readContext';
import { systemClock } from '../../daemon/src/meeting/clock';
import { Meeting } from '../../daemon/src/meeting/engine';
import { evidenceChecker } from '../../daemon/src/meeting/evidence';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { MemoryStore } from '../../daemon/src/store/memoryStore';
import { runTool } from '../../daemon/src/tools/workspaceTools';
import { cli, ensureBuilt, ROOT } from '../fakes/cli';
import { spawnDaemonProcess, tempDataDir } from '../fakes/daemon';
import { makeBrokenSubmoduleRepo, makeHostileRepo, leaked, type HostileRepo } from '../fakes/hostileRepo';
import { eventsOfType } from '../fakes/meetings';
import {
  defaultResponder,
  instructionsOf,
  startFakeOpenAI,
  type ChatBody,
  type FakeOpenAI,
} from '../fakes/openaiServer';

const MARK = '[redacted by Roundtable:';

/** `--context .` of a whole folder, as the gate lets it through. */
const attachWhole = (workspace: string): Promise<ContextAttached> =>
  readContext({ workspace, request: { paths: ['.'] }, topic: 'x', budget: 100_000 });
const sha = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');

/** Every file the gate must refuse by itself, and the reason its one line gives. */
const REFUSED: [string, RegExp][] = [
  ['.git/config', /is inside \.git \(version control internals\)/],
  ['.git-credentials', /has a secret-looking name \(git's stored credentials\)/],
  ['id_rsa.bak', /has a secret-looking name \(a private key\)/],
  ['server.pem.bak', /has a secret-looking name \(a private key\)/],
  ['.docker/config.json', /has a secret-looking name \(a docker registry login\)/],
  ['.npmrc', /has a secret-looking name \(an npm, pip or PyPI token file\)/],
  ['id_ed25519', /has a secret-looking name \(a private key\)/],
  ['secrets.yaml', /has a secret-looking name \(a secrets file\)/],
  ['prod.tfvars', /has a secret-looking name \(Terraform variables or state\)/],
  ['.netrc', /has a secret-looking name \(a netrc login file\)/],
  ['.ssh/config', /has a secret-looking name \(ssh configuration or keys\)/],
  ['cert.p12', /has a secret-looking name \(a private key\)/],
  ['.env', /has a secret-looking name \(an environment file\)/],
  ['.aws/credentials', /has a secret-looking name \(a cloud CLI credential\)/],
  ['.kube/config', /has a secret-looking name \(a kubeconfig\)/],
  ['private/notes.txt', /^is ignored by git$/],
  ['vendor/lib/local/token.txt', /^is ignored by git$/],
  ['outside-link.txt', /^is outside the workspace$/],
  ['notes-link.txt', /points at id_rsa\.bak, which has a secret-looking name/],
  ['keys/deploy.txt', /^holds a private key block$/],
  ['tools/.gitconfig', /^is a git config that holds credentials$/],
];

describe('the workspace gate against a hostile repository', () => {
  let repo: HostileRepo;
  before(async () => {
    ensureBuilt();
    repo = await makeHostileRepo();
  });
  after(async () => {
    await rm(repo.base, { recursive: true, force: true });
  });

  const clean = (what: string, text: string): void =>
    assert.deepEqual(leaked(repo, text), [], `${what} carried a planted secret:\n${text.slice(0, 2_000)}`);

  const context = (request: ContextRequest, topic = 'Review the service'): Promise<ContextAttached> =>
    readContext({ workspace: repo.root, request, topic, budget: 1_000_000 });

  const reasonOf = (c: ContextAttached, p: string): string | undefined => c.refused.find((r) => r.path === p)?.reason;

  describe('read_file', () => {
    for (const [rel, why] of REFUSED)
      it(`read_file refuses ${rel} and says why`, async () => {
        const r = await runTool(repo.root, 'read_file', { path: rel });
        assert.equal(r.ok, false);
        assert.ok(r.text.startsWith(`refused: ${rel} `), r.text);
        assert.match(r.text.slice(`refused: ${rel} `.length), why);
        assert.equal(r.text.split('\n').length, 1, 'one line');
        clean('read_file', r.text);
      });

    it('read_file redacts the API key of src/config.ts in place and keeps the rest', async () => {
      const r = await runTool(repo.root, 'read_file', { path: 'src/config.ts' });
      assert.ok(r.ok, r.text);
      assert.match(r.text, /1: export const port = 8080;/);
      assert.match(r.text, /2: const API_KEY = "\[redacted by Roundtable: token-assignment\]";/);
      assert.match(r.text, /3: export const region = 'eu-west-1';/);
      clean('read_file', r.text);
    });

    it('read_file redacts a JWT in ordinary source', async () => {
      const r = await runTool(repo.root, 'read_file', { path: 'src/auth.ts' });
      assert.ok(r.ok, r.text);
      assert.match(r.text, /export const session = '\[redacted by Roundtable: jwt\]';/);
      assert.match(r.text, /export const user = 'ada';/);
      clean('read_file', r.text);
    });

    it('read_file lets ordinary files through untouched: code, .env.example, a .gitconfig without credentials', async () => {
      for (const rel of [
        'src/app.ts',
        '.env.example',
        'tools/plain/.gitconfig',
        'vendor/lib/README.md',
        'vendor/lib/NOTES.md',
      ]) {
        const r = await runTool(repo.root, 'read_file', { path: rel });
        assert.ok(r.ok, `${rel}: ${r.text}`);
      }
    });
  });

  describe('search', () => {
    for (const glob of [undefined, '**', '**/*', 'private/**', '**/*.bak', '.git/**', 'vendor/**', '**/.*'])
      it(`search${glob ? ` with the glob override ${glob}` : ''} finds none of the planted secrets`, async () => {
        for (const q of [...repo.secrets, 'SECRET_', 'password', 'PRIVATE KEY', 'x-access-token']) {
          const r = await runTool(repo.root, 'search', { query: q, ...(glob ? { glob } : {}) });
          clean(`search ${q} ${glob ?? ''}`, r.text);
          assert.ok(!/private\/notes|\.git\/|id_rsa|\.npmrc|vendor\/lib\/NOTES/.test(r.text), r.text);
        }
      });

    it('search still finds ordinary code, and a matching line with a secret comes back redacted', async () => {
      const total = await runTool(repo.root, 'search', { query: 'reduce' });
      assert.match(total.text, /^1 match\(es\)\nsrc\/app\.ts:2:/);
      const key = await runTool(repo.root, 'search', { query: 'API_KEY' });
      assert.match(key.text, /src\/config\.ts:2:const API_KEY = "\[redacted by Roundtable: token-assignment\]";/);
      clean('search', key.text);
    });
  });

  describe('list_files', () => {
    it('list_files of the workspace names no .git internals, no secret-looking or git-ignored file, and says what it withheld', async () => {
      const r = await runTool(repo.root, 'list_files', {});
      assert.ok(r.ok);
      assert.match(r.text, /^src\/app\.ts$/m);
      for (const rel of REFUSED.map(([p]) => p).filter((p) => !p.endsWith('.txt') && p !== 'tools/.gitconfig'))
        assert.ok(!new RegExp(`^${rel.replace(/\./g, '\\.')}$`, 'm').test(r.text), `${rel} listed`);
      assert.ok(!/private\/notes\.txt|^\.git\//m.test(r.text));
      assert.match(r.text, /file\(s\) withheld by the workspace gate: .*has a secret-looking name/);
      assert.match(r.text, /is ignored by git/);
    });

    it('list_files refuses .git itself with the gate line', async () => {
      const r = await runTool(repo.root, 'list_files', { path: '.git' });
      assert.deepEqual(r, { ok: false, text: 'refused: .git is inside .git (version control internals)' });
    });

    it('list_files of a git-ignored folder lists nothing from it', async () => {
      const r = await runTool(repo.root, 'list_files', { path: 'private' });
      assert.match(r.text, /^0 file\(s\)\n/);
      assert.match(r.text, /1 is ignored by git/);
    });
  });

  describe('--context', () => {
    for (const [rel, why] of REFUSED)
      it(`--context ${rel} is refused with one line saying why`, async () => {
        const c = await context({ paths: [rel] });
        assert.deepEqual(c.items, []);
        assert.equal(c.refused.length, 1);
        assert.match(c.refused[0]?.reason ?? '', why);
        clean('context', JSON.stringify(c));
      });

    it('--context .git attaches nothing and says why', async () => {
      const c = await context({ paths: ['.git'] });
      assert.deepEqual(c.items, []);
      assert.deepEqual(c.refused, [{ path: '.git', reason: 'is inside .git (version control internals)' }]);
    });

    it('--context . next to a registered submodule attaches no ignored, secret or .git file, and lists each refusal', async () => {
      const c = await context({ paths: ['.'] });
      clean('context .', JSON.stringify(c));
      const attached = c.items.map((i) => i.path).sort();
      assert.deepEqual(attached, [
        '.env.example',
        '.gitattributes',
        '.gitignore',
        '.gitmodules',
        'docs/decisions/0001-use-vault-for-secrets.md',
        'docs/decisions/0002-rotate-the-deploy-token.md',
        'src/app.ts',
        'src/auth.ts',
        'src/config.ts',
        'tools/plain/.gitconfig',
        'vendor/lib/.gitignore',
        'vendor/lib/NOTES.md',
        'vendor/lib/README.md',
      ]);
      const quiet = [
        '.git/config',
        'private/notes.txt',
        'vendor/lib/local/token.txt',
        'outside-link.txt',
        'notes-link.txt',
      ];
      for (const [rel, why] of REFUSED.filter(([p]) => !quiet.includes(p)))
        assert.match(reasonOf(c, rel) ?? `${rel} not refused`, why);
      // The ignored files are counted, not listed: the one in the submodule answered by the submodule's git.
      assert.match(c.cut ?? '', /2 git-ignored file\(s\) matched by a folder or glob were skipped/);
    });

    it('--context of a folder and a glob go through the same gate', async () => {
      const c = await context({ paths: ['keys', '**/*.bak', 'src/*.ts'] });
      clean('context', JSON.stringify(c));
      assert.deepEqual(
        c.items.map((i) => i.path),
        ['src/app.ts', 'src/auth.ts', 'src/config.ts'],
      );
      assert.equal(reasonOf(c, 'keys/deploy.txt'), 'holds a private key block');
      assert.match(reasonOf(c, 'id_rsa.bak') ?? '', /a private key/);
      assert.match(reasonOf(c, 'server.pem.bak') ?? '', /a private key/);
    });

    it('--context keeps the sha256 of what was sent and which lines were redacted', async () => {
      const c = await context({ paths: ['src/config.ts'] });
      const item = c.items[0];
      assert.ok(item);
      assert.equal(item.sha256, sha(item.text), 'the hash is of the redacted text that was sent');
      assert.deepEqual(item.redacted, [{ line: 2, rule: 'token-assignment' }]);
      assert.ok(item.text.includes('export const region'));
    });
  });

  describe('the git diff', () => {
    const inDiff = [
      '.npmrc',
      'id_ed25519',
      'secrets.yaml',
      'prod.tfvars',
      '.netrc',
      '.ssh/config',
      'cert.p12',
      'old_key.pem',
    ];
    for (const [label, diff] of [
      ['--diff HEAD', { ref: 'HEAD' }],
      ['the staged diff', { staged: true }],
    ] as const)
      it(`${label} goes file by file through the gate: every secret file left out with its reason, the key redacted`, async () => {
        const c = await context({ diff });
        clean(label, JSON.stringify(c));
        for (const rel of inDiff)
          assert.match(
            reasonOf(c, rel) ?? `${rel} not refused`,
            /has a secret-looking name .*; left out of the git diff$/,
          );
        const d = c.items.find((i) => i.kind === 'diff');
        assert.ok(d, JSON.stringify(c.refused));
        assert.match(d.text, /\+const API_KEY = "\[redacted by Roundtable: token-assignment\]";/);
        assert.equal(d.text.includes('src/app.ts'), label === '--diff HEAD', 'the unstaged change only against HEAD');
        assert.equal(d.sha256, sha(d.text));
        assert.equal(d.redacted?.length, 1);
      });

    it('a repository config that would run a program (fsmonitor, a clean filter) has not run it', () => {
      assert.equal(existsSync(repo.pwned), false);
    });
  });

  describe('the selection', () => {
    it('a selection of src/config.ts comes back redacted, line numbers kept', async () => {
      const c = await context({ selections: [{ path: 'src/config.ts', startLine: 2, endLine: 3 }] });
      const s = c.items[0];
      assert.equal(s?.path, 'src/config.ts:2-3');
      assert.equal(s?.text, `const API_KEY = "${MARK} token-assignment]";\nexport const region = 'eu-west-1';`);
      assert.deepEqual(s?.redacted, [{ line: 1, rule: 'token-assignment' }]);
    });

    it('a selection of an ordinary line of a file holding a private key is refused: the whole file is', async () => {
      const c = await context({ selections: [{ path: 'keys/deploy.txt', startLine: 1, endLine: 1 }] });
      assert.deepEqual(c.refused, [{ path: 'keys/deploy.txt', reason: 'holds a private key block' }]);
    });

    it('a selection in .git/config or a git-ignored file is refused', async () => {
      const c = await context({
        selections: [
          { path: '.git/config', startLine: 1, endLine: 20 },
          { path: 'private/notes.txt', startLine: 1, endLine: 1 },
        ],
      });
      assert.deepEqual(c.items, []);
      assert.deepEqual(
        c.refused.map((r) => r.reason),
        ['is inside .git (version control internals)', 'is ignored by git'],
      );
    });
  });

  describe('decision records', () => {
    it('decision records pass the gate: a token in a record is redacted, a secret-named record refused', async () => {
      const c = await context(
        { decisionsFolder: 'docs/decisions' },
        'Should we rotate the deploy token and keep Vault?',
      );
      clean('decisions', JSON.stringify(c));
      const rec = c.items.find((i) => i.path === 'docs/decisions/0002-rotate-the-deploy-token.md');
      assert.ok(rec, JSON.stringify(c));
      assert.match(rec.text, /The old token: \[redacted by Roundtable: github\]/);
      assert.deepEqual(rec.redacted, [{ line: 5, rule: 'github' }]);
      assert.match(reasonOf(c, 'docs/decisions/secrets.md') ?? '', /a secrets file/);
    });

    it('a decisions folder inside .git is refused', async () => {
      const c = await context({ decisionsFolder: '.git' }, 'anything at all');
      assert.deepEqual(c.refused, [{ path: '.git', reason: 'is inside .git (version control internals)' }]);
    });
  });

  describe('evidence checks', () => {
    const cases: [string, string][] = [
      ['src/app.ts:1-3', 'exists'],
      ['.git/config', 'refused'],
      ['private/notes.txt', 'refused'],
      ['id_rsa.bak', 'refused'],
      ['keys/deploy.txt', 'refused'],
      ['vendor/lib/local/token.txt', 'refused'],
      ['vendor/lib/NOTES.md', 'exists'],
      ['outside-link.txt', 'outside_workspace'],
      ['src/ghost.ts', 'missing'],
    ];
    for (const [file, status] of cases)
      it(`evidence ${file} is ${status}`, async () => {
        assert.equal(await evidenceChecker(repo.root)(file), status);
      });
  });

  describe('whole meetings: nothing planted reaches the model server', () => {
    let fake: FakeOpenAI;
    const probes = [
      { name: 'read_file', arguments: JSON.stringify({ path: '.git/config' }) },
      { name: 'read_file', arguments: JSON.stringify({ path: 'src/config.ts' }) },
      { name: 'search', arguments: JSON.stringify({ query: 'SECRET_', glob: '**' }) },
      { name: 'list_files', arguments: JSON.stringify({ path: 'private' }) },
    ];
    /** ada probes the workspace with tools on her first ask; the rest of the room just talks. */
    const responder = (body: ChatBody) => {
      const system = instructionsOf(body);
      const answered = body.messages?.some((m) => m.role === 'tool');
      if (body.tools && /^You are ada/.test(system) && !answered) return { toolCalls: probes };
      return defaultResponder(body);
    };
    before(async () => {
      fake = await startFakeOpenAI(responder, { models: ['m1', 'm2'] });
    });
    after(async () => {
      await fake.close();
    });
    const sent = (): string => JSON.stringify(fake.requests.map((r) => r.body));

    it('in-process: context of everything, the diff, a selection and tool calls; the minutes list every refusal and redaction', async () => {
      fake.requests.length = 0;
      const panel: Participant[] = [
        { name: 'sam', role: 'assistant', provider: 'openai', model: 'm1' },
        { name: 'ada', role: 'worker', provider: 'openai', model: 'm1' },
        { name: 'grace', role: 'worker', provider: 'openai', model: 'm2' },
      ];
      const params = checkStartParams({
        topic: 'Should we rotate the deploy token?',
        mode: 'roundtable',
        participants: panel,
        config: { maxRounds: 1, tools: true, contextMaxTokens: 50_000 },
        workspace: repo.root,
        context: {
          paths: ['.', '.git', '.git/config', 'private/notes.txt', ...REFUSED.map(([p]) => p)],
          diff: { ref: 'HEAD' },
          selections: [{ path: 'src/config.ts', startLine: 1, endLine: 3 }],
          decisionsFolder: 'docs/decisions',
        },
      });
      assert.ok(params.ok, params.ok ? '' : params.error);
      const store = new MemoryStore();
      const provider = new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 0 });
      const meeting = await Meeting.open(
        { store, providerFor: () => provider, clock: systemClock },
        'm-gate',
        params.value,
      );
      await meeting.run();
      const events: MeetingEvent[] = await store.load(meeting.id);
      clean('requests to the model server', sent());
      assert.ok(sent().includes(`${MARK} token-assignment]`), 'the redacted file was sent');
      const calls = eventsOfType(events, 'tool_called');
      assert.deepEqual(
        calls.map((c) => c.result.split('\n')[0]),
        [
          'refused: .git/config is inside .git (version control internals)',
          'src/config.ts lines 1-4 of 4',
          '0 match(es)',
          '0 file(s)',
        ],
      );
      const minutes = renderMinutes(fold(events));
      clean('minutes', minutes);
      assert.match(minutes, /- Refused `\.git\/config`: is inside \.git \(version control internals\)/);
      assert.match(
        minutes,
        /- Refused `id_ed25519`: has a secret-looking name \(a private key\); left out of the git diff/,
      );
      assert.match(minutes, /- Refused `private\/notes\.txt`: is ignored by git/);
      assert.match(minutes, /- Redacted in `src\/config\.ts`: line 2 \(token-assignment\)/);
      assert.match(minutes, /- Redacted in `src\/auth\.ts`: line 2 \(jwt\)/);
    });

    async function runCli(extra: string[], env: NodeJS.ProcessEnv = {}) {
      const out = await mkdtemp(path.join(tmpdir(), 'rt-gate-out-'));
      const r = await cli(
        [
          'run',
          '--topic',
          'Should we rotate the deploy token?',
          '--max-rounds',
          '1',
          '--tools',
          '--out',
          out,
          '--context',
          '.',
          '--context',
          '.git',
          '--context',
          '.git/config',
          '--context',
          'id_rsa.bak',
          '--diff',
          ...extra,
        ],
        { cwd: repo.root, env: { ROUNDTABLE_BASE_URL: fake.baseURL, ...env }, timeoutMs: 120_000 },
      );
      assert.equal(r.code, 0, r.stderr);
      const minutesPath = /Minutes: (.+\.md)/.exec(r.stdout)?.[1];
      assert.ok(minutesPath, r.stdout);
      const minutes = await readFile(minutesPath, 'utf8');
      await rm(out, { recursive: true, force: true });
      return { r, minutes };
    }

    it('the CLI: roundtable run --context . --context .git --context .git/config --diff --tools sends no planted secret', async () => {
      fake.requests.length = 0;
      const { r, minutes } = await runCli([]);
      clean('requests to the model server', sent());
      clean('stdout', r.stdout + r.stderr);
      clean('minutes', minutes);
      assert.ok(fake.requests.length > 0);
      assert.match(r.stdout, /refused \.git\/config: is inside \.git \(version control internals\)/);
      assert.match(r.stdout, /refused id_rsa\.bak: has a secret-looking name \(a private key\)/);
      assert.match(minutes, /- Refused `\.npmrc`: has a secret-looking name .*; left out of the git diff/);
      assert.match(minutes, /- Redacted in `git diff HEAD`: line \d+ \(token-assignment\)/);
      assert.match(minutes, /refused: \.git\/config is inside \.git/, 'the tool call refusal says the gate line');
    });

    it('the daemon: the same run held by a daemon process sends no planted secret', async () => {
      const dataDir = await tempDataDir();
      const daemon = await spawnDaemonProcess(dataDir, { ROUNDTABLE_BASE_URL: fake.baseURL });
      try {
        fake.requests.length = 0;
        const { r, minutes } = await runCli(['--daemon', '--data-dir', dataDir]);
        assert.match(r.stdout, new RegExp(`running in the daemon on port ${daemon.port}`));
        clean('requests to the model server', sent());
        clean('minutes', minutes);
        assert.ok(fake.requests.length > 0);
        assert.match(minutes, /- Refused `\.git`: is inside \.git \(version control internals\)/);
      } finally {
        await daemon.stop();
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  });

  describe('git cannot answer (a broken submodule next to an ignored folder): fail closed', () => {
    let broken: Awaited<ReturnType<typeof makeBrokenSubmoduleRepo>>;
    before(async () => {
      broken = await makeBrokenSubmoduleRepo();
    });
    after(async () => {
      await rm(broken.base, { recursive: true, force: true });
    });

    it('--context . decides per path when the batch fails: the ignored secret skipped, the unanswerable file refused', async () => {
      const c = await attachWhole(broken.root);
      assert.deepEqual(leaked({ ...repo, secrets: broken.secrets }, JSON.stringify(c)), []);
      assert.deepEqual(
        c.items.map((i) => i.path),
        ['.gitignore', '.gitmodules', 'app.ts'],
      );
      const unanswered = 'could not be checked against .gitignore (git failed for this path), so it is refused';
      assert.deepEqual(c.refused, [
        { path: 'vendor/broken/README.md', reason: unanswered },
        { path: 'vendor/broken/notes.md', reason: unanswered },
      ]);
      assert.match(c.cut ?? '', /1 git-ignored file\(s\)/);
    });

    it('read_file and search refuse what git cannot answer for', async () => {
      const r = await runTool(broken.root, 'read_file', { path: 'vendor/broken/notes.md' });
      assert.match(r.text, /^refused: vendor\/broken\/notes\.md could not be checked against \.gitignore/);
      const s = await runTool(broken.root, 'search', { query: 'SECRET', glob: '**' });
      assert.match(s.text, /^0 match/);
    });
  });

  describe('with and without a repository', () => {
    let dir = '';
    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'rt-gate-plain-'));
      await mkdir(path.join(dir, 'plain'));
      await mkdir(path.join(dir, 'corrupt'));
      for (const d of ['plain', 'corrupt']) await writeFile(path.join(dir, d, 'app.ts'), 'export const a = 1;\n');
      await writeFile(path.join(dir, 'corrupt', '.git'), 'gitdir: ../nowhere\n');
    });
    after(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('a folder that is no git repository has no ignore rules: ordinary files pass', async () => {
      const c = await attachWhole(path.join(dir, 'plain'));
      assert.deepEqual(
        c.items.map((i) => i.path),
        ['app.ts'],
      );
      assert.deepEqual(c.refused, []);
    });

    it('a repository git cannot read (its .git points nowhere) refuses every file: fail closed', async () => {
      const c = await attachWhole(path.join(dir, 'corrupt'));
      assert.deepEqual(c.items, []);
      assert.deepEqual(c.refused, [
        {
          path: 'app.ts',
          reason: 'could not be checked against .gitignore (git failed for this path), so it is refused',
        },
      ]);
    });
  });

  describe("this project's own source", () => {
    it("attaching this project's own source tree refuses and redacts nothing", async () => {
      const folders = ['daemon', 'protocol', 'client', 'extension', 'webview', 'scripts', 'bench', 'examples', 'bin'];
      const c = await readContext({
        workspace: ROOT,
        request: {
          paths: [...folders, 'README.md', 'ARCHITECTURE.md', 'package.json'].filter((p) =>
            existsSync(path.join(ROOT, p)),
          ),
        },
        topic: 'x',
        budget: 10_000_000,
      });
      assert.ok(c.items.length > 100, `${c.items.length} files read`);
      assert.deepEqual(c.refused, []);
      assert.deepEqual(
        c.items.filter((i) => i.redacted).map((i) => `${i.path}: ${JSON.stringify(i.redacted)}`),
        [],
      );
    });
  });
});
