import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { evidenceChecker } from '../../daemon/src/meeting/evidence';

describe('evidence checks resolve the real path inside the workspace', () => {
  let base = '';
  let ws = '';
  before(() => {
    base = mkdtempSync(path.join(tmpdir(), 'rt-evidence-'));
    ws = path.join(base, 'ws');
    mkdirSync(path.join(ws, 'src'), { recursive: true });
    writeFileSync(path.join(ws, 'src', 'db.ts'), 'export {};\n');
    writeFileSync(path.join(ws, '..hidden'), 'inside\n');
    writeFileSync(path.join(base, 'secret.txt'), 'outside\n');
    symlinkSync(path.join(base, 'secret.txt'), path.join(ws, 'leak.txt'));
    symlinkSync(base, path.join(ws, 'up'));
    symlinkSync(path.join(ws, 'src', 'db.ts'), path.join(ws, 'alias.ts'));
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  const cases: [string, string][] = [
    ['src/db.ts', 'exists'],
    ['src/db.ts:10-20', 'exists'],
    ['./src/../src/db.ts#L3', 'exists'],
    ['alias.ts', 'exists'],
    ['..hidden', 'exists'],
    ['src/ghost.ts', 'missing'],
    ['.', 'missing'],
    ['src', 'missing'],
    ['', 'missing'],
    ['leak.txt', 'outside_workspace'],
    ['up/secret.txt', 'outside_workspace'],
    ['up/ws/src/db.ts', 'exists'],
    ['../secret.txt', 'outside_workspace'],
    ['..', 'outside_workspace'],
    ['/etc/passwd', 'outside_workspace'],
  ];
  for (const [file, status] of cases) {
    it(`${JSON.stringify(file)} is ${status}`, async () => {
      assert.equal(await evidenceChecker(ws)(file), status);
    });
  }

  it('accepts a workspace given through a symlink', async () => {
    const link = path.join(base, 'ws-link');
    symlinkSync(ws, link);
    assert.equal(await evidenceChecker(link)('src/db.ts'), 'exists');
    assert.equal(await evidenceChecker(link)('leak.txt'), 'outside_workspace');
    assert.equal(realpathSync(link), realpathSync(ws));
  });
});
