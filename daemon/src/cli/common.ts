import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Bad input from the user: printed as one line, exit code 2, never a stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The shipped demo panel and script, found from the bundle (dist/daemon) or the sources (daemon/src/cli). */
export function examplesDir(): string {
  const candidates = [
    path.resolve(__dirname, '..', '..', 'examples'),
    path.resolve(__dirname, '..', '..', '..', 'examples'),
  ];
  return candidates.find((d) => existsSync(path.join(d, 'demo-panel.json'))) ?? (candidates[0] as string);
}

/** node:util's parseArgs (strict), with its errors turned into one-line usage errors (exit 2). */
export function parseCli<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs<T>({ strict: true, ...config });
  } catch (e) {
    // parseArgs' messages are already one clear line ("Unknown option '--foo'").
    throw new UsageError((e as Error).message.split('\n')[0] ?? 'bad arguments');
  }
}
