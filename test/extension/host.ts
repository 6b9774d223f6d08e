/** What every extension-host suite needs: the activated extension's test API, and waiting for a condition. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RoundtableApi } from '../../extension/src/extension';

const EXTENSION_ID = 'roundtable-dev.roundtable';

export async function api(): Promise<RoundtableApi> {
  const ext = vscode.extensions.getExtension<RoundtableApi>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is installed`);
  return ext.isActive ? ext.exports : ext.activate();
}

export async function until<T>(
  what: string,
  fn: () => T | undefined | Promise<T | undefined>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}
