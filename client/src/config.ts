/**
 * What every Roundtable process (daemon, CLI, MCP server, eval, the extension host) reads from its
 * environment, resolved here once: the API key, the OpenAI-compatible server and the data dir.
 *
 * The rules, the same in every process:
 * - A variable that is unset, empty or only whitespace counts as unset: `ROUNDTABLE_API_KEY=` in a
 *   shell falls through to `OPENAI_API_KEY` in the daemon exactly as in the CLI. A value is used
 *   trimmed (a key pasted with a newline still works).
 * - The API key: `ROUNDTABLE_API_KEY`, else `OPENAI_API_KEY`, else none. A key a meeting brings
 *   itself (the extension's secret storage, the MCP server's env) comes first.
 * - The server: a flag or setting given explicitly, else `ROUNDTABLE_BASE_URL`, else
 *   `DEFAULT_BASE_URL` (OpenAI). A flag given blank is a usage error, not "unset": it was typed.
 * - The data dir: `ROUNDTABLE_HOME`, else `~/.roundtable`.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { UsageError } from './usage';

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** The variables a key is read from, first set wins; both are secrets wherever they are set. */
export const API_KEY_VARIABLES = ['ROUNDTABLE_API_KEY', 'OPENAI_API_KEY'] as const;

/** A value trimmed, or undefined when it is unset, empty or only whitespace. */
export function nonBlank(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}

/** The API key for a meeting: its own (`given`), else the environment's, else undefined. */
export function apiKeyOf(env: NodeJS.ProcessEnv, given?: string): string | undefined {
  return nonBlank(given) ?? API_KEY_VARIABLES.map((name) => nonBlank(env[name])).find((v) => v !== undefined);
}

/** Every key the environment holds (both variables when both are set): never to be written anywhere. */
export function apiKeysIn(env: NodeJS.ProcessEnv): string[] {
  return API_KEY_VARIABLES.map((name) => nonBlank(env[name])).filter((v): v is string => v !== undefined);
}

/** The server asked for explicitly (`given`, else `ROUNDTABLE_BASE_URL`), or undefined: who decides is the caller. */
export function configuredBaseUrl(env: NodeJS.ProcessEnv, given?: string): string | undefined {
  return nonBlank(given) ?? nonBlank(env.ROUNDTABLE_BASE_URL);
}

/** The server a meeting talks to: the configured one, else OpenAI's. */
export function baseUrlOf(env: NodeJS.ProcessEnv, given?: string): string {
  return configuredBaseUrl(env, given) ?? DEFAULT_BASE_URL;
}

/**
 * `--base-url` (as typed) or `ROUNDTABLE_BASE_URL`, checked at the front door: an http(s) URL, or
 * a `UsageError` in one line. Undefined when neither is given.
 */
export function checkedBaseUrl(env: NodeJS.ProcessEnv, flag: string | undefined): string | undefined {
  const url = flag ?? nonBlank(env.ROUNDTABLE_BASE_URL);
  if (url !== undefined && !/^https?:\/\/[^\s]+$/.test(url))
    throw new UsageError(`--base-url must be an http(s) URL, got "${url}"`);
  return url;
}

/** `$ROUNDTABLE_HOME`, else `~/.roundtable`: shared by the CLI, the MCP server and VS Code. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return nonBlank(env.ROUNDTABLE_HOME) ?? path.join(os.homedir(), '.roundtable');
}
