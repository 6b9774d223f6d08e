/**
 * The workspace gate's rules on names and on content, one case per rule: what is refused, what is
 * redacted in place, and what ordinary code passes untouched.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactionMark, screenContent } from '../../daemon/src/gate/content';
import { refusedByName } from '../../daemon/src/gate/names';

const ghp = `ghp_${'A1b2C3d4E5'.repeat(3)}x9Y8z7`;

describe('gate: names that never leave the machine', () => {
  const refused: [string, RegExp][] = [
    ['.git/config', /inside \.git \(version control internals\)/],
    ['.git', /inside \.git/],
    ['vendor/lib/.git', /inside \.git/],
    ['sub/.git/modules/x/config', /inside \.git/],
    ['.GIT/config', /inside \.GIT/],
    ['.hg/hgrc', /inside \.hg/],
    ['.svn/entries', /inside \.svn/],
    ['.git-credentials', /git's stored credentials/],
    ['id_rsa', /a private key/],
    ['id_rsa.bak', /a private key/],
    ['home/id_ed25519', /a private key/],
    ['id_ecdsa.old', /a private key/],
    ['id_ed25519~', /a private key/],
    ['server.pem', /a private key/],
    ['server.pem.bak', /a private key/],
    ['tls/site.key.orig', /a private key/],
    ['cert.p12', /a private key/],
    ['cert.pfx', /a private key/],
    ['android/release.jks', /a private key/],
    ['app.keystore', /a private key/],
    ['vault.kdbx', /a private key/],
    ['.docker/config.json', /a docker registry login/],
    ['.npmrc', /npm, pip or PyPI/],
    ['pip.conf', /npm, pip or PyPI/],
    ['.pypirc', /npm, pip or PyPI/],
    ['.netrc', /netrc/],
    ['_netrc', /netrc/],
    ['.ssh/config', /ssh configuration/],
    ['home/.ssh/known_hosts', /ssh configuration/],
    ['.aws/credentials', /cloud CLI credential/],
    ['.azure/accessTokens.json', /cloud CLI credential/],
    ['.config/gcloud/legacy_credentials.json', /cloud CLI credential/],
    ['application_default_credentials.json', /cloud CLI credential/],
    ['.kube/config', /a kubeconfig/],
    ['deploy/kubeconfig', /a kubeconfig/],
    ['prod.tfvars', /Terraform/],
    ['terraform.tfstate', /Terraform/],
    ['terraform.tfstate.backup', /Terraform/],
    ['secrets.yaml', /a secrets file/],
    ['config/secrets.json', /a secrets file/],
    ['.env', /an environment file/],
    ['.env.local', /an environment file/],
    ['.env.production.bak', /an environment file/],
    ['credentials.json', /a credentials file/],
    ['service-account-prod.json', /a credentials file/],
    // Names that look like one of these: invisible characters do not make a secret file ordinary.
    ['.e\u200bnv', /an environment file/],
    ['id_rsa\u00ad', /a private key/],
    ['.s\u200dsh/config', /ssh configuration/],
    ['.g\u202eit/config', /inside \.git/],
  ];
  for (const [rel, why] of refused)
    it(`refuses ${rel} by its name`, () => {
      assert.match(refusedByName(rel) ?? 'passed', why);
    });

  const passed = [
    'src/app.ts',
    '.env.example',
    '.env.sample',
    'id_rsa.pub',
    'src/config.json',
    'docker/config.json',
    'docs/keys.md',
    'src/tokens.ts',
    'src/secretSauce.ts',
    '.gitignore',
    '.github/workflows/ci.yml',
    'kube/deployment.yaml',
  ];
  for (const rel of passed)
    it(`lets ${rel} pass by its name`, () => {
      assert.equal(refusedByName(rel), undefined);
    });
});

describe('gate: secrets in content', () => {
  it('refuses a whole file that holds a PRIVATE KEY block', async () => {
    const r = await screenContent(
      'notes\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA\n-----END OPENSSH PRIVATE KEY-----\n',
    );
    assert.deepEqual(r, { ok: false, reason: 'holds a private key block' });
  });

  it('redacts a token assignment in place and keeps the rest of the line and the file', async () => {
    const r = await screenContent(
      'export const port = 8080;\nconst API_KEY = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c";\n',
    );
    assert.ok(r.ok);
    assert.equal(r.text, `export const port = 8080;\nconst API_KEY = "${redactionMark('token-assignment')}";\n`);
    assert.deepEqual(r.redacted, [{ line: 2, rule: 'token-assignment' }]);
  });

  it('redacts a JWT', async () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
    const r = await screenContent(`const session = '${jwt}';\n`);
    assert.ok(r.ok);
    assert.equal(r.text, `const session = '${redactionMark('jwt')}';\n`);
  });

  it('redacts a generic Bearer token', async () => {
    const r = await screenContent('curl -H "Authorization: Bearer q8Zr4Lm2Xv7Tn1Kp9Ws3Yb6Hd0" https://api\n');
    assert.ok(r.ok);
    assert.match(r.text, /Bearer \[redacted by Roundtable: bearer-token\]/);
  });

  it('redacts password= and token: with a long random value (env and YAML styles)', async () => {
    const r = await screenContent('password=Xk9qLm2Rt7vB4nP8sW3z\nauth:\n  token: 9fQ2mZx7Lr4Tb8Kw1Vn6Yc3D\n');
    assert.ok(r.ok);
    assert.deepEqual(
      r.redacted.map((x) => x.line),
      [1, 3],
    );
    assert.ok(!/Xk9qLm2Rt7vB4nP8sW3z|9fQ2mZx7Lr4Tb8Kw1Vn6Yc3D/.test(r.text));
  });

  it('redacts a quoted key of letters only (no digit in it, as one random 32-letter key in 250)', async () => {
    const r = await screenContent('const API_KEY = "sk-live-pixGXpaDZxSRZAoRXmrbWWnMDhektrQV";\n');
    assert.deepEqual(r, {
      ok: true,
      text: 'const API_KEY = "[redacted by Roundtable: token-assignment]";\n',
      redacted: [{ line: 1, rule: 'token-assignment' }],
    });
  });

  it('redacts what secretlint finds (a GitHub token, an npm token) with its rule name', async () => {
    const r = await screenContent(`const gh = "${ghp}";\n//registry.npmjs.org/:_authToken=npm_${'Ab3'.repeat(12)}\n`);
    assert.ok(r.ok);
    assert.deepEqual(
      r.redacted.map((x) => x.rule),
      ['github', 'npm'],
    );
  });

  it('a secretlint-disable comment in the file does not switch the check off', async () => {
    const r = await screenContent(`// secretlint-disable\nconst gh = "${ghp}"; // secretlint-disable-line\n`);
    assert.ok(r.ok);
    assert.ok(!r.text.includes(ghp));
  });

  it('leaves ordinary code alone: type annotations, env lookups, short values, hashes of nothing secret', async () => {
    const code = [
      'export interface Auth { token: string; password?: string }',
      'const apiKey = process.env.OPENAI_API_KEY;',
      'const password = opts.password ?? readPassword(file);',
      'headers.authorization = `Bearer ${token}`;',
      "const secret = 'changeme';",
      "p.tokenParam = 'max_completion_tokens';",
      "const passwordSource = 'getPasswordFromVaultOrEnvironment';",
      'npm_config_dangerously_allow_all_scripts=true npm install',
      'const sha = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";',
      '',
    ].join('\n');
    assert.deepEqual(await screenContent(code), { ok: true, text: code, redacted: [] });
  });
});
