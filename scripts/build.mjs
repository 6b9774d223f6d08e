// Bundles the programs with esbuild: the daemon/CLI and the GitHub Action for Node, the extension as CommonJS
// with `vscode` external, the webview for the browser. Type-checking is `tsc -b`'s job.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

// A production build starts from an empty dist/: a source map or a bundle left by an earlier
// development build would not match the minified code, and would be packaged (vsce's secret scan
// also reads maps).
if (production) rmSync('dist', { recursive: true, force: true });

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
};

const builds = [
  {
    ...common,
    entryPoints: { cli: 'cli/src/main.ts' },
    outdir: 'dist/daemon',
    platform: 'node',
    target: 'node20',
    format: 'cjs',
  },
  {
    // The GitHub Action (action.yml): runs dist/daemon/cli.js beside it. Not in the .vsix or the npm package.
    // GitHub runs JavaScript actions on Node 24 only (forced on 2026-06-02, Node 20 removed from the
    // runners on 2026-09-16), hence `runs.using: node24` and this target. The tests run the same file
    // on this repository's Node 20, so its syntax must stay what both run: they fail if it does not.
    ...common,
    entryPoints: { index: 'action/src/main.ts' },
    outdir: 'dist/action',
    platform: 'node',
    target: 'node24',
    format: 'cjs',
  },
  {
    ...common,
    entryPoints: { extension: 'extension/src/extension.ts' },
    outdir: 'dist/extension',
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['vscode', 'bufferutil', 'utf-8-validate'],
  },
  {
    // Extension-host test suites: not part of the .vsix (see .vscodeignore).
    ...common,
    entryPoints: { suite: 'test/extension/suite.ts' },
    outdir: 'dist/test',
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['vscode'],
    // mocha's parallel mode (unused here) resolves worker files at run time.
    logOverride: { 'require-resolve-not-external': 'silent' },
  },
  {
    ...common,
    entryPoints: { room: 'webview/src/room.ts', digest: 'webview/src/digest.ts' },
    outdir: 'dist/webview',
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
  },
];

// sql.js's engine ships as its .wasm file beside cli.js rather than inlined as base64 (a third
// larger, and it compresses worse in the .vsix); storeFiles.ts loads it from there.
mkdirSync('dist/daemon', { recursive: true });
copyFileSync('node_modules/sql.js/dist/sql-wasm.wasm', 'dist/daemon/sql-wasm.wasm');

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
