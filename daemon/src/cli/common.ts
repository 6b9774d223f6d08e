import { existsSync } from 'node:fs';
import * as path from 'node:path';

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
