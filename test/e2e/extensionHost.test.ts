/**
 * The extension-host mocha suites (test/extension/suite.ts), run inside code-server's real
 * extension host: the extension runs them itself when ROUNDTABLE_EXTENSION_TESTS names a results
 * file, and this test reads the results. The same suites run on a desktop VS Code through
 * @vscode/test-electron wherever one can be downloaded (npm run test:vscode-desktop).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT, startVsCode, until, type RunningVsCode } from './codeServer';

describe('extension-host suites inside code-server', () => {
  let vs: RunningVsCode | undefined;
  after(() => vs?.stop());

  it('pass: activation, commands, room view, daemon start and restart, vscode.lm errors, @roundtable', async () => {
    assert.ok(existsSync(path.join(ROOT, 'dist', 'test', 'suite.js')), 'the suites are built by npm run build');
    const out = path.join(await mkdtemp(path.join(tmpdir(), 'rt-exthost-')), 'results.json');
    vs = await startVsCode({
      install: 'unpacked',
      env: {
        ROUNDTABLE_EXTENSION_TESTS: out,
        // Two families, so the convene path proposes a panel without a picker (no Copilot in code-server).
        ROUNDTABLE_TEST_LM_MODELS: JSON.stringify([
          { id: 'stub-a', family: 'alpha' },
          { id: 'stub-b', family: 'beta' },
        ]),
      },
    });
    const failures = Number(
      await until('the suites to finish', async () => readFile(`${out}.done`, 'utf8').catch(() => undefined), 240_000),
    );
    const report = JSON.parse(await readFile(out, 'utf8')) as {
      tests: { fullTitle: string }[];
      failures: { fullTitle: string; err: { message: string } }[];
    };
    for (const t of report.tests)
      console.log(
        `  extension host: ${report.failures.some((f) => f.fullTitle === t.fullTitle) ? '✖' : '✔'} ${t.fullTitle}`,
      );
    assert.equal(failures, 0, report.failures.map((f) => `${f.fullTitle}: ${f.err.message}`).join('\n'));
    assert.equal(report.tests.length, 8);
  });
});
