/**
 * The direction of imports the architecture promises (docs: extension -> client, protocol;
 * daemon -> protocol, client; client -> protocol; webview -> protocol; action -> protocol; protocol -> nothing).
 * Two processes meet only through the protocol and the client: the extension never bundles daemon
 * code, the webview never reaches past the protocol, and the protocol needs no Node, DOM or vscode.
 * Inside them, file by file (test/importGraph.ts): no import circles, the daemon's readers and
 * providers below the engine, and every name imported from the module that defines it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ROOT, buildGraph, cycles, reExports, sourceFiles, sourceGraph, type Graph } from '../importGraph';

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => path.join(dir, f));
}

/** Every module specifier a file imports or re-exports, static or dynamic. */
function specifiers(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/g)) out.push(m[1] ?? '');
  for (const m of text.matchAll(/(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1] ?? '');
  return out;
}

/** The top-level folder a relative import lands in (`protocol`, `daemon`…), or the package name. */
function target(file: string, spec: string): string {
  // Path aliases name the folder: `@roundtable/protocol` is protocol/src.
  const alias = /^@roundtable\/([^/]+)/.exec(spec);
  if (alias) return alias[1] ?? '';
  if (!spec.startsWith('.')) return spec.startsWith('node:') ? 'node' : spec;
  return path.relative(ROOT, path.resolve(ROOT, path.dirname(file), spec)).split(path.sep)[0] ?? '';
}

function violations(dir: string, forbidden: (to: string) => boolean): string[] {
  return sources(dir).flatMap((f) =>
    specifiers(f)
      .filter((s) => forbidden(target(f, s)))
      .map((s) => `${f} imports ${s}`),
  );
}

describe('import directions', () => {
  it('the extension imports nothing from the daemon (it meets it through the protocol and the client)', () => {
    assert.deepEqual(
      violations('extension/src', (to) => to === 'daemon'),
      [],
    );
  });

  it('the webview imports only the protocol and browser packages', () => {
    assert.deepEqual(
      violations('webview/src', (to) => ['daemon', 'client', 'extension', 'vscode', 'node'].includes(to)),
      [],
    );
  });

  it('the client imports neither the daemon, the extension nor vscode', () => {
    assert.deepEqual(
      violations('client/src', (to) => ['daemon', 'extension', 'webview', 'vscode'].includes(to)),
      [],
    );
  });

  it('the protocol imports nothing but zod', () => {
    assert.deepEqual(
      violations('protocol/src', (to) => !to.startsWith('protocol') && !to.startsWith('zod')),
      [],
    );
  });

  it('the daemon never imports vscode, the extension or the webview', () => {
    assert.deepEqual(
      violations('daemon/src', (to) => ['vscode', 'extension', 'webview'].includes(to)),
      [],
    );
  });

  it('the daemon imports no front door (cli, mcp, eval): they are its clients', () => {
    assert.deepEqual(
      violations('daemon/src', (to) => ['cli', 'mcp', 'eval'].includes(to)),
      [],
    );
  });

  it('the GitHub Action imports only the protocol (it runs the bundled CLI, never imports the daemon)', () => {
    assert.deepEqual(
      violations('action/src', (to) => ['daemon', 'client', 'extension', 'webview', 'vscode'].includes(to)),
      [],
    );
  });

  it('the check sees a forbidden import when there is one', () => {
    assert.equal(target('extension/src/x.ts', '../../daemon/src/providers/models'), 'daemon');
    assert.equal(target('webview/src/x.ts', 'vscode'), 'vscode');
    assert.equal(target('protocol/src/x.ts', './schema'), 'protocol');
    assert.equal(target('extension/src/x.ts', '@roundtable/daemon/providers/models'), 'daemon');
  });
});

/** The edges of `graph` from files under `from` to files under `to`, as `a.ts imports b.ts`. */
function edges(graph: Graph, from: RegExp, to: RegExp): string[] {
  return [...graph].flatMap(([f, targets]) =>
    from.test(f) ? targets.filter((t) => to.test(t)).map((t) => `${f} imports ${t}`) : [],
  );
}

/** Imports from one front door (cli, mcp, eval, extension, action) into another. */
function doorCrossings(graph: Graph): string[] {
  const door = (f: string): string | undefined => /^(cli|mcp|eval|extension|action)\//.exec(f)?.[1];
  return [...graph].flatMap(([f, targets]) =>
    targets.filter((t) => door(t) !== undefined && door(t) !== door(f)).map((t) => `${f} imports ${t}`),
  );
}

