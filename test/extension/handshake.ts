/**
 * Files the extension-host suite and the code-server driver (test/e2e/extensionHost.test.ts) pass
 * beside the results file: the suite says a tool-convened meeting runs, the driver says it has
 * taken its screenshots. No vscode import: the driver runs in plain Node.
 */
export const TOOL_RUNNING_SUFFIX = '.tool-running';
export const TOOL_SEEN_SUFFIX = '.tool-seen';
