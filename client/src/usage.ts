import { statSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Bad input from the user: printed as one line, exit code 2, never a stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * No model to ask: no server found, the server down or listing no model, a model it does not serve.
 * A usage error for `run` (exit 2); for `review` a review that could not be done (exit 3), never a
 * failed one.
 */
export class NoModelError extends UsageError {
  override name = 'NoModelError';
}

/**
 * parseArgs reads the `-5` of `--budget -5` as an option of its own and answers "argument is
 * ambiguous"; a value that looks like a negative number is joined to its flag (`--budget=-5`) so
 * the flag's own check can say what is wrong with it.
 */
function joinNegativeValues(args: readonly string[], options: ParseArgsConfig['options']): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const next = args[i + 1];
    const name = /^--([^=]+)$/.exec(a)?.[1];
    if (name && options?.[name]?.type === 'string' && next !== undefined && /^-\.?\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/**
 * node:util's parseArgs (strict), with its errors turned into one-line usage errors (exit 2), and
 * a flag given twice refused (parseArgs silently keeps the last) unless it is declared `multiple`.
 */
export function parseCli<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  const args = joinNegativeValues(config.args ?? [], config.options);
  let parsed: ReturnType<typeof parseArgs<T>>;
  try {
    parsed = parseArgs<T>({ strict: true, ...config, args, tokens: true });
  } catch (e) {
    // parseArgs' messages are already one clear line ("Unknown option '--foo'").
    throw new UsageError((e as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const seen = new Set<string>();
  const tokens = (parsed as { tokens?: { kind: string; name?: string }[] }).tokens ?? [];
  for (const t of tokens) {
    if (t.kind !== 'option' || !t.name || config.options?.[t.name]?.multiple) continue;
    if (seen.has(t.name)) throw new UsageError(`--${t.name} is given twice: give it once`);
    seen.add(t.name);
  }
  delete (parsed as { tokens?: unknown }).tokens;
  return parsed;
}

/** A data dir must be a folder (it is created when missing); a file there is one clear line, not an errno. */
export function checkDataDir(dir: string): string {
  const full = path.resolve(dir);
  try {
    if (!statSync(full).isDirectory()) {
      throw new UsageError(
        `the data dir ${full} is a file, not a folder: give --data-dir a folder (it is created if missing)`,
      );
    }
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR')
      throw new UsageError(`the data dir ${full} is inside a file, not a folder: give --data-dir a folder`);
    if (code !== 'ENOENT')
      throw new UsageError(`the data dir ${full} cannot be used (${code ?? 'error'}): give --data-dir another folder`);
  }
  return full;
}
