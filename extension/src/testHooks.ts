/**
 * Development only: what the extension-host tests reach through activate(). Inert unless
 * ROUNDTABLE_EXTENSION_TESTS is set; it ships in the .vsix because the end-to-end tests drive the
 * installed extension through it. (The stub models the tests select are in testStubModels.)
 */
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { chatHandler, followups } from './chat/participant';

type ChatDeps = Parameters<typeof chatHandler>[0];

/** The test-only part of the API: `@roundtable`'s handler and follow-ups. */
export interface TestApi {
  chat?: { handler: vscode.ChatRequestHandler; followups: vscode.ChatFollowupProvider };
}

/**
 * With ROUNDTABLE_EXTENSION_TESTS (the file the results go to) set: exposes the chat handler and
 * runs the extension-host test suites inside whatever VS Code hosts this extension (code-server in
 * CI, where @vscode/test-electron cannot download a desktop build). Without it: nothing.
 */
export function testHooks(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, chatDeps: ChatDeps): TestApi {
  const results = process.env.ROUNDTABLE_EXTENSION_TESTS;
  if (!results) return {};
  setTimeout(() => {
    const runner = path.join(context.extensionPath, 'dist', 'test', 'suite.js');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const suite = require(runner) as { runTo(out: string): Promise<void> };
    suite.runTo(results).catch((e: unknown) => log.error(`extension tests failed to run: ${(e as Error).message}`));
  }, 500);
  return { chat: { handler: chatHandler(chatDeps), followups } };
}