/** The package barrels: a package's public surface, the one place a name is passed on. */
const BARRELS = ['protocol/src/index.ts', 'client/src/index.ts'];

describe('import graph', () => {
  const graph = sourceGraph();

  it('has no import circle anywhere in the source', () => {
    assert.deepEqual(cycles(graph), []);
  });

  it('keeps the providers below the tool loop: the tool loop drives them, never the reverse', () => {
    assert.deepEqual(edges(graph, /^daemon\/src\/providers\//, /^daemon\/src\/tools\//), []);
  });

  it('keeps the readers (context, decisions, tools, gate) below the meeting engine', () => {
    assert.deepEqual(edges(graph, /^daemon\/src\/(context|decisions|tools|gate)\//, /^daemon\/src\/meeting\//), []);
  });

  it('keeps the providers off the client: what they share is in the protocol, what they need is handed to them', () => {
    assert.deepEqual(edges(graph, /^daemon\/src\/providers\//, /^client\//), []);
  });

  it('the CLI reads meetings and estimates through the meeting handle, never the store or the engine', () => {
    assert.deepEqual(edges(graph, /^cli\//, /^daemon\/src\/(store|meeting)\//), []);
  });

  it('the eval takes nothing from the engine (its seeded random numbers are the protocol’s)', () => {
    assert.deepEqual(edges(graph, /^eval\//, /^daemon\/src\/meeting\//), []);
  });

  it('no front door imports another, but the CLI routes `mcp` and `eval` to their entry points', () => {
    assert.deepEqual(
      doorCrossings(graph).filter((c) => !/^cli\/src\/main\.ts imports (mcp|eval)\/src\/command\.ts$/.test(c)),
      [],
    );
  });

  it('passes no name on: importers import from the defining module (only the package barrels re-export)', () => {
    const layers = sourceFiles()
      .filter((f) => !BARRELS.includes(f))
      .flatMap((f) => reExports(f, readFileSync(path.join(ROOT, f), 'utf8')).map((r) => `${f} re-exports ${r}`));
    assert.deepEqual(layers, []);
  });

  it('the checks see a circle, a layer crossed, a front door crossed and a re-export when there is one', () => {
    const files: Record<string, string> = {
      'daemon/src/providers/a.ts': "import { b } from '../tools/b';\nexport const a = b;",
      'daemon/src/tools/b.ts': "import type { C } from '../meeting/c';\nexport const b = 1;",
      'daemon/src/meeting/c.ts': "export type C = number;\nexport const c = import('./index');",
      'daemon/src/meeting/index.ts': "import { a } from '../providers/a';\nexport { a };",
      'daemon/src/meeting/d.ts': "export * from '@roundtable/protocol';",
      'mcp/src/x.ts': "import { y } from '../../eval/src/y';",
      'eval/src/y.ts': "import { z } from './z';\nexport const y = z;",
      'eval/src/z.ts': "import { y } from './y.js';\nexport const z = y;",
    };
    const g = buildGraph(Object.keys(files), (f) => files[f] ?? '');
    assert.deepEqual(cycles(g), [
      'daemon/src/meeting/c.ts -> daemon/src/meeting/index.ts -> daemon/src/providers/a.ts -> daemon/src/tools/b.ts -> daemon/src/meeting/c.ts',
      'eval/src/y.ts -> eval/src/z.ts -> eval/src/y.ts',
    ]);
    assert.deepEqual(doorCrossings(g), ['mcp/src/x.ts imports eval/src/y.ts']);
    assert.deepEqual(edges(g, /providers\//, /tools\//), ['daemon/src/providers/a.ts imports daemon/src/tools/b.ts']);
    assert.deepEqual(edges(g, /tools\//, /meeting\//), ['daemon/src/tools/b.ts imports daemon/src/meeting/c.ts']);
    assert.deepEqual(reExports('i.ts', files['daemon/src/meeting/index.ts']!), ['a from ../providers/a']);
    assert.deepEqual(reExports('d.ts', files['daemon/src/meeting/d.ts']!), ['* from @roundtable/protocol']);
    assert.deepEqual(reExports('a.ts', files['daemon/src/providers/a.ts']!), []);
  });
});
