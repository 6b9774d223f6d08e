/**
 * The direction of imports the architecture promises (docs: extension -> client, protocol;
 * daemon -> protocol, client; client -> protocol; webview -> protocol; action -> protocol; protocol -> nothing).
 * Two processes meet only through the protocol and the client: the extension never bundles daemon
 * code, the webview never reaches past the protocol, and the protocol needs no Node, DOM or vscode.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(__dirname, '..', '..');

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

  it('no front door imports another, but the CLI routes `mcp` and `eval` to their entry points', () => {
    const others = { cli: ['mcp', 'eval'], mcp: ['cli', 'eval'], eval: ['cli', 'mcp'] } as const;
    const found = (Object.keys(others) as (keyof typeof others)[]).flatMap((door) =>
      violations(`${door}/src`, (to) => (others[door] as readonly string[]).includes(to)),
    );
    assert.deepEqual(
      found.filter((v) => !/^cli\/src\/main\.ts imports \.\.\/\.\.\/(mcp|eval)\/src\/command$/.test(v)),
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
