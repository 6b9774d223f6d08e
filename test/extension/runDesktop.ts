/**
 * Runs the extension-host suites in a desktop VS Code with @vscode/test-electron. That download
 * is not reachable on this project's machines (they run the same suites in code-server, see
 * test/e2e/extensionHost.test.ts); it works wherever VS Code can be downloaded or a build is
 * given in VSCODE_EXECUTABLE.
 */
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '..', '..');
  await runTests({
    extensionDevelopmentPath: root,
    extensionTestsPath: path.join(root, 'dist', 'test', 'suite.js'),
    ...(process.env.VSCODE_EXECUTABLE
      ? { vscodeExecutablePath: process.env.VSCODE_EXECUTABLE }
      : { version: '1.100.3' }),
    launchArgs: ['--disable-extensions'],
  });
}

main().catch((e: unknown) => {
  console.error(`extension-host tests failed: ${(e as Error).message}`);
  process.exit(1);
});
